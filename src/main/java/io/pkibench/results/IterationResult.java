package io.pkibench.results;

import java.util.List;

/**
 * One iteration as kept in the result file; {@code histogram} is the compressed HdrHistogram in
 * base64. Open loop only (null in closed loop): {@code lateStarts}, {@code missedStarts} (scheduled
 * but never started) and {@code uncorrectedHistogram}, the latencies from the actual rather than the
 * scheduled start.
 */
public record IterationResult(
    int series,
    int index,
    boolean warmup,
    long durationNanos,
    long started,
    long succeeded,
    long failed,
    long cpuNanos,
    List<ErrorCount> errors,
    String histogram,
    Long lateStarts,
    Long missedStarts,
    String uncorrectedHistogram) {

  public IterationResult {
    errors = List.copyOf(errors);
  }

  public double opsPerSecond() {
    return durationNanos == 0 ? 0 : succeeded * 1e9 / durationNanos;
  }
}
