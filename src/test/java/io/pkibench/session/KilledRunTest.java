package io.pkibench.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.testing.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A run killed with SIGKILL in its second level keeps its first level, readable, with its interval
 * log.
 */
class KilledRunTest {

  @Test
  void sigkillAfterFirstLevel_resultKeepsThatLevel(@TempDir Path dir) throws Exception {
    Path result = dir.resolve("killed.json");
    Process child =
        pkibench(
            dir,
            List.of(),
            "run",
            "noop",
            "--concurrency",
            "1,2",
            "--warmup",
            "0x1s",
            "--measure",
            "2x1s",
            "--quiet",
            "--out",
            result.toString());
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (levels(result) < 1) {
        assertTrue(
            child.isAlive(), "child ended early: " + Files.readString(dir.resolve("child.log")));
        assertTrue(System.nanoTime() < deadline, "first level never saved");
        Thread.sleep(20);
      }
    } finally {
      child.destroyForcibly(); // SIGKILL: no shutdown hook runs
      child.waitFor(10, TimeUnit.SECONDS);
    }
    RunResult r = RunResultJson.read(result);
    assertEquals(RunStatus.RUNNING, r.status(), "the run never got to say it finished");
    List<LevelResult> levels = r.workloads().get(0).levels();
    assertEquals(1, levels.size());
    LevelResult first = levels.get(0);
    assertEquals(1, first.concurrency());
    assertEquals(first.counts().started(), first.counts().succeeded() + first.counts().failed());
    assertEquals(first.counts().succeeded(), first.mergedHistogram().getTotalCount());

