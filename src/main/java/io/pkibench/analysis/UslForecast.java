package io.pkibench.analysis;

import java.util.List;
import java.util.Locale;
import java.util.function.DoubleUnaryOperator;
import java.util.function.ToDoubleFunction;
import org.apache.commons.math3.distribution.TDistribution;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.LUDecomposition;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.linear.RealVector;
import org.apache.commons.math3.linear.SingularMatrixException;

/**
 * How far a {@link UslFit} can be trusted: intervals for σ, κ, λ and for the peak (N_max, X_max),
 * and predictions of throughput at a concurrency, each with its interval. The fit is the one every
 * run and study uses ({@link UslFit#attempt}); the intervals come from the usual linearisation of
 * least squares: the parameters' covariance is s²(JᵀJ)⁻¹ at the fitted point (J the model's
 * Jacobian, s² the residual variance over n − 3 degrees of freedom), a derived quantity's variance
 * is gᵀΣg (g its gradient: the delta method), and the bounds are Student's t with n − 3 degrees of
 * freedom.
 *
 * <p>A prediction's interval is for a <em>measurement</em> at that concurrency (the curve's own
 * uncertainty plus the scatter the measured points showed), since that is what a user will compare
 * it with. Past the measured range that linearisation is the only honesty the model has, and it is
 * not enough far out: the coherency term κ, which decides where the curve turns, is barely pinned
 * by points well before the turn (on Schwartz's 32-point benchmark a fit on the first 10 points
 * over-predicts the 32nd by about a quarter, far outside its interval). So a prediction more than
 * {@link #FARTHEST_EXTRAPOLATION}× the largest fitted concurrency is declined, saying why, rather
 * than given.
 */
public final class UslForecast {
  /** Predictions farther than this multiple of the largest fitted concurrency are declined. */
  public static final double FARTHEST_EXTRAPOLATION = 2.0;

  /**
   * A quantity and its interval; {@code low}/{@code high} null when the data cannot give one (as
   * many points as parameters).
   */
  public record Estimate(double value, Double low, Double high) {}

  /**
   * Throughput predicted at concurrency {@code n}: {@code x} with its interval, {@code
   * extrapolated} past the largest fitted concurrency; {@code declined} says why no figure is given
   * (then {@code x}, {@code low}, {@code high} are null).
   */
  public record Prediction(
      double n, Double x, Double low, Double high, boolean extrapolated, String declined) {}

  /**
   * The concurrency at which throughput reaches {@code rate}, with its range from the prediction
   * band; {@code text} says it in words, including when no concurrency reaches the rate.
   */
  public record ConcurrencyFor(
      double rate,
      Double concurrency,
      Double low,
      Double high,
      boolean extrapolated,
      String text) {}

  private final UslFit fit;
  private final double[] loads;
  private final double[] throughputs;
  private final double largestLoad;
  private final double confidence;
  private final int degreesOfFreedom;
  private final double residualStdErr;
  private final RealMatrix
      covariance; // σ, κ, λ; null when there are no spare degrees of freedom or JᵀJ is singular
  private final double t;

  private UslForecast(UslFit fit, List<LevelPoint> points, double confidence) {
    this.fit = fit;
    this.confidence = confidence;
    int n = points.size();
    loads = new double[n];
    throughputs = new double[n];
    double largest = 0;
    for (int i = 0; i < n; i++) {
      loads[i] = points.get(i).load();
      throughputs[i] = points.get(i).throughput();
      largest = Math.max(largest, loads[i]);
    }
    largestLoad = largest;
    degreesOfFreedom = n - 3;
    double rss = 0;
    for (int i = 0; i < n; i++) rss += Math.pow(throughputs[i] - fit.predict(loads[i]), 2);
    residualStdErr = degreesOfFreedom > 0 ? Math.sqrt(rss / degreesOfFreedom) : 0;
    RealMatrix cov = null;
    if (degreesOfFreedom > 0) {
      RealMatrix jacobian = new Array2DRowRealMatrix(n, 3);
      for (int i = 0; i < n; i++)
        jacobian.setRow(i, gradient(loads[i], fit.sigma(), fit.kappa(), fit.lambda()));
      try {
        cov =
            new LUDecomposition(jacobian.transpose().multiply(jacobian))
                .getSolver()
                .getInverse()
                .scalarMultiply(residualStdErr * residualStdErr);
      } catch (SingularMatrixException e) {
        cov = null; // the levels cannot separate the parameters (all at one concurrency, say): no
        // intervals
      }
    }
    covariance = cov;
    t =
        degreesOfFreedom > 0
            ? new TDistribution(degreesOfFreedom)
                .inverseCumulativeProbability(1 - (1 - confidence) / 2)
            : Double.NaN;
  }

