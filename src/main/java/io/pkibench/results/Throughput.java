package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonIgnore;
import org.apache.commons.math3.distribution.TDistribution;

/**
 * Mean throughput over the measured iterations with the half-width of its 99.9% confidence interval
 * (Student's t, as JMH reports it); {@code ci999} and {@code stdev} are null with a single
 * iteration.
 */
public record Throughput(double mean, Double ci999, Double stdev, int samples, String unit) {
  public static final String OPS_PER_SECOND = "ops/s";

  /**
   * The 99.9% interval is wider than the mean itself: too few or too noisy iterations to bound it.
   */
  @JsonIgnore
  public boolean intervalWiderThanMean() {
    return ci999 != null && ci999 > mean;
  }

  public static Throughput of(double[] perIterationOpsPerSecond) {
    int n = perIterationOpsPerSecond.length;
    if (n == 0) return new Throughput(0, null, null, 0, OPS_PER_SECOND);
    double sum = 0;
    for (double v : perIterationOpsPerSecond) sum += v;
    double mean = sum / n;
    if (n == 1) return new Throughput(mean, null, null, 1, OPS_PER_SECOND);
    double squares = 0;
    for (double v : perIterationOpsPerSecond) squares += (v - mean) * (v - mean);
    double stdev = Math.sqrt(squares / (n - 1));
    double t = new TDistribution(n - 1).inverseCumulativeProbability(1 - 0.001 / 2);
    return new Throughput(mean, t * stdev / Math.sqrt(n), stdev, n, OPS_PER_SECOND);
  }
}
