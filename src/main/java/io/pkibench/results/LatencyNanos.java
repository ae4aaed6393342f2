package io.pkibench.results;

import org.HdrHistogram.Histogram;

/** Latency of the successful operations, in nanoseconds, read from a merged histogram. */
public record LatencyNanos(
    long count, double mean, double stdev, long p50, long p90, long p99, long p999, long max) {

  public static LatencyNanos of(Histogram h) {
    if (h.getTotalCount() == 0) return new LatencyNanos(0, 0, 0, 0, 0, 0, 0, 0);
    return new LatencyNanos(
        h.getTotalCount(),
        h.getMean(),
        h.getStdDeviation(),
        h.getValueAtPercentile(50),
        h.getValueAtPercentile(90),
        h.getValueAtPercentile(99),
        h.getValueAtPercentile(99.9),
        h.getMaxValue());
  }
}
