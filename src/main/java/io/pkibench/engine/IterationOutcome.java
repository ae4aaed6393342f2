package io.pkibench.engine;

import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One iteration as measured: every operation started in it is counted once, as succeeded or failed;
 * {@code latency} holds the successful operations, in nanoseconds (in open loop from the scheduled
 * start); {@code errors} groups the failures by cause. Open loop only: {@code uncorrected} (from
 * the actual start, null in closed loop), {@code lateStarts} (more than 1 ms after their scheduled
 * time) and {@code missedStarts} (scheduled within the iteration but never started: the workers
 * were busy). A mix's {@code members} split the iteration's operations by member (empty for any
 * other workload). {@code verified}: of the succeeded, those whose answer was checked; null when
 * the operations do not check answers.
 */
public record IterationOutcome(
    int series,
    int index,
    boolean warmup,
    long durationNanos,
    long started,
    long succeeded,
    long failed,
    long cpuNanos,
    Histogram latency,
    Histogram uncorrected,
    long lateStarts,
    long missedStarts,
    Map<String, Long> errors,
    List<MemberOutcome> members,
    Long verified) {

  public IterationOutcome withMembers(List<MemberOutcome> newMembers) {
    return new IterationOutcome(
        series,
        index,
        warmup,
        durationNanos,
        started,
        succeeded,
        failed,
        cpuNanos,
        latency,
        uncorrected,
        lateStarts,
        missedStarts,
        errors,
        newMembers,
        verified);
  }

  public IterationOutcome {
    errors = Map.copyOf(errors);
    members = members == null ? List.of() : List.copyOf(members);
    if (started != succeeded + failed) {
      throw new IllegalStateException(
          "counting invariant broken: started "
              + started
              + " != succeeded "
              + succeeded
              + " + failed "
              + failed);
    }
  }

  public double opsPerSecond() {
    return succeeded * 1e9 / durationNanos;
  }
}
