package io.pkibench.metrics;

/**
 * One series' running totals at a push: operations that succeeded and failed, the latency buckets
 * (cumulative, the last being every success) with their sum, and the last interval's gauges. {@code
 * live}: an interval arrived since the previous snapshot, so the gauges describe now; a series no
 * longer live has its gauges ended rather than repeated. {@code counters}/{@code gauges}: which of
 * the two the series sends (a mix member's: its counts; the mix's own: its gauges).
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
    boolean live,
    boolean counters,
    boolean gauges) {

  /** A series with both its counts and its gauges (any workload but a mix). */
  public SeriesFigures(
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
    this(
        key,
        succeeded,
        failed,
        cumulativeBuckets,
        latencySumSeconds,
        maxLatencySeconds,
        targetPerSecond,
        achievedPerSecond,
        activeWorkers,
        live,
        true,
        true);
  }

  /** The same totals, no longer live: what a series that had no interval since is. */
  public SeriesFigures quiet() {
    return live
        ? new SeriesFigures(
            key,
            succeeded,
            failed,
            cumulativeBuckets,
            latencySumSeconds,
            maxLatencySeconds,
            targetPerSecond,
            achievedPerSecond,
            activeWorkers,
            false,
            counters,
            gauges)
        : this;
  }

  public long latencyCount() {
    return cumulativeBuckets[cumulativeBuckets.length - 1];
  }
}
