package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.LevelResult;
import io.pkibench.results.MemberLevel;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.Timeline;
import io.pkibench.session.TimelineJournal;
import io.pkibench.testing.Await;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A staged run stopped part way, in a JVM of its own: SIGTERM saves the staged level with the
 * seconds measured, marked interrupted; SIGKILL leaves them in the journal beside the result, which
 * every reader of the file folds back in.
 */
@Timeout(180)
class StagedRunStoppedTest {
  @TempDir Path dir;

  /**
   * A mix ramping to 2 workers in 1 s, then held 60 s, stopped long before its end; started, it is
   * waited on until 3 seconds are journalled.
   */
  private Process startStaged(Path result) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                "io.pkibench.cli.Main",
                "run",
                "--mix",
                "noop=1,digest=1",
                "--stages",
                "1s:2,60s:2",
                "--quiet",
                "--out",
                result.toString()));
    Process child =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("child.log").toFile())
            .start();
    Path journal = TimelineJournal.fileFor(result);
    Await.until(
        Duration.ofSeconds(90),
        "three measured seconds in " + journal,
        () -> {
          assertTrue(
              child.isAlive(), "child ended early: " + Files.readString(dir.resolve("child.log")));
          return Files.exists(journal)
              && Files.readAllLines(journal).size() >= 4; // the header and three seconds
        });
    return child;
  }

  /**
   * The level holds the seconds measured, and its counts are theirs; each member's too. {@code
   * latencySlack}, a share of the last second's successes: a second's counts and its histogram are
   * read a moment apart while the workers run; a run that stops at a gate lines them up again, a
   * killed one keeps the operations that ended between the two reads of its last second (a fraction
   * of a millisecond's quiet; 8,222 noops, some 4 ms, once on a loaded CI machine).
   */
  private static void assertSecondsKept(LevelResult level, double latencySlack) {
    Timeline t = level.timeline();
    assertNotNull(t, "the staged level is kept with its time series");
    assertNotNull(t.interruptedAtMillis(), "marked interrupted");
    assertTrue(t.seconds().size() >= 3, "the seconds measured: " + t.seconds().size());
    assertTrue(
        t.interruptedAtMillis() >= 2500 && t.interruptedAtMillis() < 61_000,
        "stopped part way: " + t.interruptedAtMillis());
    assertEquals(t.seconds().get(t.seconds().size() - 1).toMillis(), t.interruptedAtMillis());
    long succeeded = t.seconds().stream().mapToLong(Timeline.Second::succeeded).sum();
    assertTrue(succeeded > 0, "operations ran in the seconds kept");
    assertEquals(succeeded, level.counts().succeeded(), "the level's successes are its seconds'");
    long lastSecond = t.seconds().get(t.seconds().size() - 1).succeeded();
    assertEquals(
        succeeded,
        level.mergedHistogram().getTotalCount(),
        latencySlack * lastSecond,
        "every latency of the seconds is in the level's histogram (last second: "
            + lastSecond
            + ")");
    assertEquals(
        List.of("noop", "digest"), level.members().stream().map(MemberLevel::label).toList());
    for (int m = 0; m < 2; m++) {
      int i = m;
      long memberSucceeded =
          t.seconds().stream().mapToLong(s -> s.members().get(i).succeeded()).sum();
      assertTrue(memberSucceeded > 0, "each member drawn");
      assertEquals(
          memberSucceeded,
          level.members().get(m).counts().succeeded(),
          level.members().get(m).label() + "'s seconds are its count");
    }
  }

  @Test
  void run_stagedStoppedBySigterm_savesTheSecondsMeasuredMarkedInterrupted() throws Exception {
    Path result = dir.resolve("stopped.json");
    Process child = startStaged(result);
    try {
      child.destroy(); // SIGTERM: the shutdown hook stops the run and waits for it to save
      assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the run stops by itself");
    } finally {
      child.destroyForcibly();
    }
    RunResult r = RunResultJson.read(result);
    assertEquals(RunStatus.INTERRUPTED, r.status(), Files.readString(dir.resolve("child.log")));
    assertEquals(1, r.workloads().get(0).levels().size());
    assertSecondsKept(r.workloads().get(0).levels().get(0), 0);
    assertFalse(
        Files.exists(TimelineJournal.fileFor(result)),
        "the level is in the result: the journal is gone");

    StringWriter out = new StringWriter(), err = new StringWriter();
    assertEquals(
        0,
        InThisJvm.run(dir, out, err, "report", "stopped.json", "--html", "stopped.html"),
        err.toString());
    assertTrue(
        out.toString().contains("INTERRUPTED at "),
        "the stage table says where the run stopped: " + out);
  }

  @Test
  void run_stagedKilledBySigkill_itsSecondsAreReadBackFromTheJournal() throws Exception {
    Path result = dir.resolve("killed.json");
    Process child = startStaged(result);
    child.destroyForcibly(); // SIGKILL: nothing in the JVM runs
    assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    RunResult onDisk = RunResultJson.read(result);
    assertEquals(RunStatus.RUNNING, onDisk.status(), "the run never got to say it stopped");
    assertEquals(List.of(), onDisk.workloads().get(0).levels(), "the staged level was not saved");

    StringWriter out = new StringWriter(), err = new StringWriter();
    assertEquals(
        0,
        InThisJvm.run(dir, out, err, "report", "killed.json", "--format", "json"),
        err.toString());
    assertTrue(
        err.toString()
            .contains(
                "killed.json: the run was stopped during a staged level; the seconds it measured are read from killed.timeline.jsonl"),
        err.toString());
    Files.writeString(dir.resolve("read.json"), out.toString());
    RunResult read = RunResultJson.read(dir.resolve("read.json"));
    assertEquals(RunStatus.INTERRUPTED, read.status());
    assertSecondsKept(read.workloads().get(0).levels().get(0), 0.05); // 50 ms of the last second

    out.getBuffer().setLength(0);
    assertEquals(
        0,
        InThisJvm.run(dir, out, err, "report", "killed.json", "--html", "killed.html"),
        err.toString());
    assertTrue(
        out.toString().contains("INTERRUPTED at "),
        "the stage table says where the run stopped: " + out);
    assertTrue(
        Files.readString(dir.resolve("killed.html")).contains("mix: latency per second ("),
        "the report draws the seconds");
  }
}
