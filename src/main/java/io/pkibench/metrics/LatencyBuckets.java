package io.pkibench.metrics;

import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * The fixed {@code le} buckets a live histogram exports, filled from the engine's HdrHistogram
 * intervals: from 50 µs (an in-memory ECDSA signature) to 30 s (a hung service), roughly 1-2.5-5
 * per decade, so histogram_quantile interpolates within a bucket whose width is at most 2.5 times
 * its floor. The exact percentiles stay in the result file.
 */
public final class LatencyBuckets {
  /** Upper bounds, inclusive, in nanoseconds; one more bucket (+Inf) follows the last. */
  static final long[] BOUNDS_NANOS = {
    50_000,
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_500_000,
    5_000_000,
    10_000_000,
    25_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    1_000_000_000L,
    2_500_000_000L,
    5_000_000_000L,
    10_000_000_000L,
    30_000_000_000L
  };

  /** The bounds as Prometheus writes an {@code le} label (shortest decimal of the seconds). */
  static final String[] LE = {
    "5e-05", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05",
    "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "30"
  };

  private LatencyBuckets() {}

  public static int count() {
    return BOUNDS_NANOS.length + 1;
  }

  /** The bounds in seconds, as OpenTelemetry's explicit-bucket histogram takes them. */
  public static List<Double> boundsSeconds() {
    List<Double> seconds = new ArrayList<>();
    for (long b : BOUNDS_NANOS) seconds.add(b / 1e9);
    return seconds;
  }

  /**
   * Adds each recorded value of {@code interval} to its bucket (not cumulative; the last is +Inf)
   * and returns the sum of the values in nanoseconds. A value goes by the lowest value HdrHistogram
   * holds equivalent to it, so a latency recorded exactly at a bound counts in that bound's bucket,
   * as {@code le} means; beside it a bucket may take values up to HdrHistogram's precision (0.1%)
   * above its bound.
   *
   * <p>Called once per push on the exporter's thread, for the latencies since the last one: it
   * steps from the smallest value recorded to the largest, one equivalent range at a time, with
   * HdrHistogram's value arithmetic, where its recorded-values iterator (built for reports) did
   * several times the work per step over the same ten thousand ranges of a millisecond-wide
   * histogram.
   */
  static double addInto(Histogram interval, long[] buckets) {
    if (interval.getTotalCount() == 0) return 0;
    double sumNanos = 0;
    long max = interval.getMaxValue();
    int b = 0;
    for (long value = interval.getMinValue();
        value <= max;
        value = interval.nextNonEquivalentValue(value)) {
      long n = interval.getCountAtValue(value);
      if (n == 0) continue;
      long lowest = interval.lowestEquivalentValue(value);
      while (b < BOUNDS_NANOS.length && lowest > BOUNDS_NANOS[b])
        b++; // values ascend: the bucket only moves up
      buckets[b] += n;
      sumNanos += (double) interval.medianEquivalentValue(value) * n;
    }
    return sumNanos;
  }
}
