package io.pkibench.analysis;

import java.util.List;
import java.util.Locale;
import org.apache.commons.math3.exception.MathIllegalStateException;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresBuilder;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresOptimizer;
import org.apache.commons.math3.fitting.leastsquares.LevenbergMarquardtOptimizer;
import org.apache.commons.math3.fitting.leastsquares.MultivariateJacobianFunction;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.linear.RealVector;
import org.apache.commons.math3.linear.SingularMatrixException;
import org.apache.commons.math3.util.Pair;

/**
 * Gunther's Universal Scalability Law fitted to throughput over concurrency: X(N) = λN / (1 +
 * σ(N−1) + κN(N−1)). σ is contention, κ coherency (crosstalk), λ the single-worker rate. Standard
 * errors come from the fit's covariance scaled by the residual variance; they are null when there
 * are no more levels than parameters.
 *
 * <p>The model means something only with σ, κ ≥ 0 and λ > 0: outside them it predicts negative
 * throughput and negative peaks (three levels fix three parameters exactly, whatever they are: a
 * cold first level once gave a "peak" of −27.8 ops/s). The fit is therefore constrained to them,
 * and where the constrained curve misses the measured throughput by more than {@link #MAX_RMS_MISS}
 * the data do not follow the USL: {@link #attempt} says "no fit" and why, and no peak or curve is
 * drawn.
 */
