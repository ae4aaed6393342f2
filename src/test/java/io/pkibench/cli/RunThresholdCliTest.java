package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.analysis.Analysis;
import io.pkibench.report.HtmlReport;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.ThresholdVerdict;
import io.pkibench.results.Timeline;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --threshold} and a scenario's {@code thresholds}: real short runs judged on their own
 * figures, k6-style.
 */
@Timeout(120)
class RunThresholdCliTest {
  /**
   * No engine on any machine does this many empty operations a second, so a limit this high fails.
   */
  private static final String UNREACHABLE_RATE = "throughput>=1000000000/s";

  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return InThisJvm.run(dir, out, err, args);
  }

  @Test
  void run_thresholdsThatHold_exit0WithEveryLevelJudgedAndRecorded() throws Exception {
    assertEquals(
        0,
        run(
            "run",
            "noop",
            "--concurrency",
            "1,2",
            "--warmup",
            "0x1s",
            "--measure",
            "1x300ms",
            "--quiet",
            "-o",
            "ok.json",
            "--threshold",
            "p99<10s",
            "--threshold",
            "errors<1%,throughput>=1/s"),
        err.toString());
    RunResult r = RunResultJson.read(dir.resolve("ok.json"));
    List<ThresholdVerdict> v = r.thresholds();
    assertEquals(6, v.size(), "three thresholds at each of two levels: " + v);
    assertTrue(v.stream().allMatch(ThresholdVerdict::passed), v.toString());
    LevelResult second = r.workloads().get(0).levels().get(1);
    assertEquals("2 workers", v.get(1).level());
    assertEquals(
        second.latencyNanos().p99(),
        v.get(1).observed(),
        0.0,
        "the level's p99, as its table prints it");
    assertEquals(
        second.throughput().mean(), v.get(5).observed(), 1e-9, "the level's mean throughput");
    assertEquals(0.0, v.get(3).observed(), 0.0, "no operation failed");
    String o = out.toString();
    assertTrue(o.contains("✓ p99<10s ") && o.contains("all 6 checks passed"), o);
  }

  @Test
  void run_thresholdThatFails_exit3WithTheFailureRecordedAndReported() throws Exception {
    assertEquals(
        3,
        run(
            "run",
            "noop",
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x300ms",
            "--quiet",
            "-o",
            "fail.json",
            "--threshold",
            UNREACHABLE_RATE,
            "--threshold",
            "max<10s",
            "--html",
            "fail.html"),
        err.toString());
    RunResult r = RunResultJson.read(dir.resolve("fail.json"));
    ThresholdVerdict rate = r.thresholds().get(0);
    assertFalse(rate.passed(), rate.toString());
    assertEquals(r.workloads().get(0).levels().get(0).throughput().mean(), rate.observed(), 1e-9);
    assertEquals("ops/s", rate.unit());
    assertTrue(
        r.thresholds().get(1).passed(), "one failing does not fail the others: " + r.thresholds());
    assertTrue(
        out.toString().contains("✗ " + UNREACHABLE_RATE + " ")
            && out.toString().contains("1 of 2 checks failed"),
        out.toString());
    String html = Files.readString(dir.resolve("fail.html"));
    assertTrue(
        html.contains("<section id=\"thresholds\">") && html.contains("1 of 2 checks failed"),
        "the report shows the verdicts");
    assertTrue(html.contains(UNREACHABLE_RATE.replace(">", "&gt;")), "escaped in the report");
  }

  @Test
  void run_noThreshold_resultHasNoThresholdsField() throws Exception {
    assertEquals(
        0,
        run(
            "run",
            "noop",
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x200ms",
            "--quiet",
            "-o",
            "none.json"),
        err.toString());
    assertNull(RunResultJson.read(dir.resolve("none.json")).thresholds());
    assertFalse(
        Files.readString(dir.resolve("none.json")).contains("\"thresholds\""),
        "the field is absent, so files without it stay as they were");
    RunResult r = RunResultJson.read(dir.resolve("none.json"));
    assertFalse(
        HtmlReport.render(r, Analysis.of(r, Analysis.Options.DEFAULT))
            .contains("id=\"thresholds\""),
        "no section without a threshold");
    assertFalse(out.toString().contains("thresholds ("), out.toString());
  }

  @Test
  void run_badThresholds_exit2NamingEveryOneBeforeAnythingRuns() {
    assertEquals(
        2,
        run(
            "run",
            "noop",
            "--concurrency",
            "1",
            "-o",
            "bad.json",
            "--threshold",
            "p98<5ms",
            "--threshold",
            "p99<50",
            "--threshold",
            "sgn.p99<5ms",
            "--threshold",
            "errors<-1%",
            "--threshold",
            "stage1.p99<5ms"));
    String e = err.toString();
    for (String said :
        new String[] {
          "--threshold p98<5ms: unknown metric 'p98'",
          "--threshold p99<50: the limit 50 has no unit",
          "--threshold sgn.p99<5ms: 'sgn' is no workload or mix member",
          "--threshold errors<-1%: the limit is negative",
          "--threshold stage1.p99<5ms: stage1: only a run with --stages has stages"
        }) {
      assertTrue(e.contains(said), "says " + said + ":\n" + e);
    }
    assertFalse(Files.exists(dir.resolve("bad.json")), "nothing ran");
  }

  @Test
  void runHelp_threshold_describedWithAWorkingExampleAndItsExitCode() {
    assertEquals(0, run("run", "--help"));
    String help = out.toString();
    assertTrue(
        help.contains("--threshold, --thresholds=EXPR") && help.contains("errors<1%,"), help);
    assertTrue(
        help.contains("pkibench run sign -p alg=ecdsa-p256 --rates 400 --threshold 'p99<5ms'"),
        "the footer's example: " + help);
    assertTrue(help.contains("3 a --threshold failed"), "the exit code: " + help);
  }

  /**
   * The scenario's thresholds, a YAML list under the option's name: members judged on their share,
   * the mix on its total.
   */
  @Test
  void runScenario_thresholdsList_membersAndTotalJudged() throws Exception {
    Files.writeString(
        dir.resolve("gate.yaml"),
        """
        members:
          - {name: noop, weight: 1}
          - {name: digest, weight: 1, params: {alg: sha256}}
        concurrency: 1
        warmup: 0x1s
        measure: 1x300ms
        quiet: true
        thresholds:
          - noop.p99<10s
          - digest.errors<1%
          - throughput>=1000000000/s
        """);
    assertEquals(3, run("run", "--scenario", "gate.yaml", "-o", "gate.json"), err.toString());
    List<ThresholdVerdict> v = RunResultJson.read(dir.resolve("gate.json")).thresholds();
    assertEquals(3, v.size(), v.toString());
    assertEquals("noop", v.get(0).member());
    assertTrue(v.get(0).passed() && v.get(1).passed(), v.toString());
    assertEquals("digest", v.get(1).member());
    assertNull(v.get(2).member(), "unscoped: the mix's total");
    assertFalse(v.get(2).passed());

    out.getBuffer().setLength(0);
    assertEquals(
        0,
        run("run", "--scenario", "gate.yaml", "-o", "gate2.json", "--threshold", "p99<10s"),
        "the command line's list wins: " + err);
    assertEquals(
        List.of("p99<10s"),
        RunResultJson.read(dir.resolve("gate2.json")).thresholds().stream()
            .map(ThresholdVerdict::threshold)
            .toList());
  }

  /**
   * An agent's share is not the run's figure: a segment refuses thresholds, and merge checks them
   * on the merged result.
   */
  @Test
  void mergeThresholds_segmentsRefuseThem_mergeChecksTheWhole() throws Exception {
    String[] common = {
      "run", "noop", "--concurrency", "2", "--warmup", "0x1s", "--measure", "1x300ms", "--quiet"
    };
    assertEquals(
        2, run(with(common, "--segment", "1/2", "-o", "s0.json", "--threshold", "p99<10s")));
    assertTrue(
        err.toString().contains("--threshold and --segment")
            && err.toString().contains("give the thresholds to 'pkibench merge'"),
        err.toString());
    assertEquals(0, run(with(common, "--segment", "1/2", "-o", "s1.json")), err.toString());
    assertEquals(0, run(with(common, "--segment", "2/2", "-o", "s2.json")), err.toString());
    out.getBuffer().setLength(0);
    assertEquals(
        3,
        run(
            "merge",
            "s1.json",
            "s2.json",
            "-o",
            "all.json",
            "--threshold",
            "p99<10s",
            "--threshold",
            UNREACHABLE_RATE),
        err.toString());
    RunResult all = RunResultJson.read(dir.resolve("all.json"));
    LevelResult merged = all.workloads().get(0).levels().get(0);
    assertEquals(2, merged.concurrency(), "both agents' workers");
    List<ThresholdVerdict> v = all.thresholds();
    assertEquals(2, v.size(), v.toString());
    assertTrue(v.get(0).passed(), v.toString());
    assertEquals(
        merged.latencyNanos().p99(), v.get(0).observed(), 0.0, "the merged histogram's p99");
    assertFalse(v.get(1).passed());
    assertEquals(
        merged.throughput().mean(),
        v.get(1).observed(),
        1e-9,
        "the merged throughput, not an agent's");
    assertTrue(out.toString().contains("1 of 2 checks failed"), out.toString());
    assertNull(
        RunResultJson.read(dir.resolve("s1.json")).thresholds(), "a segment's own result has none");
  }

  private static String[] with(String[] common, String... more) {
    String[] all = java.util.Arrays.copyOf(common, common.length + more.length);
    System.arraycopy(more, 0, all, common.length, more.length);
    return all;
  }

  /** A staged run is one level; a stage-scoped threshold reads that stage's own summary. */
  @Test
  void run_stageThresholds_judgedOnTheStagesOwnFigures() throws Exception {
    assertEquals(
        3,
        run(
            "run",
            "noop",
            "--stages",
            "1s:1,1s:2",
            "--quiet",
            "-o",
            "staged.json",
            "--threshold",
            "stage2.p99<10s",
            "--threshold",
            "stage1." + UNREACHABLE_RATE),
        err.toString());
    RunResult r = RunResultJson.read(dir.resolve("staged.json"));
    Timeline t = r.workloads().get(0).levels().get(0).timeline();
    ThresholdVerdict second = r.thresholds().get(0);
    assertEquals(2, second.stage());
    assertEquals("stages", second.level());
    assertTrue(second.passed(), second.toString());
    assertEquals(t.perStage().get(1).latencyNanos().p99(), second.observed(), 0.0, "stage 2's p99");
    ThresholdVerdict first = r.thresholds().get(1);
    assertFalse(first.passed());
    assertEquals(
        t.perStage().get(0).achievedPerSecond(), first.observed(), 1e-9, "stage 1's achieved rate");
    assertTrue(out.toString().contains("✓ stage2.p99<10s "), out.toString());
    assertTrue(
        out.toString()
            .lines()
            .anyMatch(l -> l.contains("stage2.p99<10s") && l.contains(" stage 2 ")),
        "the table names the stage: " + out);
  }
}
