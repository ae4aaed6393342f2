package io.pkibench.analysis;

import java.util.List;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresBuilder;
import org.apache.commons.math3.fitting.leastsquares.LeastSquaresOptimizer;
import org.apache.commons.math3.fitting.leastsquares.LevenbergMarquardtOptimizer;
import org.apache.commons.math3.fitting.leastsquares.MultivariateJacobianFunction;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.ArrayRealVector;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.linear.RealVector;
import org.apache.commons.math3.util.Pair;

/**
 * Gunther's Universal Scalability Law fitted to throughput over concurrency:
 * X(N) = λN / (1 + σ(N−1) + κN(N−1)). σ is contention, κ coherency (crosstalk), λ the single-worker
 * rate. Standard errors come from the fit's covariance scaled by the residual variance; they are null
 * when there are no more levels than parameters.
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

  /** Null when there are fewer than 3 levels: three parameters need at least three points. */
  public static UslFit fit(List<LevelPoint> points) {
    int n = points.size();
    if (n < 3) return null;
    double[] ns = new double[n];
    double[] xs = new double[n];
    for (int i = 0; i < n; i++) {
      ns[i] = points.get(i).load();
      xs[i] = points.get(i).throughput();
    }
    double lambdaStart = xs[0] / ns[0];
    MultivariateJacobianFunction model = p -> {
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
    LeastSquaresOptimizer.Optimum optimum = new LevenbergMarquardtOptimizer().optimize(new LeastSquaresBuilder()
        .start(new double[] {0.01, 0.0001, lambdaStart})
        .model(model)
        .target(xs)
        .maxEvaluations(100_000)
        .maxIterations(100_000)
        .build());
    double sigma = optimum.getPoint().getEntry(0);
    double kappa = optimum.getPoint().getEntry(1);
    double lambda = optimum.getPoint().getEntry(2);

    double rss = optimum.getResiduals().dotProduct(optimum.getResiduals());
    Double[] stdErr = {null, null, null};
    if (n > 3) {
      RealMatrix covariance = optimum.getCovariances(1e-14);
      double residualVariance = rss / (n - 3);
      for (int i = 0; i < 3; i++) stdErr[i] = Math.sqrt(covariance.getEntry(i, i) * residualVariance);
    }
    double mean = 0;
    for (double x : xs) mean += x / n;
    double tss = 0;
    for (double x : xs) tss += (x - mean) * (x - mean);

    Double peakN = null, peakX = null;
    if (kappa > 0 && sigma < 1) {
      peakN = Math.sqrt((1 - sigma) / kappa);
      peakX = predict(peakN, sigma, kappa, lambda);
    }
    return new UslFit(sigma, kappa, lambda, stdErr[0], stdErr[1], stdErr[2], peakN, peakX, n,
        n < TRUSTWORTHY_LEVELS, sigma < 0, tss == 0 ? 1 : 1 - rss / tss);
  }

  public static double predict(double n, double sigma, double kappa, double lambda) {
    return lambda * n / (1 + sigma * (n - 1) + kappa * n * (n - 1));
  }

  public double predict(double n) {
    return predict(n, sigma, kappa, lambda);
  }
}
