package io.pkibench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class UslFitTest {

  static List<LevelPoint> curve(
      double sigma, double kappa, double lambda, double noise, long seed, double... ns) {
    SplittableRandom random = new SplittableRandom(seed);
    List<LevelPoint> points = new ArrayList<>();
    for (double n : ns) {
      double x =
          UslFit.predict(n, sigma, kappa, lambda) * (1 + noise * (2 * random.nextDouble() - 1));
      points.add(new LevelPoint(n, x, null, 1_000_000, null, 0.5));
    }
    return points;
  }

  @Test
  void fit_exactCurves_recoverSigmaKappaLambdaWithin5Percent() {
    double[][] cases = {{0.05, 0.001, 1000}, {0.2, 0.0002, 250}, {0.02, 0.005, 4000}};
    for (double[] c : cases) {
      UslFit fit = UslFit.fit(curve(c[0], c[1], c[2], 0, 1, 1, 2, 4, 8, 16, 32, 64));
      assertEquals(c[0], fit.sigma(), c[0] * 0.05, "sigma of " + java.util.Arrays.toString(c));
      assertEquals(c[1], fit.kappa(), c[1] * 0.05, "kappa of " + java.util.Arrays.toString(c));
      assertEquals(c[2], fit.lambda(), c[2] * 0.05, "lambda");
      assertFalse(fit.weak());
      double peak = Math.sqrt((1 - c[0]) / c[1]);
      assertEquals(peak, fit.peakConcurrency(), peak * 0.05);
      assertEquals(
          UslFit.predict(peak, c[0], c[1], c[2]),
          fit.peakThroughput(),
          fit.peakThroughput() * 0.05);
    }
  }

  @Test
  void fit_noisyCurve_stillWithin5PercentAndHasStandardErrors() {
    UslFit fit =
        UslFit.fit(curve(0.05, 0.001, 1000, 0.002, 7, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64));
    assertEquals(0.05, fit.sigma(), 0.05 * 0.05);
    assertEquals(0.001, fit.kappa(), 0.001 * 0.05);
    assertNotNull(fit.sigmaStdErr());
    assertTrue(
        fit.sigmaStdErr() > 0 && fit.sigmaStdErr() < 0.01, "σ standard error " + fit.sigmaStdErr());
    assertTrue(fit.rSquared() > 0.999);
  }

  @Test
  void fit_fewLevels_fitsButSaysWeak() {
    UslFit fit = UslFit.fit(curve(0.05, 0.001, 1000, 0, 1, 1, 2, 4, 8));
    assertTrue(fit.weak());
    assertEquals(4, fit.levels());
    assertNull(
        UslFit.fit(curve(0.05, 0.001, 1000, 0, 1, 1, 2)), "two points cannot fix three parameters");
  }

  /**
   * A curve rising faster than linearly cannot be the USL with σ, κ ≥ 0: no fit, saying why, rather
   * than a negative σ.
   */
  @Test
  void fit_superlinearCurve_noFitSayingItRisesFasterThanLinearly() {
    List<LevelPoint> points = curve(-0.03, 0.0005, 500, 0, 1, 1, 2, 4, 8, 16, 32);
    UslFit.Attempt attempt = UslFit.attempt(points);
    assertNull(attempt.fit(), "σ < 0 is no fit: " + attempt.fit());
    assertTrue(attempt.noFitBecause().contains("faster than linearly"), attempt.noFitBecause());
    String text = ScalingVerdict.of(points, attempt.fit(), attempt.noFitBecause(), false).text();
    assertTrue(text.contains("No USL fit: ") && !text.contains("peak"), text);
  }

  /**
   * Slightly superlinear data the constrained USL still fits: the unconstrained fit is shown beside
   * it, its σ < 0 named.
   */
  @Test
  void fit_slightlySuperlinear_verdictShowsTheUnconstrainedFitBesideTheHeldOne() {
    List<LevelPoint> points = curve(-0.01, 0.001, 1000, 0, 1, 1, 2, 4, 8, 16, 32);
    UslFit.Attempt attempt = UslFit.attempt(points);
    assertNotNull(attempt.fit(), attempt.noFitBecause());
    assertTrue(attempt.fit().superlinear());
    String text = ScalingVerdict.of(points, attempt.fit(), attempt.noFitBecause(), false).text();
    assertTrue(
        text.contains(
            "the unconstrained fit, σ=-0.0100, κ=0.001000, λ=1000.0 ops/s, is superlinear"),
        text);
    assertTrue(text.contains("USL: σ=0.0000"), "the constrained fit, beside it: " + text);
  }

  /**
   * restpki's Authentication probe: 2, 8 and 32 threads on a cold service, the first level slow
   * while the JIT compiled, then flat at the service's CPU. Unconstrained, three points fix three
   * parameters exactly: σ < 0 and a peak of −10,956 ops/s (issue 26: "a peak of −27.8 ops/s" and a
   * chart axis to −1500).
   */
  @Test
  void fit_coldFirstLevelThenFlat_noFitAndNoNegativePeak() {
    List<LevelPoint> points =
        List.of(
            new LevelPoint(2, 30, null, 1_000_000, null, 0.3),
            new LevelPoint(8, 420, null, 1_000_000, null, 0.9),
            new LevelPoint(32, 300, null, 1_000_000, null, 0.9));
    UslFit.Attempt attempt = UslFit.attempt(points);
    assertNull(attempt.fit(), "no fit: " + attempt.fit());
    assertTrue(
        attempt.noFitBecause().contains("misses the measured throughput by"),
        attempt.noFitBecause());
    String text = ScalingVerdict.of(points, attempt.fit(), attempt.noFitBecause(), false).text();
    assertTrue(
        text.contains("No USL fit: ") && !text.contains("peak") && !text.contains("-"), text);
  }

  /**
   * Whatever the data, a fit has σ, κ ≥ 0, λ > 0, a positive peak, and predicts no negative
   * throughput over the levels.
   */
  @Test
  void fit_arbitraryThreeToSixLevels_neverNegative() {
    SplittableRandom random = new SplittableRandom(26);
    double[] loads = {1, 2, 4, 8, 16, 32, 64};
    int fits = 0;
    for (int run = 0; run < 400; run++) {
      int n = 3 + random.nextInt(4);
      int from = random.nextInt(loads.length - n + 1);
      List<LevelPoint> points = new ArrayList<>();
      for (int i = 0; i < n; i++)
        points.add(
            new LevelPoint(
                loads[from + i], 10 + random.nextDouble() * 990, null, 1_000_000, null, 0.5));
      UslFit.Attempt attempt = UslFit.attempt(points);
      UslFit fit = attempt.fit();
      if (fit == null) {
        assertTrue(
            attempt.noFitBecause() != null && !attempt.noFitBecause().isBlank(), points.toString());
        continue;
      }
      fits++;
      String where = points + " → " + fit;
      assertTrue(fit.sigma() >= 0 && fit.kappa() >= 0 && fit.lambda() > 0, where);
      assertTrue(
          fit.peakThroughput() == null || fit.peakThroughput() > 0 && fit.peakConcurrency() >= 1,
          where);
      for (double x = 1; x <= points.get(n - 1).load(); x += 0.5)
        assertTrue(fit.predict(x) >= 0, where + " at " + x);
    }
    assertTrue(fits > 10, "some random sets are fitted (most follow no curve): " + fits);
  }

  @Test
  void fit_noCoherencyCost_hasNoPeak() {
    UslFit fit = UslFit.fit(curve(0.1, 0, 800, 0, 1, 1, 2, 4, 8, 16, 32));
    assertEquals(0, fit.kappa(), 1e-6);
    assertTrue(
        fit.peakConcurrency() == null || fit.peakConcurrency() > 1000,
        "no peak anywhere near the measured levels: " + fit.peakConcurrency());
  }
}
