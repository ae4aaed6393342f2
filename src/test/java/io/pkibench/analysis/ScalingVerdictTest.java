package io.pkibench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each rule of the verdict on a curve built to trigger it. */
class ScalingVerdictTest {

  static List<LevelPoint> points(double[] ns, double[] xs, long[] p99s) {
    List<LevelPoint> list = new ArrayList<>();
    for (int i = 0; i < ns.length; i++)
      list.add(new LevelPoint(ns[i], xs[i], null, p99s[i], 1000.0, 0.5));
    return list;
  }

  @Test
  void linearThenBendThenFlat_namesEachPoint() {
    List<LevelPoint> p =
        points(
            new double[] {1, 2, 4, 8, 16, 24, 32},
            new double[] {100, 200, 395, 780, 1200, 1250, 1255},
            new long[] {
              10_000_000, 10_000_000, 11_000_000, 12_000_000, 14_000_000, 18_000_000, 19_000_000
            });
    ScalingVerdict v = ScalingVerdict.of(p, UslFit.fit(p), false);
    assertEquals(8.0, v.linearUpTo());
    assertEquals(16.0, v.bendsFrom());
    assertEquals(24.0, v.kneeAt(), "16→24 gains 50 ops/s over 8 workers: 6% of one worker's rate");
    assertTrue(v.kneeReason().contains("6%"), v.kneeReason());
    assertEquals(24.0, v.saturatedAt(), "32 beats 24 by under 2%");
    assertEquals(20_000_000, v.p99BoundNanos());
    assertEquals(32.0, v.p99HeldUpTo());
    assertTrue(
        v.text()
            .startsWith(
                "throughput grows linearly up to concurrency 8 (efficiency ≥ 90%), bends from 16 (efficiency 75%)"),
        v.text());
    assertTrue(
        v.text().contains("knee at 24") && v.text().contains("stops gaining at 24"), v.text());
    assertTrue(v.text().contains("p99 stays under 20 ms at every level"), v.text());
  }

  @Test
  void p99Doubling_isAKneeEvenWhileThroughputRises() {
    List<LevelPoint> p =
        points(
            new double[] {1, 2, 4, 8},
            new double[] {100, 200, 400, 800},
            new long[] {1_000_000, 1_100_000, 2_500_000, 3_000_000});
    ScalingVerdict v = ScalingVerdict.of(p, null, false);
    assertEquals(4.0, v.kneeAt());
    assertTrue(v.kneeReason().contains("p99 is 2.5×"), v.kneeReason());
    assertEquals(2.0, v.p99HeldUpTo(), "bound is 2 ms");
    assertTrue(v.text().contains("p99 stays under 2 ms up to 2"), v.text());
    assertNull(v.bendsFrom());
    assertNull(v.saturatedAt(), "still rising");
  }

  @Test
  void throughputFallsAfterPeak_saturatesAtThePeak() {
    List<LevelPoint> p =
        points(
            new double[] {1, 2, 4, 8, 16},
            new double[] {100, 190, 300, 280, 200},
            new long[] {1_000_000, 1_000_000, 1_000_000, 1_000_000, 1_000_000});
    ScalingVerdict v = ScalingVerdict.of(p, null, false);
    assertEquals(2.0, v.linearUpTo());
    assertEquals(4.0, v.bendsFrom());
    assertEquals(4.0, v.saturatedAt());
    assertEquals(8.0, v.kneeAt(), "8 loses throughput: negative marginal gain");
  }

  @Test
  void openLoop_speaksOfRates() {
    List<LevelPoint> p =
        points(
            new double[] {100, 200, 400},
            new double[] {100, 199, 300},
            new long[] {1_000_000, 1_000_000, 9_000_000});
    ScalingVerdict v = ScalingVerdict.of(p, null, true);
    assertTrue(
        v.text().contains("keeps up with the target up to 200/s")
            && v.text().contains("falls behind from 400/s (75% achieved)"),
        v.text());
  }

  @Test
  void roundUp_isOneTwoOrFiveTimesAPowerOfTen() {
    assertEquals(5_000_000, ScalingVerdict.roundUp(2.4e6));
    assertEquals(50_000_000, ScalingVerdict.roundUp(4e7));
    assertEquals(1_000_000, ScalingVerdict.roundUp(1e6));
    assertEquals(2_000, ScalingVerdict.roundUp(1001));
  }
}
