package io.pkibench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.report.ComparisonFormat;
import io.pkibench.results.Counts;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LatencyNanos;
import io.pkibench.results.LevelResult;
import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResult;
import io.pkibench.results.Timeline;
import io.pkibench.results.WorkloadResult;
import io.pkibench.testing.GoldenFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

public class ComparisonTest {
  static final int[] LEVELS = {1, 2};
  public static final RunResult BASE =
      ResultFixtures.closedRun(
          "sign",
          LEVELS,
          new double[][] {{1000, 1002, 998, 1001, 999}, {1900, 1960, 1840, 1930, 1870}},
          new long[] {1_000_000, 1_050_000});

  /**
   * c=1 drops 10%, outside the noise; c=2 drops 1%, inside it (its iterations spread by ±3%); p99
   * rises 20% at c=2.
   */
  public static final RunResult NEW =
      ResultFixtures.closedRun(
          "sign",
          LEVELS,
          new double[][] {{900, 902, 898, 901, 899}, {1880, 1940, 1820, 1910, 1855}},
          new long[] {1_000_000, 1_260_000});

  static final List<Threshold> LIMITS =
      List.of(Threshold.parse("throughput:-5%"), Threshold.parse("p99:+10%"));

  /**
   * The same step of two study runs, whose targets differ (each service got a free port), as a
   * study writes them.
   */
  static RunResult studyRun(RunResult run, String target) {
    var w = run.workloads().get(0);
    var params = new java.util.HashMap<>(w.params());
    params.put("target", target);
    return run.withWorkload(
        0,
        WorkloadResult.builder(w.name())
            .params(params)
            .keys(w.keys())
            .cpuMeter(w.cpuMeter())
            .levels(w.levels())
            .step(new WorkloadResult.Step("CAdES", "measure"))
            .build());
  }

  @Test
  void of_studyRuns_matchByStepNotByTheirTargetsPort() {
    Comparison c =
        Comparison.of(
            studyRun(BASE, "https://127.0.0.1:41001"),
            studyRun(NEW, "https://127.0.0.1:43717"),
            LIMITS);
    assertEquals(List.of(), c.unmatched());
    assertEquals(Comparison.Verdict.FAIL, row(c, 1, Metric.THROUGHPUT).verdict());
    assertTrue(
        row(c, 1, Metric.THROUGHPUT).workload().startsWith("CAdES (measure, sign)"),
        row(c, 1, Metric.THROUGHPUT).workload());
  }

  /**
   * A plain run against a service on loopback: the target's port is whatever the service got, not
   * what the workload is.
   */
  @Test
  void of_plainRunsAgainstLoopbackTargetsOnOtherPorts_match() {
    Comparison c =
        Comparison.of(
            plainRun(BASE, "https://127.0.0.1:41001"),
            plainRun(NEW, "https://127.0.0.1:43717"),
            LIMITS);
    assertEquals(List.of(), c.unmatched());
    assertTrue(c.complete());
    assertEquals(Comparison.Verdict.FAIL, row(c, 1, Metric.THROUGHPUT).verdict());
    assertTrue(
        row(c, 1, Metric.THROUGHPUT).workload().contains("target=https://loopback"),
        row(c, 1, Metric.THROUGHPUT).workload());
    // another host is another service: its port stays part of what it is
    Comparison remote =
        Comparison.of(
            plainRun(BASE, "https://10.0.0.5:8443"),
            plainRun(NEW, "https://10.0.0.5:9443"),
            LIMITS);
    assertFalse(remote.complete(), ComparisonFormat.text(remote));
  }

  /**
   * A level in one run only (a probe that chose another level, a shorter sweep) is not silently
   * skipped.
   */
  @Test
  void of_levelInOneRunOnly_incompleteNamingWhereTheOtherRunMeasured() throws IOException {
    Comparison c = Comparison.of(BASE, FIRST_LEVEL_ONLY, LIMITS);
    assertFalse(c.complete());
    assertEquals(
        List.of(
            "sign alg=rsa2048 size=1024 @software:accp at 2: only in the base run (the new run measured it at 1)"),
        c.unmatched());
    Comparison same = Comparison.of(FIRST_LEVEL_ONLY, FIRST_LEVEL_ONLY, LIMITS, 0.95);
    assertTrue(same.complete() && same.passed(), ComparisonFormat.text(same));
    golden(
        "compare-v2-incomplete.txt",
        ComparisonFormat.text(
            Comparison.of(BASE, NEW_WITHOUT_LEVEL_2, List.of(Threshold.parse("throughput:-20%")))));
  }