  /**
   * The forecast from {@code points}' fit, or why there is none ({@code forecast} null, {@code
   * noFitBecause} as {@link UslFit.Attempt} says).
   */
  public record Attempt(UslForecast forecast, String noFitBecause) {}

  /** {@code confidence} between 0 and 1 (0.95 for 95% intervals). */
  public static Attempt of(List<LevelPoint> points, double confidence) {
    if (!(confidence > 0 && confidence < 1))
      throw new IllegalArgumentException("confidence must lie between 0 and 1, was " + confidence);
    UslFit.Attempt attempt = UslFit.attempt(points);
    if (attempt.fit() == null) return new Attempt(null, attempt.noFitBecause());
    return new Attempt(new UslForecast(attempt.fit(), points, confidence), null);
  }

  public UslFit fit() {
    return fit;
  }

  public double confidence() {
    return confidence;
  }

  public int points() {
    return loads.length;
  }

  public double largestLoad() {
    return largestLoad;
  }

  /** The residual standard error s: how far, typically, a measured point lay from the curve. */
  public double residualStdErr() {
    return residualStdErr;
  }

  /**
   * True when the data leave spare degrees of freedom and separate the parameters, so that
   * intervals exist.
   */
  public boolean hasIntervals() {
    return covariance != null;
  }

  /** σ with its interval, never below 0 (the fit holds σ ≥ 0). */
  public Estimate sigma() {
    return parameter(0, fit.sigma());
  }

  /** κ with its interval, never below 0. */
  public Estimate kappa() {
    return parameter(1, fit.kappa());
  }

  public Estimate lambda() {
    return parameter(2, fit.lambda());
  }

  /**
   * The concurrency of peak throughput, √((1 − σ)/κ); null when the curve has no peak (κ = 0 or σ ≥
   * 1).
   */
  public Estimate peakConcurrency() {
    if (!(fit.kappa() > 0) || fit.sigma() >= 1) return null;
    return derived(
        UslForecast::peakLoad, peakLoad(new double[] {fit.sigma(), fit.kappa(), fit.lambda()}), 1);
  }

  /** The peak throughput X(N_max); null when the curve has no peak. */
  public Estimate peakThroughput() {
    if (!(fit.kappa() > 0) || fit.sigma() >= 1) return null;
    return derived(
        p -> UslFit.predict(peakLoad(p), p[0], p[1], p[2]),
        UslFit.predict(
            peakLoad(new double[] {fit.sigma(), fit.kappa(), fit.lambda()}),
            fit.sigma(),
            fit.kappa(),
            fit.lambda()),
        0);
  }

