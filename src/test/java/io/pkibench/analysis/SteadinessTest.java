package io.pkibench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.measure.LatencyHistograms;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.ResultFixtures;
import io.pkibench.results.WorkloadResult;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Each fixture iteration burns the same CPU, so its rate sets the CPU per operation. */
class SteadinessTest {
  static LevelResult level(double... ratesPerIteration) {
    return ResultFixtures.closedRun(
            "http:cades", new int[] {4}, new double[][] {ratesPerIteration}, new long[] {1_000_000})
        .workloads()
        .get(0)
        .levels()
        .get(0);
  }

  @Test
  void costFallingThroughEveryIteration_isStillWarmingUp() {
    Optional<String> w = Steadiness.warning(level(700, 900, 1000));
    assertTrue(
        w.isPresent() && w.get().startsWith("still warming up: CPU per operation fell 30%"),
        w.toString());
  }

  @Test
  void costRisingThroughEveryIteration_isSlowingDown() {
    Optional<String> w = Steadiness.warning(level(1000, 850, 700));
    assertTrue(
        w.isPresent() && w.get().startsWith("slowing down: CPU per operation rose 43%"),
        w.toString());
  }

  /**
   * CPU per operation rising while the rate, so the time per operation, stays flat: the level is
   * judged by its CPU, which was measured.
   */
  @Test
  void warning_cpuRisingAtAFlatRate_isSlowingDownByCpu() {
    LevelResult level =
        LevelResult.of(
            4,
            null,
            java.util.List.of(
                iteration(1, 1, false, 1000, 600_000_000L),
                iteration(1, 2, false, 1000, 750_000_000L),
                iteration(1, 3, false, 1000, 900_000_000L)),
            "pid:1",
            1);
    Optional<String> w = Steadiness.warning(level);
    assertTrue(
        w.isPresent() && w.get().startsWith("slowing down: CPU per operation rose 50%"),
        w.toString());
  }

  @Test
  void smallOrNonMonotonicChanges_andSingleIterations_areSteady() {
    assertEquals(Optional.empty(), Steadiness.warning(level(1000, 1100, 1050)));
    assertEquals(
        Optional.empty(),
        Steadiness.warning(level(600, 1000, 800)),
        "down then up is noise, not a trend");
    assertEquals(Optional.empty(), Steadiness.warning(level(500)));
    assertEquals(
        Optional.empty(),
        Steadiness.warning(level(700, 1000)),
        "two iterations are too few to call a trend");
  }

  /**
   * A level warmed for one iteration per entry of {@code warmRates}, then measured three times at
   * 1000/s; each iteration burns 0.9 CPU-seconds.
   */
  static LevelResult warmedLevel(double... warmRates) {
    java.util.List<IterationResult> its = new java.util.ArrayList<>();
    for (int k = 0; k < warmRates.length; k++)
      its.add(iteration(k + 1, true, Math.round(warmRates[k])));
    for (int k = 0; k < 3; k++) its.add(iteration(k + 1, false, 1000));
    return LevelResult.of(4, null, its, "pid:1", 1);
  }

  private static IterationResult iteration(int index, boolean warmup, long succeeded) {
    return iteration(1, index, warmup, succeeded, 900_000_000L);
  }

  /**
   * One second of series {@code series}, {@code succeeded} operations for {@code cpuNanos} of CPU
   * (0: none measured).
   */
  private static IterationResult iteration(
      int series, int index, boolean warmup, long succeeded, long cpuNanos) {
    org.HdrHistogram.Histogram h = LatencyHistograms.newHistogram();
    h.recordValue(1_000_000);
    return IterationResult.builder()
        .series(series)
        .index(index)
        .warmup(warmup)
        .durationNanos(1_000_000_000L)
        .started(succeeded)
        .succeeded(succeeded)
        .failed(0)
        .cpuNanos(cpuNanos)
        .errors(java.util.List.of())
        .histogram(LatencyHistograms.toBase64(h))
        .build();
  }

