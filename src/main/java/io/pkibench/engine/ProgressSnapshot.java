package io.pkibench.engine;

/** What the live view shows once a second: the iteration so far, and the rate over the last second. */
public record ProgressSnapshot(
    String workload,
    int concurrency,
    int series,
    int seriesCount,
    boolean warmup,
    int iteration,
    int iterationCount,
    long started,
    long succeeded,
    long failed,
    double recentOpsPerSecond,
    double meanNanos,
    long p99Nanos,
    long maxNanos) {}