  /**
   * Throughput at concurrency {@code n} with the interval a measurement there would fall in, or
   * declined past 2× the fitted range.
   */
  public Prediction predict(double n) {
    boolean extrapolated = n > largestLoad;
    if (n > FARTHEST_EXTRAPOLATION * largestLoad) {
      return new Prediction(
          n,
          null,
          null,
          null,
          true,
          String.format(
              Locale.ROOT,
              "concurrency %s is more than %s× the largest fitted (%s): the coherency term that bends the curve is barely pinned"
                  + " there, so no honest interval exists; measure up to %s (or at least %s) and fit again",
              TrimmedNumber.of(n, 1),
              TrimmedNumber.of(FARTHEST_EXTRAPOLATION, 1),
              TrimmedNumber.of(largestLoad, 1),
              TrimmedNumber.of(n, 1),
              TrimmedNumber.of(Math.ceil(n / FARTHEST_EXTRAPOLATION), 1)));
    }
    double x = fit.predict(n);
    Double halfWidth = predictionHalfWidth(n);
    return new Prediction(
        n,
        x,
        halfWidth == null ? null : Math.max(0, x - halfWidth),
        halfWidth == null ? null : x + halfWidth,
        extrapolated,
        null);
  }

  /**
   * The smallest concurrency at which the curve reaches {@code rate}, with the range the prediction
   * band allows.
   */
  public ConcurrencyFor concurrencyFor(double rate) {
    if (!(rate > 0)) throw new IllegalArgumentException("the rate must be positive, was " + rate);
    double s = fit.sigma(), k = fit.kappa(), l = fit.lambda();
    Double ceiling =
        k > 0 && s < 1 ? fit.predict(peakLoad(new double[] {s, k, l})) : s > 0 ? l / s : null;
    if (ceiling != null && rate >= ceiling) {
      String most =
          k > 0
              ? String.format(
                  Locale.ROOT,
                  "its peak is %s ops/s at concurrency %s",
                  TrimmedNumber.of(ceiling, 1),
                  TrimmedNumber.of(peakLoad(new double[] {s, k, l}), 1))
              : String.format(
                  Locale.ROOT,
                  "it approaches %s ops/s and never passes it",
                  TrimmedNumber.of(ceiling, 1));
      return new ConcurrencyFor(
          rate,
          null,
          null,
          null,
          false,
          String.format(
              Locale.ROOT,
              "no concurrency reaches %s ops/s on one such system: %s; spread the load over at least %d of them",
              TrimmedNumber.of(rate, 1),
              most,
              (long) Math.ceil(rate / ceiling)));
    }
    double upper =
        k > 0 && s < 1 ? peakLoad(new double[] {s, k, l}) : Math.max(largestLoad * 1e6, 1e9);
    double n = solveRising(fit::predict, rate, upper);
    if (n > FARTHEST_EXTRAPOLATION * largestLoad) {
      return new ConcurrencyFor(
          rate,
          null,
          null,
          null,
          true,
          String.format(
              Locale.ROOT,
              "the curve reaches %s ops/s only at concurrency %s, more than %s× the largest fitted (%s): too far to trust; measure nearer it",
              TrimmedNumber.of(rate, 1),
              TrimmedNumber.of(n, 1),
              TrimmedNumber.of(FARTHEST_EXTRAPOLATION, 1),
              TrimmedNumber.of(largestLoad, 1)));
    }
    Double low = null, high = null;
    if (hasIntervals()) {
      // The band's upper edge reaches the rate first (the fewest workers it may take), its lower
      // edge last; the edges
      // need not rise everywhere (the band widens past the data), so each is searched outward, no
      // farther than predictions go.
      double farthest = Math.min(upper, FARTHEST_EXTRAPOLATION * largestLoad);
      low = firstReaching(m -> fit.predict(m) + predictionHalfWidth(m), rate, farthest);
      high = firstReaching(m -> fit.predict(m) - predictionHalfWidth(m), rate, farthest);
    }
    boolean extrapolated = n > largestLoad;
    String range =
        !hasIntervals()
            ? " (no interval: as many points as parameters)"
            : high == null
                ? String.format(
                    Locale.ROOT,
                    " (%.0f%%: from %s; the band's lower edge does not reach it within %s× the fitted range, so no upper bound)",
                    confidence * 100,
                    TrimmedNumber.of(low, 1),
                    TrimmedNumber.of(FARTHEST_EXTRAPOLATION, 1))
                : String.format(
                    Locale.ROOT,
                    " (%.0f%%: %s to %s)",
                    confidence * 100,
                    TrimmedNumber.of(low, 1),
                    TrimmedNumber.of(high, 1));
    return new ConcurrencyFor(
        rate,
        n,
        low,
        high,
        extrapolated,
        String.format(
            Locale.ROOT,
            "%s ops/s needs concurrency %s%s%s",
            TrimmedNumber.of(rate, 1),
            TrimmedNumber.of(n, 1),
            range,
            extrapolated
                ? ", past the largest fitted (" + TrimmedNumber.of(largestLoad, 1) + ")"
                : ""));
  }

