package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.List;

/**
 * One iteration as kept in the result file; {@code histogram} is the compressed HdrHistogram in
 * base64. Open loop only (null in closed loop): {@code lateStarts}, {@code missedStarts} (scheduled
 * but never started) and {@code uncorrectedHistogram}, the latencies from the actual rather than
 * the scheduled start. A mix's {@code members} split the iteration by member (absent for any other
 * workload). {@code verified}: as {@link Counts#verified()}, absent when no answer was checked.
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
    String uncorrectedHistogram,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<MemberIteration> members,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long verified) {

  public IterationResult {
    errors = List.copyOf(errors);
    members = members == null ? List.of() : List.copyOf(members);
  }

  public IterationResult(
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
    this(
        series,
        index,
        warmup,
        durationNanos,
        started,
        succeeded,
        failed,
        cpuNanos,
        errors,
        histogram,
        lateStarts,
        missedStarts,
        uncorrectedHistogram,
        List.of());
  }

  /** Without {@code verified}: no answer of the iteration was checked. */
  public IterationResult(
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
      String uncorrectedHistogram,
      List<MemberIteration> members) {
    this(
        series,
        index,
        warmup,
        durationNanos,
        started,
        succeeded,
        failed,
        cpuNanos,
        errors,
        histogram,
        lateStarts,
        missedStarts,
        uncorrectedHistogram,
        members,
        null);
  }

  public double opsPerSecond() {
    return durationNanos == 0 ? 0 : succeeded * 1e9 / durationNanos;
  }
}
