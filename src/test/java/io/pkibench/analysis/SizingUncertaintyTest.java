package io.pkibench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResult;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The sizing answer with the range its iterations give it, and a sweep's self-check against its own
 * upper half.
 */
class SizingUncertaintyTest {

  @Test
  void sizing_iterationsSpreadTheirCost_coresGivenAsARange() {
    // c=2 runs 900–1100 ops/s over 5 iterations at 1.8 CPU-seconds each (the fixture's meter):
    // 500–611 ops per CPU-second
    RunResult run =
        ResultFixtures.closedRun(
            "sign",
            new int[] {1, 2},
            new double[][] {{500, 500, 500}, {1000, 1100, 900, 1000, 1000}},
            new long[] {1_000_000, 1_000_000});
    Capacity.Sizing sizing =
        Analysis.of(run, new Analysis.Options(1000.0, 0.7, null))
            .workloads()
            .get(0)
            .capacity()
            .sizing();
    assertEquals(1000 / (5000 / 9.0 * 0.7), sizing.cores(), 1e-9);
    assertEquals(1000 / (1100 / 1.8 * 0.7), sizing.coresLow(), 1e-9);
    assertEquals(1000 / (900 / 1.8 * 0.7), sizing.coresHigh(), 1e-9);
    assertEquals(5, sizing.iterations());
    assertFalse(sizing.pastMeasured());
    assertTrue(
        sizing
            .text()
            .contains(
                "you need 2.6 cores (2.3–2.9 over its 5 measured iterations' 500–611 ops per CPU-second)"),
        sizing.text());
  }

  @Test
  void sizing_rateAboveAnyMeasured_saysTheAnswerIsAnExtrapolation() {
    RunResult run =
        ResultFixtures.closedRun(
            "sign",
            new int[] {1, 2},
            new double[][] {{500, 500, 500}, {1000, 1100, 900, 1000, 1000}},
            new long[] {1_000_000, 1_000_000});
    Capacity.Sizing sizing =
        Analysis.of(run, new Analysis.Options(5000.0, 0.7, null))
            .workloads()
            .get(0)
            .capacity()
            .sizing();
    assertTrue(sizing.pastMeasured());
    assertTrue(
        sizing.text().contains("5000 ops/s is 5.0× the highest rate measured (1000 ops/s)"),
        sizing.text());
  }

  static List<LevelPoint> sweep(double[] ns, java.util.function.DoubleUnaryOperator x) {
    List<LevelPoint> points = new ArrayList<>();
    for (double n : ns)
      points.add(new LevelPoint(n, x.applyAsDouble(n), null, 1_000_000, 500.0, 0.5));
    return points;
  }

  /**
   * Linear to 8 workers, then a hard ceiling at 1,000 ops/s: the lower half's fit cannot see the
   * knee, and the check says how far it missed.
   */
  @Test
  void selfCheck_sweepWithAKneeAboveItsLowerHalf_namesEachMiss() {
    UslSelfCheck check =
        UslSelfCheck.of(sweep(new double[] {1, 2, 4, 8, 16, 32}, n -> Math.min(100 * n, 1000)));
    assertEquals(4, check.fittedUpTo());
    assertEquals(3, check.fittedLevels());
    assertEquals(
        List.of(8.0, 16.0, 32.0), check.held().stream().map(FitReport.HoldoutPoint::n).toList());
    assertEquals(0, check.held().get(0).miss(), 0.01, "8 still on the line");
    assertEquals(
        0.6, check.held().get(1).miss(), 0.01, "the line predicts 1,600 where 1,000 was measured");
    assertTrue(
        check
            .text()
            .startsWith(
                "fitted on concurrency ≤ 4 (3 levels), the USL's prediction was at 8 0% high, at 16 60% high"),
        check.text());
    assertTrue(check.text().endsWith("has missed by up to 220%"), check.text());
  }

  @Test
  void selfCheck_sweepThatFollowsTheUsl_missesLittle() {
    UslSelfCheck check =
        UslSelfCheck.of(
            sweep(
                new double[] {1, 2, 3, 4, 6, 8, 12, 16}, n -> UslFit.predict(n, 0.05, 0.002, 800)));
    assertTrue(check.held().stream().allMatch(h -> Math.abs(h.miss()) < 0.01), check.text());
  }

  @Test
  void selfCheck_fewerThanSixLevels_none() {
    assertNull(UslSelfCheck.of(sweep(new double[] {1, 2, 4, 8, 16}, n -> 100 * n)));
  }

  /** The result's analysis carries the check, and the terminal's table prints it. */
  @Test
  void analysis_sixLevelSweep_carriesTheSelfCheck() {
    int[] levels = {1, 2, 4, 8, 16, 32};
    double[][] rates = new double[levels.length][];
    long[] latency = new long[levels.length];
    for (int i = 0; i < levels.length; i++) {
      double x = Math.min(100.0 * levels[i], 1000);
      rates[i] = new double[] {x, x, x};
      latency[i] = 1_000_000;
    }
    Analysis analysis =
        Analysis.of(
            ResultFixtures.closedRun("sign", levels, rates, latency), Analysis.Options.DEFAULT);
    assertTrue(
        analysis.workloads().get(0).selfCheck().text().contains("at 16 60% high"),
        analysis.workloads().get(0).selfCheck().text());
  }
}
