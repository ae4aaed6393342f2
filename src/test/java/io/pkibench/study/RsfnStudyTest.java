package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.report.StudyTables;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.WorkloadResult;
import io.pkibench.testing.TestKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rsfn study, quick and short: two key-server JVMs restarted before every level, packing and
 * unpacking on the nodes.
 */
@org.junit.jupiter.api.Timeout(
    value = 10,
    unit = TimeUnit.MINUTES) // a study talks to its service JVMs: a hang fails, said as one
class RsfnStudyTest {
  /**
   * Each quick iteration cut to half a second, as {@code study --smoke}: the suite proves the study
   * runs and checks, not its figures.
   */
  static final Duration SMOKE = Duration.ofMillis(500);

  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  @Test
  void badOptions_namedBeforeAnythingStarts() {
    var options =
        new StudyOptions(
            true, Duration.ofMillis(500), "remote:127.0.0.1:9443", dir.resolve("pki"), null);
    List<String> problems = new RsfnStudy().problems(options);
    assertEquals(2, problems.size(), problems.toString());
    assertTrue(
        problems.get(0).contains("--duration") && problems.get(1).contains("--keys remote:"),
        problems.toString());
  }

  /**
   * One quick study, with --save-samples, serves both tests below (a study is a minute of the
   * suite). Run on first use.
   */
  private static RunResult shared;

  private static RsfnStudy sharedStudy;

  private static synchronized RunResult quickStudy() throws Exception {
    if (shared != null) return shared;
    Path out = dir.resolve("rsfn.json");
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    StudyRunner runner = fixture.studyRunner(out, log);
    var options =
        new StudyOptions(true, Duration.ofSeconds(10), "software", dir.resolve("pki"), null)
            .withQuickIterationsOfAtMost(SMOKE);
    sharedStudy = new RsfnStudy(List.of(1, 32)).savingSamplesIn(dir.resolve("samples"));
    RunResult result =
        runner.run(sharedStudy, options, fixture.environment("pkibench study rsfn --quick"));
    assertEquals(RunStatus.COMPLETE, result.status(), String.join("\n", log));
    shared = RunResultJson.read(out);
    return shared;
  }

  @Test
  void quickStudy_eachLevelAfterARestart_bothNodesShare_clientAndNodeCpu() throws Exception {
    RunResult saved = quickStudy();
    assertEquals(2, saved.study().services().size(), "two key-server JVMs");
    for (var service : saved.study().services()) {
      assertEquals(
          5,
          service.pids().size(),
          service.name()
              + ": started, then restarted before each of 2 levels of 2 steps: "
              + service.pids());
    }
    for (String step : List.of(RsfnStudy.PACK, RsfnStudy.UNPACK)) {
      var row =
          StudyTables.rows(saved).stream()
              .filter(r -> r.label().equals(step))
              .findFirst()
              .orElseThrow();
      WorkloadResult w = row.measured();
      assertEquals(
          List.of(1, 32), w.levels().stream().map(l -> l.concurrency()).toList(), step + " swept");
      assertEquals("remote", w.params().get("mode"));
      for (var level : w.levels()) {
        assertEquals(
            0,
            level.counts().failed(),
            step + " at " + level.concurrency() + ": " + level.errors());
        assertTrue(level.counts().succeeded() > 0);
        long warm = level.iterations().stream().filter(i -> i.warmup()).count();
        assertTrue(
            warm >= 3 && warm <= StudyOptions.QUICK_WARMUP_CAP,
            "after each restart, warm-up runs until the nodes' cost per operation holds (three to judge), at most the cap: "
                + warm);
        assertEquals(
            3, level.iterations().stream().filter(i -> !i.warmup()).count(), "quick keeps three");
        assertTrue(
            level.cpu().opsPerCpuSecond() != null && level.cpu().meter().contains("+"),
            "both nodes' CPU: " + level.cpu());
      }
      assertEquals(
          2, w.keyNodes().size(), step + ": both key-server nodes recorded: " + w.keyNodes());
      long total = w.keyNodes().stream().mapToLong(WorkloadResult.KeyNode::calls).sum();
      for (var node : w.keyNodes()) {
        double share = (double) node.calls() / total;
        assertTrue(
            share > 0.3 && share < 0.7,
            step + ": 50/50 weights give near-equal shares: " + w.keyNodes());
      }
      var client =
          StudyTables.rows(saved).stream()
              .filter(r -> r.label().equals(step + RsfnStudy.CLIENT_CPU))
              .findFirst()
              .orElseThrow();
      assertEquals("jvm", client.measured().cpuMeter());
      assertEquals(
          32, client.level().orElseThrow().concurrency(), "the sweep's own level nearest 64");
    }
    String table = StudyTables.terminal(saved);
    assertTrue(
        table.contains(RsfnStudy.PACK + " at 32 threads: ")
            && table.contains("client : server = 1 : "),
        table);
    assertTrue(
        table.contains("swept over [1, 32] threads; the row is the peak")
            && table.contains("50 ms"),
        table);
    assertTrue(table.contains("the original (Prodist STS RSFN cluster 7.0.3"), table);
  }

  /**
   * --save-samples: the encrypted envelope is the shared run's own first checked one, packed by the
   * nodes, beside the payload it carries; both envelopes checked by openssl through verify.sh; a
   * tamper fails. A study that measured no packaging hands out no packed envelope.
   */
  @Test
  void samples_theRunsOwnEnvelope_checkedByOpenssl_andATamperFails() throws Exception {
    quickStudy();
    Path samples = dir.resolve("samples");
    var list = sharedStudy.samples(samples, fixture.pki, fixture.keys, InstantSource.system());
    SampleScripts.write(samples, "rsfn", list);
    assertEquals(
        1024, Files.size(samples.resolve("rsfn-pack.payload")), "the payload the envelope carries");
    assertTrue(Files.notExists(samples.resolve(".answers")), "the kept answers moved into place");
    Path none = dir.resolve("samples-of-nothing");
    assertEquals(
        List.of("rsfn-clear.rsfn"),
        new RsfnStudy()
                .savingSamplesIn(none)
                .samples(none, fixture.pki, fixture.keys, InstantSource.system())
                .stream()
                .map(Sample::file)
                .toList(),
        "no packaging measured, no packed envelope handed out");
    Process p =
        new ProcessBuilder("bash", samples.resolve("verify.sh").toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.waitFor(), out);
    assertTrue(
        out.contains("OK   rsfn-pack.rsfn")
            && out.contains("OK   rsfn-clear.rsfn")
            && out.contains("2 verified, 0 failed"),
        out);
    Path clear = samples.resolve("rsfn-clear.rsfn");
    byte[] bytes = Files.readAllBytes(clear);
    bytes[bytes.length - 3] ^= 0x20;
    Files.write(clear, bytes);
    p =
        new ProcessBuilder("bash", samples.resolve("verify.sh").toString())
            .redirectErrorStream(true)
            .start();
    out = new String(p.getInputStream().readAllBytes());
    assertEquals(1, p.waitFor(), out);
    assertTrue(
        out.contains("FAIL rsfn-clear.rsfn")
            && out.contains("C15 does not verify")
            && out.contains("OK   rsfn-pack.rsfn"),
        out);
  }
}