  static final RunResult FIRST_LEVEL_ONLY =
      ResultFixtures.closedRun(
          "sign",
          new int[] {1},
          new double[][] {{1000, 1002, 998, 1001, 999}},
          new long[] {1_000_000});
  static final RunResult NEW_WITHOUT_LEVEL_2 =
      ResultFixtures.closedRun(
          "sign",
          new int[] {1},
          new double[][] {{900, 902, 898, 901, 899}},
          new long[] {1_000_000});

  static RunResult plainRun(RunResult run, String target) {
    var w = run.workloads().get(0);
    var params = new java.util.HashMap<>(w.params());
    params.put("target", target);
    return run.withWorkload(
        0,
        WorkloadResult.builder(w.name())
            .params(params)
            .keys(w.keys())
            .cpuMeter(w.cpuMeter())
            .levels(w.levels())
            .build());
  }

  @Test
  void of_regressionOutsideNoise_failsAndNoiseDoesNot() {
    Comparison c = Comparison.of(BASE, NEW, LIMITS);
    assertFalse(c.passed());
    Comparison.Row drop = row(c, 1, Metric.THROUGHPUT);
    assertEquals(-10.0, drop.deltaPercent(), 0.01);
    assertTrue(
        drop.changeLowPercent() < -10
            && -10 < drop.changeHighPercent()
            && drop.changeHighPercent() < 0,
        drop.toString());
    assertEquals(Comparison.Verdict.FAIL, drop.verdict());
    Comparison.Row small = row(c, 2, Metric.THROUGHPUT);
    assertTrue(
        small.changeLowPercent() < 0 && small.changeHighPercent() > 0,
        "a 1% drop is inside the noise: " + small);
    assertTrue(
        small.verdict() != Comparison.Verdict.FAIL && small.verdict() != Comparison.Verdict.worse,
        small.toString());
    assertEquals(Comparison.Verdict.FAIL, row(c, 2, Metric.P99).verdict());
    assertEquals(Comparison.Verdict.same, row(c, 1, Metric.P99).verdict());
  }

  /**
   * Issue 9's case: 5 iterations a side, every measured iteration's successes halved, is a breach,
   * not noise.
   */
  @Test
  void of_halvedThroughputFiveIterationsASide_fails() {
    double[] base = {46_100, 45_200, 47_900, 44_800, 46_500};
    double[] halved = java.util.Arrays.stream(base).map(v -> v / 2).toArray();
    Comparison c =
        Comparison.of(
            ResultFixtures.closedRun(
                "sign", new int[] {1}, new double[][] {base}, new long[] {1_000_000}),
            ResultFixtures.closedRun(
                "sign", new int[] {1}, new double[][] {halved}, new long[] {1_000_000}),
            LIMITS);
    assertEquals(Comparison.Verdict.FAIL, row(c, 1, Metric.THROUGHPUT).verdict());
    assertFalse(c.passed());
  }

  @Test
  void of_tooFewOrTooNoisyIterations_inconclusiveSayingHowManyWould() {
    RunResult base =
        ResultFixtures.closedRun(
            "sign", new int[] {1}, new double[][] {{900, 1000, 1100}}, new long[] {1_000_000});
    RunResult next =
        ResultFixtures.closedRun(
            "sign", new int[] {1}, new double[][] {{880, 970, 1090}}, new long[] {1_000_000});
    Comparison c = Comparison.of(base, next, LIMITS);
    Comparison.Row r = row(c, 1, Metric.THROUGHPUT);
    assertEquals(Comparison.Verdict.inconclusive, r.verdict());
    assertTrue(r.iterationsNeeded() > 3, r.toString());
    assertTrue(c.passed() && !c.conclusive());
    assertTrue(
        ComparisonFormat.text(c)
            .contains(
                "about "
                    + String.format(java.util.Locale.ROOT, "%,d", r.iterationsNeeded())
                    + " measured iterations a side would tell (now 3 and 3)"),
        ComparisonFormat.text(c));

    RunResult once =
        ResultFixtures.closedRun(
            "sign", new int[] {1}, new double[][] {{1000}}, new long[] {1_000_000});
    Comparison single = Comparison.of(once, once, LIMITS);
    assertEquals(
        Comparison.Verdict.inconclusive,
        row(single, 1, Metric.THROUGHPUT).verdict(),
        "one iteration shows no noise");
    assertTrue(
        ComparisonFormat.text(single).contains("measure at least 3 a side"),
        ComparisonFormat.text(single));
  }

