package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.report.FaultTimeline;
import io.pkibench.report.StudyTables;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunStatus;
import io.pkibench.results.WorkloadResult;
import io.pkibench.server.openbao.BaoFixture;
import io.pkibench.server.openbao.OpenBaoServer;
import io.pkibench.testing.TestKeys;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code study pix --keys openbao:… --fault kill-leader@T} against a real 3-node OpenBao cluster
 * (serve openbao --nodes 3, its dead nodes started again): the leader's bao process SIGKILLed by
 * the study, found by sys/leader and its port; the key servers' transit calls go on through the
 * other nodes; the finding names the killed node, the one that led after, the failed calls and the
 * recovery. A short run (21 measured seconds) of the fault step alone; bench/openbao-fault runs the
 * long one.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class PixLeaderKillTest {
  @TempDir Path dir;

  @Test
  void killLeader_withoutAnOpenBaoCluster_refusedNamingWhy() {
    PixStudy study = new PixStudy(PixStudy.Fault.parse("kill-leader@5s"));
    List<String> software = study.problems(options("software"));
    assertEquals(1, software.size(), software.toString());
    assertTrue(
        software.get(0).contains("--fault kill-leader@5s")
            && software.get(0).contains("--keys software has no leader")
            && software.get(0).contains("serve openbao --nodes 3"),
        software.toString());
    List<String> one = study.problems(options("openbao:https://127.0.0.1:8200,token-env=T"));
    assertEquals(1, one.size(), one.toString());
    assertTrue(one.get(0).contains("names 1 OpenBao node(s)"), one.toString());
    List<String> far =
        study.problems(
            options(
                "openbao:https://127.0.0.1:8200,https://127.0.0.1:8202,https://bao.example:8200,token-env=T"));
    assertEquals(1, far.size(), far.toString());
    assertTrue(
        far.get(0).contains("https://bao.example:8200 is not on this machine's loopback"),
        far.toString());
    assertTrue(
        new PixStudy(PixStudy.Fault.parse("kill-node@5s")).problems(options("software")).isEmpty(),
        "kill-node takes any --keys");
  }

  private StudyOptions options(String keys) {
    return new StudyOptions(true, Duration.ofSeconds(10), keys, dir.resolve("pki"), null);
  }

  @Test
  void killLeader_threeNodeCluster_anotherLeadsSigningGoesOnAndTheNodeComesBack() throws Exception {
    TestKeys fixture = TestKeys.in(dir);
    // the killed node stays down 12 s: longer than an election takes on a loaded machine, so that
    // another node must lead (back after 4 s, a CI run saw the killed node return before any led)
    OpenBaoServer bao =
        BaoFixture.start(dir.resolve("bao"), 3, fixture.pki, Duration.ofSeconds(12));
    try {
      int leaderBefore = bao.leader();
      assertTrue(leaderBefore >= 0, "a node leads before the run");
      long pidBefore = bao.pid(leaderBefore);
      String keys =
          "openbao:"
              + String.join(",", bao.urls().stream().map(URI::toString).toList())
              + ",token-file="
              + bao.tokenFile();
      PixStudy pix =
          new PixStudy(
              PixStudy.Fault.parse("kill-leader@3s")
                  .lasting(Duration.ofSeconds(12), Duration.ofSeconds(6)));
      List<String> log = Collections.synchronizedList(new ArrayList<>());
      Path out = dir.resolve("pix.json");
      RunResult result =
          fixture
              .studyRunner(out, log)
              .run(
                  new StepsOnly(pix, s -> s.label().equals(PixStudy.FAULT_LEADER)),
                  new StudyOptions(true, Duration.ofSeconds(10), keys, dir.resolve("pki"), null),
                  fixture.environment(
                      "pkibench study pix --keys openbao:… --fault kill-leader@3s"));
      String logText = String.join("\n", log);
      assertEquals(RunStatus.COMPLETE, result.status(), logText);

      // the study killed the leader's process: serve openbao (here its supervisor) started a new
      // one
      assertTrue(
          ProcessHandle.of(pidBefore).map(p -> !p.isAlive()).orElse(true),
          "the leader's bao (pid " + pidBefore + ") was killed: " + logText);
      assertNotEquals(pidBefore, bao.pid(leaderBefore), "node started again: " + logText);

      List<String> notes = result.study().notes();
      String killLine =
          notes.stream().filter(n -> n.contains("led and was SIGKILLed")).findFirst().orElse("");
      assertTrue(
          killLine.contains(
              "OpenBao node "
                  + (leaderBefore + 1)
                  + " of 3 ("
                  + bao.urls().get(leaderBefore)
                  + ", pid "
                  + pidBefore
                  + ")"),
          notes + "\n" + logText);
      assertTrue(killLine.contains(" led after, "), "another node led: " + killLine);
      String after = killLine.substring(killLine.indexOf("; node ") + "; node ".length());
      assertNotEquals(
          leaderBefore + 1,
          Integer.parseInt(after.substring(0, after.indexOf(' '))),
          "the node that led after is another: " + killLine);
      assertTrue(
          killLine.contains("the killed node answered again (started by serve openbao)"),
          killLine + "\n" + logText);

      WorkloadResult fault =
          StudyTables.rows(result).stream()
              .filter(r -> r.label().equals(PixStudy.FAULT_LEADER))
              .findFirst()
              .orElseThrow()
              .measured();
      var seconds = fault.levels().get(0).iterations().stream().filter(i -> !i.warmup()).toList();
      assertEquals(
          21, seconds.size(), "21 one-second iterations: the kill at 3 s, 12 s down, 6 s after");
      assertTrue(
          seconds.get(seconds.size() - 1).succeeded() > 0,
          "signatures went on after the kill, through the other nodes: " + seconds);
      FaultTimeline.Summary timeline = FaultTimeline.of(result).get(0);
      assertEquals(fault.levels().get(0).counts().failed(), timeline.failedCalls());
      assertTrue(
          notes.stream()
              .anyMatch(
                  n ->
                      n.startsWith(
                          "fault: "
                              + String.format("%,d", timeline.failedCalls())
                              + " calls failed through the leader kill; ")),
          notes.toString());
      assertTrue(
          notes.stream().anyMatch(n -> n.contains("the OpenBao Raft leader SIGKILLed about 3 s")),
          notes.toString());
    } finally {
      bao.close();
    }
  }
}
