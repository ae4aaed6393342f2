package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.measure.CpuAffinity;
import io.pkibench.measure.CpuSet;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.StudyRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code study pix --core-ratio-sweep} through the command line: a split larger than this machine
 * refused up front in one line, with the cores it would need; a single split that fits run, saying
 * one split cannot show a ratio, and this JVM given back its cores.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES) // it starts two key-server JVMs: a hang fails
class CoreRatioSweepCliTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return Main.execute(
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of("PATH", System.getenv("PATH")),
            InstantSource.system(),
            dir,
            false),
        args);
  }

  @Test
  void splitLargerThanThisMachine_oneLineSayingTheCoresNeeded_exit2_nothingRun() throws Exception {
    CpuSet cpus = CpuAffinity.ofThisProcess();
    int n = cpus.size();
    // 1:N needs one core more than this process has, on whatever machine the test runs.
    String sweep = "1:1,1:" + n;
    assertEquals(
        ExitCodes.USAGE,
        run("study", "pix", "--quick", "--core-ratio-sweep", sweep, "--pki", "pki", "-o", "p.json"),
        err.toString());
    List<String> lines = err.toString().lines().toList();
    assertEquals(
        "--core-ratio-sweep "
            + sweep
            + ": this machine cannot test the ratio: it has "
            + n
            + " cores (CPU "
            + cpus
            + ") and split 1:"
            + n
            + " needs "
            + (n + 1)
            + "; run the sweep on a machine with at least "
            + (n + 1)
            + " cores (docs/studies.md, 'The core ratio sweep')",
        lines.get(0),
        err.toString());
    assertEquals(2, lines.size(), "that line and where --help is: " + err);
    assertFalse(Files.exists(dir.resolve("pki")), "refused before the test PKI was made");
    assertFalse(Files.exists(dir.resolve("p.json")), "nothing ran");
  }

  @Test
  void badSplits_eachNamed_exit2() {
    assertEquals(
        ExitCodes.USAGE, run("study", "pix", "--quick", "--core-ratio-sweep", "1:0,2x2,1:0"));
    String e = err.toString();
    assertTrue(e.contains("split 1:0 gives a side no core"), e);
    assertTrue(e.contains("'2x2' is not CLIENT:SERVICE cores"), e);
    assertEquals(
        ExitCodes.USAGE,
        run("study", "pix", "--quick", "--core-ratio-sweep", "1:1", "--fault", "kill-node@5s"));
    assertTrue(err.toString().contains("--core-ratio-sweep with --fault"), err.toString());
  }

  @Test
  void oneToOne_runsTheSignatureThere_saysOneSplitCannotShowARatio_andGivesTheCoresBack()
      throws Exception {
    CpuSet before = CpuAffinity.ofThisProcess();
    assertTrue(before.size() >= 2, "the sweep's 1:1 needs 2 cores; this process has CPU " + before);
    assertEquals(
        0,
        run(
            "study",
            "pix",
            "--smoke",
            "--core-ratio-sweep",
            "1:1",
            "--pki",
            "pki",
            "--out",
            "pix.json"),
        err + "\n" + out);
    RunResult result = RunResultJson.read(dir.resolve("pix.json"));
    assertEquals(RunStatus.COMPLETE, result.status());
    List<StudyRecord.StepRecord> steps = result.study().steps();
    assertEquals(1, steps.size(), "only the sweep's step: " + steps);
    StudyRecord.StepRecord step = steps.get(0);
    assertEquals("SPI signature, client:service cores 1:1", step.label());
    int first = before.cpus().get(0);
    int second = before.cpus().get(1);
    assertEquals(
        List.of(
            "before the step: restart the key servers on CPU "
                + first
                + " and move the client to CPU "
                + second),
        step.hooks());
    LevelResult level = result.workloads().get(step.measuredWorkload()).levels().get(0);
    assertTrue(level.counts().succeeded() > 0, level.counts().toString());
    long cpuNanos = 0, wallNanos = 0;
    for (var i : level.iterations()) {
      if (i.warmup()) continue;
      cpuNanos += i.cpuNanos();
      wallNanos += i.durationNanos();
    }
    assertEquals(
        (double) cpuNanos / wallNanos,
        level.cpu().utilisation(),
        1e-9,
        "the nodes' utilisation against their one core, not the machine's " + before.size());
    assertTrue(
        result.study().services().stream().allMatch(s -> s.pids().size() == 2),
        "each node started, then restarted on the split's core: " + result.study().services());
    assertTrue(
        out.toString().contains("core ratio (SPI signature): one split (1:1) cannot show a ratio"),
        out.toString());
    assertEquals(before, CpuAffinity.ofThisProcess(), "this JVM back on the cores it had");
  }
}
