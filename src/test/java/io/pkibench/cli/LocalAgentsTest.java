package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.results.Counts;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.server.tsa.TsaServer;
import io.pkibench.testing.Await;
import io.pkibench.testing.TestKeys;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --agents 2 --local} against one loopback TSA: two agent JVMs, each its share, merged;
 * one killed, and what the merge makes of it. Seconds of measuring; most of the time is the agents'
 * JVMs starting.
 */
@org.junit.jupiter.api.Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class LocalAgentsTest {
  @TempDir static Path shared;
  @TempDir Path dir;
  static TsaServer tsa;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  @BeforeAll
  static void start() throws Exception {
    tsa =
        new TsaServer(
            new TimeStampAuthority(TestKeys.in(shared).keys.key("tsa"), InstantSource.system()),
            "127.0.0.1",
            0);
    tsa.start();
  }

  @AfterAll
  static void stop() {
    tsa.close();
  }

  int run(String... args) {
    return InThisJvm.run(dir, out, err, args);
  }

  @Test
  void run_twoLocalAgents_mergedCountsAndHistogramsAreTheAgentsSums() throws Exception {
    assertEquals(
        0,
        run(
            "run",
            "tsp",
            "--target",
            tsa.url(),
            "--concurrency",
            "3",
            "--warmup",
            "0x1s",
            "--measure",
            "2x1s",
            "--agents",
            "2",
            "--local",
            "-o",
            "all.json",
            "--quiet",
            "--threshold",
            "p99<10s"),
        err + "\n" + out);
    RunResult merged = RunResultJson.read(dir.resolve("all.json"));
    RunResult one = RunResultJson.read(dir.resolve("all.agent1.json"));
    RunResult two = RunResultJson.read(dir.resolve("all.agent2.json"));
    LevelResult a = one.workloads().get(0).levels().get(0);
    LevelResult b = two.workloads().get(0).levels().get(0);
    LevelResult m = merged.workloads().get(0).levels().get(0);
    assertEquals(
        List.of(2, 1, 3),
        List.of(a.concurrency(), b.concurrency(), m.concurrency()),
        "3 workers split 2 + 1");
    assertTrue(
        a.counts().succeeded() > 0 && b.counts().succeeded() > 0, a.counts() + " " + b.counts());
    assertEquals(
        new Counts(
            a.counts().started() + b.counts().started(),
            a.counts().succeeded() + b.counts().succeeded(),
            a.counts().failed() + b.counts().failed()),
        m.counts());
    Histogram sum = a.mergedHistogram();
    sum.add(b.mergedHistogram());
    assertEquals(sum, m.mergedHistogram(), "the merged histogram is the agents' summed");
    assertEquals(2, merged.merge().sections().size());
    // The agents leave the threshold to the merged result, where it reads the summed histogram.
    assertEquals(1, merged.thresholds().size(), String.valueOf(merged.thresholds()));
    assertEquals(m.latencyNanos().p99(), merged.thresholds().get(0).observed(), 0.0);
    assertNull(one.thresholds(), "an agent's share is not judged");
    // Both asked the TSA's HTTP Date, on the same machine: each offset measured, and small.
    for (RunResult agent : List.of(one, two)) {
      assertNotNull(agent.agent().clock().offsetMillis(), agent.agent().clock().toString());
      assertTrue(
          Math.abs(agent.agent().clock().offsetMillis())
              <= 1000 + agent.agent().clock().uncertaintyMillis(),
          agent.agent().clock().toString());
      assertEquals(one.agent().startAt(), agent.agent().startAt(), "one start time for both");
    }
  }

  /**
   * Agent 2 killed once set up: the merge without --allow-missing fails naming segment 2/2; with
   * it, the result says so.
   */
  @Test
  void run_agentKilled_mergeNamesTheMissingSegmentOrSaysTheShareIsAbsent() throws Exception {
    CompletableFuture<Integer> running =
        CompletableFuture.supplyAsync(
            () ->
                run(
                    "run",
                    "tsp",
                    "--target",
                    tsa.url(),
                    "--concurrency",
                    "2",
                    "--warmup",
                    "0x1s",
                    "--measure",
                    "2x1s",
                    "--agents",
                    "2",
                    "--local",
                    "--allow-missing",
                    "-o",
                    "all.json",
                    "--quiet"));
    Path ready = StartSignal.readyFile(dir.resolve("all.start"), 2);
    Await.until(
        Duration.ofMinutes(2), "agent 2 ready", () -> Files.exists(ready) || running.isDone());
    var pid = java.util.regex.Pattern.compile("agent 2/2: pid (\\d+)").matcher(err.toString());
    assertTrue(pid.find(), err.toString());
    ProcessHandle agent2 = ProcessHandle.of(Long.parseLong(pid.group(1))).orElseThrow();
    assertTrue(
        agent2.parent().map(p -> p.pid() == ProcessHandle.current().pid()).orElse(false),
        "a child of this JVM's run");
    agent2.destroyForcibly();
    assertEquals(ExitCodes.RUN_FAILED, running.get(), err + "\n" + out);
    RunResult partial = RunResultJson.read(dir.resolve("all.json"));
    assertEquals(1, partial.merge().absent().size(), partial.merge().absent().toString());
    assertTrue(
        partial.merge().absent().get(0).startsWith("segment 2/2"),
        partial.merge().absent().toString());
    assertTrue(
        partial.workloads().get(0).notes().get(0).startsWith("merged from "),
        partial.workloads().get(0).notes().toString());
    assertEquals(
        1, partial.workloads().get(0).levels().get(0).concurrency(), "agent 1's share only");
    err.getBuffer().setLength(0);
    List<String> files =
        Files.exists(dir.resolve("all.agent2.json"))
            ? List.of("all.agent1.json", "all.agent2.json")
            : List.of("all.agent1.json");
    String[] args = new String[files.size() + 3];
    args[0] = "merge";
    for (int i = 0; i < files.size(); i++) args[i + 1] = files.get(i);
    args[files.size() + 1] = "-o";
    args[files.size() + 2] = "again.json";
    assertEquals(ExitCodes.USAGE, run(args));
    assertTrue(err.toString().contains("cannot merge: missing: segment 2/2"), err.toString());
    assertTrue(!Files.exists(dir.resolve("again.json")), "refused, nothing written");
  }
}