  /**
   * One run's CPU unmetered (its meter unavailable): no CPU row either way round, and the other
   * metrics still compared.
   */
  @Test
  void of_cpuMeteredInOneRunOnly_noCpuRowTheRestCompared() {
    RunResult unmetered = withoutCpu(BASE);
    List<Threshold> withCpu =
        List.of(Threshold.parse("throughput:-5%"), Threshold.parse("cpu:-5%"));
    assertTrue(
        Comparison.of(BASE, BASE, withCpu).rows().stream().anyMatch(r -> r.metric() == Metric.CPU),
        "both metered: CPU is compared");
    for (Comparison c :
        List.of(Comparison.of(unmetered, BASE, withCpu), Comparison.of(BASE, unmetered, withCpu))) {
      assertTrue(
          c.rows().stream().noneMatch(r -> r.metric() == Metric.CPU), ComparisonFormat.text(c));
      assertEquals(
          Comparison.Verdict.same,
          row(c, 1, Metric.THROUGHPUT).verdict(),
          ComparisonFormat.text(c));
    }
  }

  /**
   * A base level where nothing succeeded has no figure to take a percent of: no rows, not an
   * infinite change; the other way round it is -100%.
   */
  @Test
  void of_baseLevelWithNoSuccess_noRowsNotAnInfinitePercent() {
    RunResult dead =
        ResultFixtures.closedRun(
            "sign", new int[] {1}, new double[][] {{0, 0, 0}}, new long[] {1_000_000});
    RunResult alive =
        ResultFixtures.closedRun(
            "sign", new int[] {1}, new double[][] {{1000, 1002, 998}}, new long[] {1_000_000});
    Comparison fromNothing = Comparison.of(dead, alive, LIMITS);
    assertEquals(List.of(), fromNothing.rows(), ComparisonFormat.text(fromNothing));
    assertEquals(
        -100.0, row(Comparison.of(alive, dead, LIMITS), 1, Metric.THROUGHPUT).deltaPercent(), 1e-9);
  }

  /**
   * An interval reaching far to the better side (+17%) and only a little to the worse (-3%): under
   * a limit of -5% it is "same" (it cannot be worse past the limit); with no limit it is
   * inconclusive, since it cannot tell "the same" from "much better".
   */
  @Test
  void of_intervalFarOnTheBetterSideOnly_sameUnderALimitInconclusiveWithout() {
    RunResult base =
        ResultFixtures.closedRun(
            "sign",
            new int[] {1},
            new double[][] {{940, 970, 1000, 1030, 1060}},
            new long[] {1_000_000});
    RunResult next =
        ResultFixtures.closedRun(
            "sign",
            new int[] {1},
            new double[][] {{1010, 1040, 1070, 1100, 1130}},
            new long[] {1_000_000});
    Comparison.Row limited = row(Comparison.of(base, next, LIMITS), 1, Metric.THROUGHPUT);
    assertTrue(
        limited.changeLowPercent() > -5
            && limited.changeLowPercent() < 0
            && limited.changeHighPercent() > 5,
        limited.toString());
    assertEquals(Comparison.Verdict.same, limited.verdict(), limited.toString());
    Comparison.Row unlimited = row(Comparison.of(base, next, List.of()), 1, Metric.THROUGHPUT);
    assertEquals(Comparison.Verdict.inconclusive, unlimited.verdict(), unlimited.toString());
  }

