package io.pkibench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ChangeIntervalTest {
  /**
   * R's sleep data, as {@code t.test(extra ~ group, data = sleep)} (Welch) reports it: 95% CI
   * -3.3654832 .. 0.2054832, df 17.776.
   */
  static final double[] SLEEP_GROUP_1 = {0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0};

  static final double[] SLEEP_GROUP_2 = {1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4};

  @Test
  void welch_matchesRsTTestOnTheSleepData() {
    ChangeInterval c = ChangeInterval.welch(SLEEP_GROUP_2, SLEEP_GROUP_1, 0.95);
    double baseMean = 2.33;
    assertEquals(-3.3654832, c.lowPercent() * baseMean / 100, 1e-6);
    assertEquals(0.2054832, c.highPercent() * baseMean / 100, 1e-6);
  }

  @Test
  void welch_oneIterationASide_hasNoInterval() {
    assertNull(ChangeInterval.welch(new double[] {1}, new double[] {1, 2}, 0.99));
  }

  @Test
  void iterationsToResolve_growsWithTheNoiseAndShrinkingSize() {
    ChangeInterval noisy =
        ChangeInterval.welch(new double[] {90, 100, 110}, new double[] {92, 101, 109}, 0.99);
    Integer forFive = noisy.iterationsToResolve(5), forTwenty = noisy.iterationsToResolve(20);
    assertTrue(forFive > forTwenty && forTwenty > 3, forFive + " vs " + forTwenty);
    // at the count it names, the same spread gives an interval narrower than the size
    double a = noisy.baseVariance(), b = noisy.newVariance();
    double df = (forFive - 1) * (a + b) * (a + b) / (a * a + b * b);
    double t =
        new org.apache.commons.math3.distribution.TDistribution(df)
            .inverseCumulativeProbability(0.995);
    assertTrue(
        2 * t * Math.sqrt((a + b) / forFive) < 5,
        "at n=" + forFive + " the interval is narrower than 5% of the base mean 100");
    int fewer = forFive - 1;
    double tFewer =
        new org.apache.commons.math3.distribution.TDistribution(
                (fewer - 1) * (a + b) * (a + b) / (a * a + b * b))
            .inverseCumulativeProbability(0.995);
    assertTrue(
        2 * tFewer * Math.sqrt((a + b) / fewer) >= 5,
        "and it is the fewest: n=" + fewer + " would not do");
    assertNull(
        noisy.iterationsToResolve(0),
        "a 0% limit can be decided only by a change beyond the noise");
  }
}
