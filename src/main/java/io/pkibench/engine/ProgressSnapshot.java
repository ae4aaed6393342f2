package io.pkibench.engine;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the live view shows once a second: the iteration so far, the rate over the last second, and
 * the workload's own live figures ({@code LiveCounts}: connections open and failed), empty for
 * most.
 */
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
    long maxNanos,
    Map<String, Long> liveCounts) {
  public ProgressSnapshot {
    liveCounts =
        liveCounts == null
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(liveCounts));
  }
}