  /** {@code run} as if its CPU meter had read nothing: every iteration's CPU time 0. */
  static RunResult withoutCpu(RunResult run) {
    WorkloadResult w = run.workloads().get(0);
    WorkloadResult bare =
        WorkloadResult.builder(w.name())
            .params(w.params())
            .keys(w.keys())
            .cpuMeter(w.cpuMeter())
            .levels(List.of())
            .build();
    for (LevelResult l : w.levels()) {
      List<IterationResult> its =
          l.iterations().stream()
              .map(
                  i ->
                      IterationResult.builder()
                          .series(i.series())
                          .index(i.index())
                          .warmup(i.warmup())
                          .durationNanos(i.durationNanos())
                          .started(i.started())
                          .succeeded(i.succeeded())
                          .failed(i.failed())
                          .cpuNanos(0)
                          .errors(i.errors())
                          .histogram(i.histogram())
                          .lateStarts(i.lateStarts())
                          .missedStarts(i.missedStarts())
                          .uncorrectedHistogram(i.uncorrectedHistogram())
                          .build())
              .toList();
      bare = bare.withLevel(LevelResult.of(l.concurrency(), null, its, w.cpuMeter(), 2));
    }
    return run.withWorkload(0, bare);
  }

  @Test
  void of_sameRun_passes() {
    Comparison c = Comparison.of(BASE, BASE, LIMITS, 0.95);
    assertTrue(c.passed() && c.conclusive(), ComparisonFormat.text(c));
    assertTrue(
        c.rows().stream().allMatch(r -> r.verdict() == Comparison.Verdict.same),
        ComparisonFormat.text(c));
  }

  @Test
  void formats_matchGoldenFiles() throws IOException {
    Comparison c = Comparison.of(BASE, NEW, LIMITS);
    golden("compare-v2.txt", ComparisonFormat.text(c));
    golden("compare-v2.md", ComparisonFormat.markdown(c));
  }