    HistogramLogReader reader = new HistogramLogReader(ResultFile.hlogFileFor(result).toFile());
    long logged = 0;
    for (var h = reader.nextIntervalHistogram(); h != null; h = reader.nextIntervalHistogram()) {
      if (h.getTag().startsWith("noop/c1/"))
        logged += ((org.HdrHistogram.Histogram) h).getTotalCount();
    }
    assertEquals(first.counts().succeeded(), logged, "the .hlog holds level 1's intervals too");
  }

  private static int levels(Path result) {
    try {
      if (!Files.exists(result)) return 0;
      RunResult r = RunResultJson.read(result);
      return r.workloads().isEmpty() ? 0 : r.workloads().get(0).levels().size();
    } catch (Exception e) {
      throw new AssertionError("a reader saw a broken result file: " + e.getMessage(), e);
    }
  }

  /**
   * SIGTERM (a service manager) and SIGINT (Ctrl-C): the run stops after the operations in flight,
   * says where its result is, prints its summary (the table, then where it is saved: the JVM waits
   * for them), and the file says interrupted.
   */
  @ParameterizedTest
  @ValueSource(strings = {"TERM", "INT"})
  void signal_savesSaysSoAndPrintsItsSummary(String signal, @TempDir Path dir) throws Exception {
    Path result = dir.resolve("stopped.json");
    Process child =
        pkibench(
            dir,
            List.of(),
            "run",
            "noop",
            "--concurrency",
            "1,2",
            "--warmup",
            "0x1s",
            "--measure",
            "30x1s",
            "--quiet",
            "--out",
            result.toString());
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!Files.exists(result)
          || !Files.readString(dir.resolve("child.log")).contains("result file")) {
        assertTrue(
            child.isAlive() && System.nanoTime() < deadline,
            "child never started: " + Files.readString(dir.resolve("child.log")));
        Thread.sleep(20);
      }
      // SIGTERM while operations run (not while the workload is still being set up, which the 10 s
      // grace may not
      // cover on a loaded machine): the interval log's first measured interval says they do
      Path hlog = dir.resolve("stopped.hlog");
      Await.until(
          java.time.Duration.ofSeconds(60),
          "the run's first interval in " + hlog,
          () ->
              Files.exists(hlog)
                  && Files.readAllLines(hlog).stream().anyMatch(line -> line.startsWith("Tag=")));
      // the shutdown hook stops the run
      Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(child.pid())).start();
      assertEquals(0, kill.waitFor(), "kill -" + signal);
      assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the run stops by itself");
    } finally {
      child.destroyForcibly();
    }
    String said = Files.readString(dir.resolve("child.log"));
    assertTrue(said.contains("stopped: every finished level is saved in " + result), said);
    assertTrue(
        said.contains("saved " + result + "; 'pkibench report " + result + "' prints it again"),
        "the summary printed after the signal, to its last line: " + said);
    assertTrue(said.contains("ops/s"), "the table of what was measured: " + said);
    assertEquals(RunStatus.INTERRUPTED, RunResultJson.read(result).status());
  }

  /**
   * Ctrl-C while a finished level is being saved (the lost level: its iterations had all
   * printed, the file said {@code levels: []}): the save finishes before the JVM exits, so the file
   * holds every level whose measured iterations printed, and the summary prints. The run pauses in
   * the save of its first level (a test-only property) until the signal has been sent.
   */
  @Test
  void sigintDuringTheSave_keepsEveryLevelWhoseIterationsPrinted(@TempDir Path dir)
      throws Exception {
    Path result = dir.resolve("saving.json");
    Path inSave = dir.resolve("in-save");
    Process child =
        pkibench(
            dir,
            List.of("-Dpkibench.test.pauseInLevelSave=" + inSave),
            "run",
            "noop",
            "--concurrency",
            "1,2",
            "--warmup",
            "0x1s",
            "--measure",
            "2x1s",
            "--out",
            result.toString());
    try {
      Await.until(
          java.time.Duration.ofSeconds(60),
          "the run pausing in the save of its first level",
          () -> Files.exists(inSave) || !child.isAlive());
      assertTrue(
          child.isAlive(), "child ended early: " + Files.readString(dir.resolve("child.log")));
      Process kill = new ProcessBuilder("kill", "-INT", Long.toString(child.pid())).start();
      assertEquals(0, kill.waitFor(), "kill -INT");
      // the signal's hook is running while the save is held (a JVM that did not wait for the save
      // is gone by now); then the save goes on
      child.waitFor(2, TimeUnit.SECONDS);
      Files.deleteIfExists(inSave);
      assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the run stops by itself");
    } finally {
      child.destroyForcibly();
    }
    String said = Files.readString(dir.resolve("child.log"));
    List<Integer> printed = new java.util.ArrayList<>();
    for (int c : new int[] {1, 2}) {
      if (said.contains("noop c=" + c + " series 1 measure 2:")) printed.add(c);
    }
    assertEquals(List.of(1), printed, "level 1's iterations printed before the signal: " + said);
    RunResult r = RunResultJson.read(result);
    assertEquals(
        printed,
        r.workloads().get(0).levels().stream().map(LevelResult::concurrency).toList(),
        "every level whose iterations printed is in the file: " + said);
    assertEquals(RunStatus.INTERRUPTED, r.status(), said);
    assertTrue(
        said.contains("saved " + result + "; 'pkibench report " + result + "' prints it again"),
        "the summary printed after the signal, to its last line: " + said);
    assertTrue(said.contains("ops/s"), "the table of what was measured: " + said);
  }

  /**
   * A JVM too small for its workers: the run says it ran out of memory, at which level and what to
   * do, records it in the result (status failed, no longer "running"), prints no stack trace, and
   * exits 1.
   */
  @Test
  void outOfMemory_recordedInTheResultBeforeExiting(@TempDir Path dir) throws Exception {
    Path result = dir.resolve("oom.json");
    Process child =
        pkibench(
            dir,
            List.of("-Xmx48m"),
            "run",
            "noop",
            "--concurrency",
            "65000",
            "--virtual-threads",
            "--warmup",
            "0x1s",
            "--measure",
            "1x1s",
            "--quiet",
            "--out",
            result.toString());
    try {
      assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the run ends by itself");
    } finally {
      child.destroyForcibly();
    }
    String said = Files.readString(dir.resolve("child.log"));
    assertEquals(1, child.exitValue(), said);
    assertTrue(said.contains("noop: stopped: the JVM ran out of memory at 65000 workers"), said);
    assertTrue(said.contains("PKIBENCH_JAVA_OPTS=-Xmx"), said);
    assertTrue(!said.contains("\tat "), "no stack trace: " + said);
    RunResult r = RunResultJson.read(result);
    assertEquals(RunStatus.FAILED, r.status());
    assertTrue(
        r.workloads().get(0).failure().contains("OutOfMemoryError"),
        r.workloads().get(0).failure());
  }

  /**
   * pkibench in a JVM of its own with {@code jvmOptions}, its output (both streams) into {@code
   * dir/child.log}.
   */
  private static Process pkibench(Path dir, List<String> jvmOptions, String... args)
      throws java.io.IOException {
    // SIGINT as a terminal's shell leaves it for a command it runs: this JVM may have been started
    // with SIGINT ignored (a suite started in the background, `nohup … &`), which a child inherits
    // and the JVM then never installs its Ctrl-C hook for (seen: every SIGINT case failing, the
    // run going on to the end)
    List<String> command = new java.util.ArrayList<>(List.of("env", "--default-signal=INT"));
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.pkibench.cli.Main"));
    command.addAll(List.of(args));
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("child.log").toFile())
        .start();
  }
}