  /**
   * The edges the mutation run found open: exactly the three warm-ups the window needs, a cost
   * still rising, no CPU measured (time per operation judged), a later series' warm-ups (only the
   * first series is read), no iteration at all.
   */
  @Test
  void neverSteadied_windowEdgeRisingCostNoCpuLaterSeriesOrNoIteration_eachJudgedAsSaid() {
    assertEquals(
        Optional.of(
            "never steadied: CPU per operation still fell 75% over the last 3 of its 3 warm-up iterations;"
                + " measured but not fitted; allow a longer warm-up (a larger upper count, or --duration)"),
        Steadiness.neverSteadied(warmedLevel(200, 400, 800)));
    assertTrue(
        Steadiness.neverSteadied(warmedLevel(800, 400, 200))
            .orElseThrow()
            .startsWith("never steadied: CPU per operation still rose 300%"));

    java.util.List<IterationResult> wallOnly = new java.util.ArrayList<>();
    for (long rate : new long[] {200, 400, 800})
      wallOnly.add(iteration(1, wallOnly.size() + 1, true, rate, 0));
    for (int k = 1; k <= 3; k++) wallOnly.add(iteration(1, k, false, 1000, 0));
    assertTrue(
        Steadiness.neverSteadied(LevelResult.of(4, null, wallOnly, "pid:1", 1))
            .orElseThrow()
            .startsWith("never steadied: time per operation still fell 75%"),
        "no CPU measured: wall time per operation");

    java.util.List<IterationResult> twoSeries = new java.util.ArrayList<>();
    for (int k = 1; k <= 3; k++) twoSeries.add(iteration(1, k, true, 1000, 900_000_000L));
    for (int k = 1; k <= 3; k++) twoSeries.add(iteration(1, k, false, 1000, 900_000_000L));
    for (long rate : new long[] {200, 400, 800})
      twoSeries.add(iteration(2, twoSeries.size(), true, rate, 900_000_000L));
    assertEquals(
        Optional.empty(),
        Steadiness.neverSteadied(LevelResult.of(4, null, twoSeries, "pid:1", 1)),
        "the first series settled; a second series' cold warm-up is not the level's");

    assertEquals(
        Optional.empty(),
        Steadiness.neverSteadied(LevelResult.of(4, null, java.util.List.of(), "pid:1", 1)),
        "nothing run, nothing to say");
  }

  @Test
  void warmupThatRanOutStillFalling_neverSteadied_andIsNamedFirst() {
    Optional<String> w = Steadiness.neverSteadied(warmedLevel(200, 300, 400, 600, 800));
    assertTrue(
        w.isPresent()
            && w.get()
                .startsWith(
                    "never steadied: CPU per operation still fell 50% over the last 3 of its 5 warm-up iterations"),
        w.toString());
    assertEquals(
        w,
        Steadiness.warning(warmedLevel(200, 300, 400, 600, 800)),
        "the warning a table shows is that one");
  }

  @Test
  void warmupThatSettled_orTooShortToJudge_isNotFlagged() {
    assertEquals(
        Optional.empty(),
        Steadiness.neverSteadied(warmedLevel(200, 500, 900, 1000, 980)),
        "settled in its last three");
    assertEquals(
        Optional.empty(),
        Steadiness.neverSteadied(warmedLevel(200, 800)),
        "two warm-up iterations: a fixed warm-up, not judged");
    assertEquals(
        Optional.empty(),
        Steadiness.neverSteadied(warmedLevel(900, 700, 950)),
        "up and down is noise");
  }

  /**
   * The fit leaves out a level that never steadied: with it, three levels; without it, two points
   * are all the fit gets.
   */
  @Test
  void neverSteadiedLevel_isLeftOutOfTheFit() {
    var run =
        ResultFixtures.closedRun(
            "sign",
            new int[] {1, 2, 4},
            new double[][] {{1000, 1000, 1000}, {1900, 1900, 1900}, {3500, 3500, 3500}},
            new long[] {1_000_000, 1_000_000, 1_000_000});
    var w = run.workloads().get(0);
    LevelResult cold = w.levels().get(2);
    java.util.List<IterationResult> its =
        new java.util.ArrayList<>(cold.iterations().stream().filter(i -> !i.warmup()).toList());
    for (int k = 0; k < 4; k++) its.add(0, iteration(4 - k, true, 500L << k));
    LevelResult unsteady = LevelResult.of(4, null, its, "jvm", 2);
    var withUnsteady =
        run.withWorkload(
            0,
            WorkloadResult.builder(w.name())
                .params(w.params())
                .keys(w.keys())
                .cpuMeter(w.cpuMeter())
                .levels(java.util.List.of())
                .build()
                .withLevel(w.levels().get(0))
                .withLevel(w.levels().get(1))
                .withLevel(unsteady));
    assertTrue(Steadiness.neverSteadied(unsteady).isPresent());
    var fitted = Analysis.of(run, Analysis.Options.DEFAULT).workloads().get(0);
    var partly = Analysis.of(withUnsteady, Analysis.Options.DEFAULT).workloads().get(0);
    assertTrue(fitted.usl() != null, "three steady levels are fitted");
    assertEquals(
        null,
        partly.usl(),
        "two steady levels are too few for a fit: the unsteady third was left out");
  }
}