  @Test
  void threshold_wrongDirectionOrSyntax_explainsTheFix() {
    var e = assertThrows(IllegalArgumentException.class, () -> Threshold.parse("throughput:+5%"));
    assertTrue(e.getMessage().contains("throughput>-5%"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Threshold.parse("p99:-10%"));
    assertTrue(e.getMessage().contains("p99<+10%"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Threshold.parse("latency:+10%"));
    assertTrue(e.getMessage().contains("unknown metric"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Threshold.parse("p99:10"));
    e = assertThrows(IllegalArgumentException.class, () -> Threshold.parse("throughput:0%"));
    assertTrue(e.getMessage().contains("write throughput>-0%"), e.getMessage());
  }

  @Test
  void threshold_k6Grammar_readsAsTheFormerSpelling() {
    assertEquals(Threshold.parse("throughput:-5%"), Threshold.parse("throughput>-5%"));
    assertEquals(Threshold.parse("p99:+10%"), Threshold.parse("p99<+10%"));
    assertEquals(Threshold.parse("p99:+10%"), Threshold.parse("p(99) <= +10%"));
    assertEquals(Threshold.parse("cpu:-5%"), Threshold.parse("cpu>=-5%"));
    assertEquals("throughput>-5%", Threshold.parse("throughput:-5%").toString());
    assertEquals("p99<+10%", Threshold.parse("p99:+10%").toString());
    assertTrue(Threshold.formerSpelling("throughput:-5%"));
    assertFalse(Threshold.formerSpelling("throughput>-5%"));
  }

  @Test
  void threshold_comparisonAgainstTheMetricsWay_explainsTheFix() {
    var e = assertThrows(IllegalArgumentException.class, () -> Threshold.parse("throughput<-5%"));
    assertTrue(e.getMessage().contains("write throughput>-5%"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Threshold.parse("p99>+10%"));
    assertTrue(e.getMessage().contains("write p99<+10%"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Threshold.parse("p99<5ms"));
    assertTrue(e.getMessage().contains("CHANGE%"), e.getMessage());
  }

  /**
   * No change allowed: the fix the message suggests is taken, either sign, and holds only a change
   * the right way.
   */
  @Test
  void threshold_zeroWithASign_isNoChangeAllowed() {
    Threshold t = Threshold.parse("throughput:-0%");
    assertEquals(t, Threshold.parse("throughput:+0%"), "-0 and +0 are one limit");
    assertEquals("throughput>-0%", t.toString());
    assertTrue(t.holds(0) && t.holds(1.5), "no drop, or a gain");
    assertFalse(t.holds(-0.1), "any drop fails");
    Threshold p99 = Threshold.parse("p99:+0%");
    assertEquals("p99<+0%", p99.toString());
    assertTrue(p99.holds(-3) && !p99.holds(0.1));
  }

  /**
   * A one-level run at {@code concurrency} whose level ran {@code targets} as stages, a second each
   * at 100 operations, or ran unstaged where none are given.
   */
  static RunResult staged(int concurrency, String... targets) {
    return staged(concurrency, 100, null, targets);
  }

  /**
   * As above, each stage's rate {@code achievedPerSecond} and its operations per CPU-second {@code
   * opsPerCpuSecond} (null: no CPU measured).
   */
  static RunResult staged(
      int concurrency, double achievedPerSecond, Double opsPerCpuSecond, String... targets) {
    RunResult run =
        ResultFixtures.closedRun(
            "sign",
            new int[] {concurrency},
            new double[][] {{1000, 1002, 998, 1001, 999}},
            new long[] {1_000_000});
    if (targets.length == 0) return run;
    List<Timeline.StageSummary> stages = new ArrayList<>();
    List<Timeline.Second> seconds = new ArrayList<>();
    List<String> text = new ArrayList<>();
    var latency =
        new LatencyNanos(100, 1e6, 1e5, 1_000_000, 1_100_000, 1_200_000, 1_300_000, 2_000_000);
    for (int i = 0; i < targets.length; i++) {
      stages.add(
          new Timeline.StageSummary(
              i,
              targets[i],
              0,
              0,
              i * 1000L,
              (i + 1) * 1000L,
              new Counts(100, 100, 0),
              achievedPerSecond,
              100.0,
              null,
              latency,
              0,
              opsPerCpuSecond,
              null));
      seconds.add(
          new Timeline.Second(
              i * 1000L,
              (i + 1) * 1000L,
              i,
              100,
              100,
              0,
              100,
              100.0,
              null,
              1,
              1_000_000,
              1_200_000,
              2_000_000,
              0));
      text.add("1s:" + targets[i]);
    }
    WorkloadResult w = run.workloads().get(0);
    LevelResult level =
        w.levels().get(0).withTimeline(new Timeline(String.join(",", text), stages, seconds));
    return run.withWorkload(
        0,
        WorkloadResult.builder(w.name())
            .params(w.params())
            .keys(w.keys())
            .cpuMeter(w.cpuMeter())
            .levels(List.of(level))
            .build());
  }

  /**
   * A level staged in one run and not in the other, at the same load: compared as a level, and its
   * stages listed as in that run only, naming which.
   */
  @Test
  void of_stagesInOneRunOnly_theLevelComparedAndTheStagesListedForTheirRun() {
    Comparison baseStaged = Comparison.of(staged(1, "100/s"), staged(1), List.of());
    assertTrue(
        baseStaged.unmatched().stream()
            .anyMatch(u -> u.endsWith(" at 1: stages in the base run only")),
        baseStaged.unmatched().toString());
    assertEquals(1, baseStaged.unmatched().size(), baseStaged.unmatched().toString());
    assertFalse(baseStaged.rows().isEmpty(), "the level itself compared");
    assertTrue(baseStaged.rows().stream().noneMatch(r -> r.workload().contains(Comparison.STAGE)));

    Comparison newStaged = Comparison.of(staged(1), staged(1, "100/s"), List.of());
    assertEquals(1, newStaged.unmatched().size(), newStaged.unmatched().toString());
    assertTrue(
        newStaged.unmatched().get(0).endsWith(" at 1: stages in the new run only"),
        newStaged.unmatched().toString());
  }

  /**
   * Two staged levels match whatever their loads (a workload has one); a staged level and an
   * unstaged one at another load do not: each is in its run only.
   */
  @Test
  void of_stagedAndUnstagedLevelsAtOtherLoads_notMatched() {
    Comparison both = Comparison.of(staged(1, "100/s"), staged(2, "100/s"), List.of());
    assertEquals(List.of(), both.unmatched());
    assertTrue(
        both.rows().stream().anyMatch(r -> r.workload().endsWith(" · stage 1 (→ 100/s)")),
        both.rows().toString());

    for (Comparison c :
        List.of(
            Comparison.of(staged(1, "100/s"), staged(2), List.of()),
            Comparison.of(staged(1), staged(2, "100/s"), List.of()))) {
      List<String> unmatched = c.unmatched();
      assertEquals(2, unmatched.size(), unmatched.toString());
      assertTrue(unmatched.get(0).contains(" at 1: only in the base run"), unmatched.toString());
      assertTrue(unmatched.get(1).contains(" at 2: only in the new run"), unmatched.toString());
      assertEquals(List.of(), c.rows(), "nothing compared");
    }
  }

  /**
   * Stages match by index and target: the second stage's target changed, so it is listed once for
   * each run (with the other run's stages), and the first is compared.
   */
  @Test
  void of_aStageWhoseTargetChanged_listedInEachRunOnce_theOthersCompared() {
    Comparison c =
        Comparison.of(staged(1, "100/s", "200/s"), staged(1, "100/s", "300/s"), List.of());
    List<String> unmatched = c.unmatched();
    assertEquals(2, unmatched.size(), unmatched.toString());
    assertTrue(
        unmatched
            .get(0)
            .endsWith(
                " · stage 2 (→ 200/s): only in the base run (the new run's stages: 1s:100/s,1s:300/s)"),
        unmatched.toString());
    assertTrue(
        unmatched
            .get(1)
            .endsWith(
                " · stage 2 (→ 300/s): only in the new run (the base run's stages: 1s:100/s,1s:200/s)"),
        unmatched.toString());
    assertTrue(
        c.rows().stream().anyMatch(r -> r.workload().endsWith(" · stage 1 (→ 100/s)")),
        c.rows().toString());
    assertTrue(
        c.rows().stream().noneMatch(r -> r.workload().contains(" · stage 2")), c.rows().toString());
  }

  /**
   * A stage's metric compared only where both runs measured it and the base's is not zero (no
   * percentage of nothing); a threshold applies to its own metric's rows only.
   */
  @Test
  void of_stageMetricMissingOrZeroInARun_noRowForIt_andEachThresholdOnItsMetric() {
    List<Threshold> limits =
        List.of(Threshold.parse("cpu:-5%"), Threshold.parse("throughput:-50%"));
    for (Comparison c :
        List.of(
            Comparison.of(staged(1, 100, null, "100/s"), staged(1, 100, 50.0, "100/s"), limits),
            Comparison.of(staged(1, 100, 50.0, "100/s"), staged(1, 100, null, "100/s"), limits))) {
      List<Comparison.Row> stage = stageRows(c);
      assertTrue(stage.stream().noneMatch(r -> r.metric() == Metric.CPU), stage.toString());
      assertEquals(Set.of(Metric.THROUGHPUT, Metric.P99), metrics(stage), stage.toString());
    }
    Comparison bothCpu =
        Comparison.of(staged(1, 100, 50.0, "100/s"), staged(1, 100, 50.0, "100/s"), limits);
    List<Comparison.Row> stage = stageRows(bothCpu);
    assertEquals(Set.of(Metric.THROUGHPUT, Metric.P99, Metric.CPU), metrics(stage));
    for (Comparison.Row r : stage) {
      Threshold expected =
          switch (r.metric()) {
            case CPU -> limits.get(0);
            case THROUGHPUT -> limits.get(1);
            default -> null;
          };
      assertEquals(expected, r.threshold(), r.toString());
    }

    Comparison fromZero =
        Comparison.of(staged(1, 0, null, "100/s"), staged(1, 100, null, "100/s"), List.of());
    assertEquals(Set.of(Metric.P99), metrics(stageRows(fromZero)), "no throughput row from 0/s");
  }

  static List<Comparison.Row> stageRows(Comparison c) {
    return c.rows().stream().filter(r -> r.workload().contains(Comparison.STAGE)).toList();
  }

  static Set<Metric> metrics(List<Comparison.Row> rows) {
    return rows.stream().map(Comparison.Row::metric).collect(Collectors.toSet());
  }

  static void golden(String name, String actual) throws IOException {
    GoldenFiles.assertMatches(
        Path.of("src/test/resources/golden", name), actual, "the comparison's format changed");
  }

  private static Comparison.Row row(Comparison c, double load, Metric m) {
    return c.rows().stream()
        .filter(r -> r.load() == load && r.metric() == m)
        .findFirst()
        .orElseThrow();
  }
}
