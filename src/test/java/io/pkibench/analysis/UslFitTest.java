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

  static List<LevelPoint> curve(double sigma, double kappa, double lambda, double noise, long seed, double... ns) {
    SplittableRandom random = new SplittableRandom(seed);
    List<LevelPoint> points = new ArrayList<>();
    for (double n : ns) {
      double x = UslFit.predict(n, sigma, kappa, lambda) * (1 + noise * (2 * random.nextDouble() - 1));
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
      assertEquals(UslFit.predict(peak, c[0], c[1], c[2]), fit.peakThroughput(), fit.peakThroughput() * 0.05);
    }
  }

  @Test
  void fit_noisyCurve_stillWithin5PercentAndHasStandardErrors() {
    UslFit fit = UslFit.fit(curve(0.05, 0.001, 1000, 0.002, 7, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64));
    assertEquals(0.05, fit.sigma(), 0.05 * 0.05);
    assertEquals(0.001, fit.kappa(), 0.001 * 0.05);
    assertNotNull(fit.sigmaStdErr());
    assertTrue(fit.sigmaStdErr() > 0 && fit.sigmaStdErr() < 0.01, "σ standard error " + fit.sigmaStdErr());
    assertTrue(fit.rSquared() > 0.999);
  }

  @Test
  void fit_fewLevels_fitsButSaysWeak() {
    UslFit fit = UslFit.fit(curve(0.05, 0.001, 1000, 0, 1, 1, 2, 4, 8));
    assertTrue(fit.weak());
    assertEquals(4, fit.levels());
    assertNull(UslFit.fit(curve(0.05, 0.001, 1000, 0, 1, 1, 2)), "two points cannot fix three parameters");
  }

  @Test
  void fit_superlinearCurve_negativeSigmaFlagged() {
    UslFit fit = UslFit.fit(curve(-0.03, 0.0005, 500, 0, 1, 1, 2, 4, 8, 16, 32));
    assertTrue(fit.sigma() < 0, "σ " + fit.sigma());
    assertTrue(fit.superlinear());
    String text = ScalingVerdict.of(curve(-0.03, 0.0005, 500, 0, 1, 1, 2, 4, 8, 16, 32), fit, false).text();
    assertTrue(text.contains("superlinear"), text);
  }

  @Test
  void fit_noCoherencyCost_hasNoPeak() {
    UslFit fit = UslFit.fit(curve(0.1, 0, 800, 0, 1, 1, 2, 4, 8, 16, 32));
    assertEquals(0, fit.kappa(), 1e-6);
    assertTrue(fit.peakConcurrency() == null || fit.peakConcurrency() > 1000, "no peak anywhere near the measured levels: " + fit.peakConcurrency());
  }
}
