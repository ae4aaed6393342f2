package io.pkibench.metrics;

/**
 * One series' running totals at a push: operations that succeeded and failed, the latency buckets (cumulative, the last
 * being every success) with their sum, and the last interval's gauges. {@code live}: an interval arrived since the
 * previous snapshot, so the gauges describe now; a series no longer live has its gauges ended rather than repeated.
 */
public record SeriesFigures(
    SeriesKey key,
    long succeeded,
    long failed,
    long[] cumulativeBuckets,
    double latencySumSeconds,
    double maxLatencySeconds,
    double targetPerSecond,
    double achievedPerSecond,
    int activeWorkers,
    boolean live) {

  public long latencyCount() {
    return cumulativeBuckets[cumulativeBuckets.length - 1];
  }
}