  /**
   * The least x in (0, limit] with f(x) ≥ rate, found by stepping out then bisecting the step that
   * crossed; null when none.
   */
  private static Double firstReaching(DoubleUnaryOperator f, double rate, double limit) {
    int steps = 4_000;
    double before = 0;
    for (int i = 1; i <= steps; i++) {
      double x = limit * i / steps;
      if (f.applyAsDouble(x) >= rate) {
        double lo = before, hi = x;
        for (int k = 0; k < 100 && hi - lo > 1e-9 * Math.max(1, hi); k++) {
          double mid = (lo + hi) / 2;
          if (f.applyAsDouble(mid) >= rate) hi = mid;
          else lo = mid;
        }
        return hi;
      }
      before = x;
    }
    return null;
  }

  /** The least x in (0, upper] with f(x) ≥ rate, by bisection; f rises on that range. */
  private static double solveRising(DoubleUnaryOperator f, double rate, double upper) {
    double lo = 0, hi = upper;
    if (f.applyAsDouble(hi) < rate) return hi;
    for (int i = 0; i < 200 && hi - lo > 1e-9 * Math.max(1, hi); i++) {
      double mid = (lo + hi) / 2;
      if (f.applyAsDouble(mid) >= rate) hi = mid;
      else lo = mid;
    }
    return hi;
  }

  private Double predictionHalfWidth(double n) {
    if (covariance == null) return null;
    RealVector g = new ArrayRealVector(gradient(n, fit.sigma(), fit.kappa(), fit.lambda()));
    double curveVariance = g.dotProduct(covariance.operate(g));
    return t * Math.sqrt(Math.max(0, curveVariance) + residualStdErr * residualStdErr);
  }

  private Estimate parameter(int index, double value) {
    if (covariance == null) return new Estimate(value, null, null);
    double half = t * Math.sqrt(Math.max(0, covariance.getEntry(index, index)));
    return new Estimate(value, Math.max(0, value - half), value + half);
  }

  /** A function of (σ, κ, λ) with its delta-method interval, its low end held at {@code floor}. */
  private Estimate derived(ToDoubleFunction<double[]> f, double value, double floor) {
    if (covariance == null) return new Estimate(value, null, null);
    double[] p = {fit.sigma(), fit.kappa(), fit.lambda()};
    double[] g = new double[3];
    for (int i = 0; i < 3; i++) {
      double h = Math.max(Math.abs(p[i]) * 1e-6, 1e-12);
      double[] up = p.clone(), down = p.clone();
      up[i] += h;
      down[i] = Math.max(0, down[i] - h);
      g[i] = (f.applyAsDouble(up) - f.applyAsDouble(down)) / (up[i] - down[i]);
    }
    RealVector gv = new ArrayRealVector(g);
    double half = t * Math.sqrt(Math.max(0, gv.dotProduct(covariance.operate(gv))));
    return new Estimate(value, Math.max(floor, value - half), value + half);
  }

  private static double peakLoad(double[] p) {
    return Math.max(1, Math.sqrt((1 - p[0]) / p[1]));
  }

  /** ∂X/∂(σ, κ, λ) at concurrency n. */
  static double[] gradient(double n, double sigma, double kappa, double lambda) {
    double d = 1 + sigma * (n - 1) + kappa * n * (n - 1);
    return new double[] {
      -lambda * n * (n - 1) / (d * d), -lambda * n * n * (n - 1) / (d * d), n / d
    };
  }
}
