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

  public static Builder builder() {
    return new Builder();
  }

  /**
   * An iteration by name, component by component: fifteen positional components, adjacent longs
   * among them, are easy to swap. Unset: no errors, no open-loop figures, no members, not checked.
   */
  public static final class Builder {
    private int series;
    private int index;
    private boolean warmup;
    private long durationNanos;
    private long started;
    private long succeeded;
    private long failed;
    private long cpuNanos;
    private List<ErrorCount> errors = List.of();
    private String histogram;
    private Long lateStarts;
    private Long missedStarts;
    private String uncorrectedHistogram;
    private List<MemberIteration> members = List.of();
    private Long verified;

    private Builder() {}

    public Builder series(int series) {
      this.series = series;
      return this;
    }

    public Builder index(int index) {
      this.index = index;
      return this;
    }

    public Builder warmup(boolean warmup) {
      this.warmup = warmup;
      return this;
    }

    public Builder durationNanos(long durationNanos) {
      this.durationNanos = durationNanos;
      return this;
    }

    public Builder started(long started) {
      this.started = started;
      return this;
    }

    public Builder succeeded(long succeeded) {
      this.succeeded = succeeded;
      return this;
    }

    public Builder failed(long failed) {
      this.failed = failed;
      return this;
    }

    public Builder cpuNanos(long cpuNanos) {
      this.cpuNanos = cpuNanos;
      return this;
    }

    public Builder errors(List<ErrorCount> errors) {
      this.errors = errors;
      return this;
    }

    public Builder histogram(String histogram) {
      this.histogram = histogram;
      return this;
    }

    public Builder lateStarts(Long lateStarts) {
      this.lateStarts = lateStarts;
      return this;
    }

    public Builder missedStarts(Long missedStarts) {
      this.missedStarts = missedStarts;
      return this;
    }

    public Builder uncorrectedHistogram(String uncorrectedHistogram) {
      this.uncorrectedHistogram = uncorrectedHistogram;
      return this;
    }

    public Builder members(List<MemberIteration> members) {
      this.members = members;
      return this;
    }

    public Builder verified(Long verified) {
      this.verified = verified;
      return this;
    }

    public IterationResult build() {
      return new IterationResult(
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
          verified);
    }
  }

  public double opsPerSecond() {
    return durationNanos == 0 ? 0 : succeeded * 1e9 / durationNanos;
  }
}
