package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent flags of 'run', refused up front, every problem at once, each naming the flag and the
 * fix; nothing run.
 */
class SegmentFlagsTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();
  static final Instant NOW = Instant.parse("2026-12-01T09:00:00Z");

  int run(String... args) {
    return Main.execute(
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            InstantSource.fixed(NOW),
            dir,
            false),
        args);
  }

  @Test
  void run_levelSmallerThanAgents_refusedNamingTheLevelAndTheCount() {
    assertEquals(
        ExitCodes.USAGE,
        run("run", "noop", "--concurrency", "2,8", "--segment", "1/4", "-o", "seg.json"));
    assertTrue(
        err.toString()
            .contains("--segment 1/4: the level of 2 workers cannot be split over 4 agents"),
        err.toString());
    assertFalse(Files.exists(dir.resolve("seg.json")), "nothing run");
  }

  @Test
  void run_badAgentFlags_everyProblemAtOnce() {
    assertEquals(
        ExitCodes.USAGE,
        run(
            "run",
            "noop",
            "--concurrency",
            "4",
            "--segment",
            "5/4",
            "--start-at",
            "2026-11-30T10:00:00Z",
            "--start-in",
            "10s",
            "--warmup",
            "2..10x1s"));
    String said = err.toString();
    for (String problem :
        List.of(
            "--segment: '5/4': the segment is I/N with 1 <= I <= N",
            "--start-at and --start-in: give one of them",
            "--start-at 2026-11-30T10:00:00Z: that time has passed",
            "--warmup 2..10x1s: a warm-up until steady")) {
      assertTrue(said.contains(problem), problem + " in:\n" + said);
    }
  }

  @Test
  void run_agentsWithoutLocalOrWithASegment_refused() {
    assertEquals(
        ExitCodes.USAGE,
        run("run", "noop", "--concurrency", "4", "--agents", "2", "--segment", "1/2", "--fork"));
    String said = err.toString();
    assertTrue(
        said.contains(
            "--agents 2: only --local agents are started by pkibench; on a cluster, run one --segment per pod (deploy/k8s)"),
        said);
    assertTrue(
        said.contains("--agents and --segment: --agents gives each agent its segment"), said);
    assertTrue(said.contains("--fork with a shared start"), said);
    err.getBuffer().setLength(0);
    assertEquals(
        ExitCodes.USAGE, run("run", "noop", "--concurrency", "2", "--agents", "3", "--local"));
    assertTrue(
        err.toString().contains("--agents 3: the level of 2 workers cannot be split over 3 agents"),
        err.toString());
  }

  @Test
  void run_startAtNotATime_saysHowToWriteIt() {
    assertEquals(
        ExitCodes.USAGE, run("run", "noop", "--concurrency", "4", "--start-at", "tomorrow"));
    assertTrue(
        err.toString()
            .contains("--start-at tomorrow: not a UTC time; write it like 2026-12-01T10:00:00Z"),
        err.toString());
  }
}