public record UslFit(
    double sigma,
    double kappa,
    double lambda,
    Double sigmaStdErr,
    Double kappaStdErr,
    Double lambdaStdErr,
    Double peakConcurrency,
    Double peakThroughput,
    int levels,
    boolean weak,
    boolean superlinear,
    double rSquared) {

  /** Below this many levels the fit is made anyway but called weak. */
  public static final int TRUSTWORTHY_LEVELS = 6;

  /**
   * Root-mean-square miss, as a share of the mean measured throughput, beyond which a constrained
   * fit is no fit: iterations of a steady level spread by a few percent, so a curve 10% off is not
   * describing them.
   */
  public static final double MAX_RMS_MISS = 0.10;

  /**
   * A fit, or why the data support none ({@code fit} null, {@code noFitBecause} a clause that
   * follows "No USL fit: ").
   */
  public record Attempt(UslFit fit, String noFitBecause) {}

  /** The fit, or null when the data support none; {@link #attempt} says why. */
  public static UslFit fit(List<LevelPoint> points) {
    return attempt(points).fit();
  }

  public static Attempt attempt(List<LevelPoint> points) {
    int n = points.size();
    if (n < 3) return new Attempt(null, "it needs at least 3 levels");
    double[] ns = new double[n];
    double[] xs = new double[n];
    for (int i = 0; i < n; i++) {
      ns[i] = points.get(i).load();
      xs[i] = points.get(i).throughput();
    }
    LeastSquaresOptimizer.Optimum free;
    try {
      free = solve(ns, xs, false);
    } catch (MathIllegalStateException e) {
      free = null;
    }
    double[] p = free == null ? null : free.getPoint().toArray();
    // The unconstrained optimum, where it lies inside the bounds, is the constrained one too.
    boolean inside =
        p != null && p[0] >= 0 && p[1] >= 0 && p[2] > 0 && Double.isFinite(p[0] + p[1] + p[2]);
    boolean superlinear = p != null && p[0] < 0;
    LeastSquaresOptimizer.Optimum optimum;
    try {
      optimum = inside ? free : solve(ns, xs, true);
    } catch (MathIllegalStateException e) {
      return new Attempt(null, "the fit with σ, κ ≥ 0 did not converge over " + n + " levels");
    }
    double sigma = Math.max(0, optimum.getPoint().getEntry(0));
    double kappa = Math.max(0, optimum.getPoint().getEntry(1));
    double lambda = optimum.getPoint().getEntry(2);

    double mean = 0;
    for (double x : xs) mean += x / n;
    double rss = 0;
    for (int i = 0; i < n; i++) rss += Math.pow(xs[i] - predict(ns[i], sigma, kappa, lambda), 2);
    double miss = mean > 0 ? Math.sqrt(rss / n) / mean : Double.POSITIVE_INFINITY;
    if (!(lambda > 0) || !Double.isFinite(lambda))
      return new Attempt(null, "no positive single-worker rate fits the data");
    if (miss > MAX_RMS_MISS) {
      return new Attempt(
          null,
          String.format(
              Locale.ROOT,
              "the USL with σ, κ ≥ 0 misses the measured throughput by %.0f%% (RMS) over %d levels%s",
              miss * 100,
              n,
              superlinear
                  ? ": it rises faster than linearly between levels (a cold first level, or caches warming up: measure warm)"
                  : ": the levels do not follow one curve (a level still warming up, or noise: measure more or longer iterations)"));
    }

    Double[] stdErr = {null, null, null};
    if (n > 3) {
      try {
        RealMatrix covariance = optimum.getCovariances(1e-14);
        double residualVariance = rss / (n - 3);
        for (int i = 0; i < 3; i++)
          stdErr[i] = Math.sqrt(covariance.getEntry(i, i) * residualVariance);
      } catch (SingularMatrixException e) {
        // A parameter held at its bound (κ = 0: no coherency cost seen) has no spread to estimate:
        // left unknown.
      }
    }
    double tss = 0;
    for (double x : xs) tss += (x - mean) * (x - mean);

    Double peakN = null, peakX = null;
    if (kappa > 0) {
      // With σ ≥ 1 every added worker costs more than it brings: the most is at one worker.
      peakN = sigma < 1 ? Math.max(1, Math.sqrt((1 - sigma) / kappa)) : 1.0;
      peakX = predict(peakN, sigma, kappa, lambda);
    }
    return new Attempt(
        new UslFit(
            sigma,
            kappa,
            lambda,
            stdErr[0],
            stdErr[1],
            stdErr[2],
            peakN,
            peakX,
            n,
            n < TRUSTWORTHY_LEVELS,
            superlinear,
            tss == 0 ? 1 : 1 - rss / tss),
        null);
  }

  /**
   * The least-squares curve without the bounds, which the bounded fit may have replaced: σ < 0 in
   * it means superlinear data.
   */
  public record Unconstrained(double sigma, double kappa, double lambda) {}

  /**
   * The unconstrained optimum over {@code points}, or null when it does not converge or there are
   * fewer than 3 points.
   */
  public static Unconstrained unconstrained(List<LevelPoint> points) {
    int n = points.size();
    if (n < 3) return null;
    double[] ns = new double[n];
    double[] xs = new double[n];
    for (int i = 0; i < n; i++) {
      ns[i] = points.get(i).load();
      xs[i] = points.get(i).throughput();
    }
    try {
      double[] p = solve(ns, xs, false).getPoint().toArray();
      return Double.isFinite(p[0] + p[1] + p[2]) ? new Unconstrained(p[0], p[1], p[2]) : null;
    } catch (MathIllegalStateException e) {
      return null;
    }
  }

  /**
   * Levenberg–Marquardt from a small contention and coherency; {@code bounded} keeps σ, κ ≥ 0 and λ
   * > 0 at every step.
   */
  private static LeastSquaresOptimizer.Optimum solve(double[] ns, double[] xs, boolean bounded) {
    int n = ns.length;
    double lambdaStart = Math.max(xs[0] / ns[0], 1e-9);
    MultivariateJacobianFunction model =
        p -> {
          double s = p.getEntry(0), k = p.getEntry(1), l = p.getEntry(2);
          RealVector value = new ArrayRealVector(n);
          RealMatrix jacobian = new Array2DRowRealMatrix(n, 3);
          for (int i = 0; i < n; i++) {
            double x = ns[i];
            double d = 1 + s * (x - 1) + k * x * (x - 1);
            value.setEntry(i, l * x / d);
            jacobian.setEntry(i, 0, -l * x * (x - 1) / (d * d));
            jacobian.setEntry(i, 1, -l * x * x * (x - 1) / (d * d));
            jacobian.setEntry(i, 2, x / d);
          }
          return new Pair<>(value, jacobian);
        };
    LeastSquaresBuilder builder =
        new LeastSquaresBuilder()
            .start(new double[] {0.01, 0.0001, lambdaStart})
            .model(model)
            .target(xs)
            .maxEvaluations(100_000)
            .maxIterations(100_000);
    if (bounded) {
      builder.parameterValidator(
          p ->
              new ArrayRealVector(
                  new double[] {
                    Math.max(0, p.getEntry(0)),
                    Math.max(0, p.getEntry(1)),
                    Math.max(1e-9 * lambdaStart, p.getEntry(2))
                  }));
    }
    return new LevenbergMarquardtOptimizer().optimize(builder.build());
  }

  public static double predict(double n, double sigma, double kappa, double lambda) {
    return lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
  }

  public double predict(double n) {
    return predict(n, sigma, kappa, lambda);
  }
}
