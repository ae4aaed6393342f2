package io.pkibench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Which iterations Steadiness reads: the measured ones of the first series that succeeded at all,
 * and CPU per operation only when every one of them measured CPU. Each case is built so that
 * reading one iteration too many turns the verdict.
 */
class SteadinessIterationsTest {
  static final long SECOND = 1_000_000_000L;
  static final long CPU = 900_000_000L;

  static IterationResult iteration(
      int series, boolean warmup, long succeeded, long cpuNanos, long durationNanos) {
    return IterationResult.builder()
        .series(series)
        .index(0)
        .warmup(warmup)
        .durationNanos(durationNanos)
        .started(succeeded)
        .succeeded(succeeded)
        .failed(0)
        .cpuNanos(cpuNanos)
        .build();
  }

  static LevelResult level(List<IterationResult> iterations) {
    return new LevelResult(
        4,
        null,
        null,
        null,
        null,
        List.of(),
        null,
        iterations); // Steadiness reads only the iterations
  }

  /** Measured rates 1000, 1050, 1100: CPU per operation falls 9%, inside the noise. */
  static List<IterationResult> steadyMeasured(int series) {
    List<IterationResult> its = new ArrayList<>();
    for (long rate : new long[] {1000, 1050, 1100})
      its.add(iteration(series, false, rate, CPU, SECOND));
    return its;
  }

  @Test
  void warning_coldWarmupBeforeSteadyMeasuredIterations_steady() {
    List<IterationResult> its =
        new ArrayList<>(
            List.of(iteration(1, true, 500, CPU, SECOND), iteration(1, true, 700, CPU, SECOND)));
    its.addAll(steadyMeasured(1));
    assertEquals(
        Optional.empty(),
        Steadiness.warning(level(its)),
        "the warm-up is there to be cold: it is not read");
  }

  @Test
  void warning_aFasterSecondSeries_onlyTheFirstSeriesRead() {
    List<IterationResult> its = new ArrayList<>(steadyMeasured(1));
    for (long rate : new long[] {1300, 1500}) its.add(iteration(2, false, rate, CPU, SECOND));
    assertEquals(
        Optional.empty(),
        Steadiness.warning(level(its)),
        "a later series is another JVM or another round, not a trend of this one");
  }

  @Test
  void warning_anIterationWithoutSuccesses_leftOut() {
    List<IterationResult> its = new ArrayList<>();
    for (long rate : new long[] {1100, 1050, 1000}) its.add(iteration(1, false, rate, CPU, SECOND));
    its.add(iteration(1, false, 0, CPU, SECOND));
    assertEquals(
        Optional.empty(),
        Steadiness.warning(level(its)),
        "no successes, no cost per operation to compare");
  }

  @Test
  void warning_noCpuMeasured_judgesTimePerOperation() {
    List<IterationResult> its = new ArrayList<>();
    for (long rate : new long[] {700, 900, 1000}) its.add(iteration(1, false, rate, 0, SECOND));
    Optional<String> w = Steadiness.warning(level(its));
    assertTrue(
        w.isPresent()
            && w.get()
                .startsWith(
                    "still warming up: time per operation fell 30% from the first measured iteration to the last;"),
        w.toString());
  }

  @Test
  void warning_cpuMissingInOneIteration_judgesTimeNotCpu() {
    // CPU falls 30% where it was measured, but the last iteration has none: time per operation
    // (flat) decides
    List<IterationResult> its =
        List.of(
            iteration(1, false, 1000, CPU, SECOND),
            iteration(1, false, 1000, CPU * 7 / 10, SECOND),
            iteration(1, false, 1000, 0, SECOND));
    assertEquals(Optional.empty(), Steadiness.warning(level(its)));
  }

  @Test
  void warning_noIterations_steady() {
    assertEquals(Optional.empty(), Steadiness.warning(level(List.of())));
  }
}
