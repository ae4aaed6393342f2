package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.pkibench.measure.LatencyHistograms;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * A staged level's time series ({@code run --stages}): one point per interval of about a second
 * (intervals also end at the stages' boundaries, so each lies in one stage; the last holds the
 * operations still in flight at the end), and one summary per stage with the histogram its
 * intervals add up to. Times are milliseconds from the stages' start. An operation ending just as
 * an interval is taken may have its count in that interval and its latency in the next: a stage's
 * latency count can differ from its successes by those few; the level's totals are exact.
 *
 * @param stages the stages as written on the command line, e.g. {@code 10s:400/s,30s:400/s,10s:0/s}
 * @param interruptedAtMillis when the run was stopped before the stages' end (ms from their start);
 *     absent when they ran through
 */
public record Timeline(
    String stages,
    List<StageSummary> perStage,
    List<Second> seconds,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long interruptedAtMillis) {

  public Timeline {
    perStage = List.copyOf(perStage);
    seconds = List.copyOf(seconds);
  }

  public Timeline(String stages, List<StageSummary> perStage, List<Second> seconds) {
    this(stages, perStage, seconds, null);
  }

  /**
   * The stages as far as they ran: the run was stopped (SIGTERM, Ctrl-C) or killed at {@code
   * atMillis} from the stages' start, and the seconds, the stages' summaries and the level hold
   * what was measured until then.
   */
  public Timeline interruptedAt(long atMillis) {
    return new Timeline(stages, perStage, seconds, atMillis);
  }

  /**
   * One interval: its counts, its rate of successes, the target (the timetable's mean over it for
   * rate stages, the workers asked at its end for worker stages; the other null), the workers
   * running at its end, its latency percentiles from its own histogram, and the CPU the run's meter
   * counted in it. A mix's {@code members} split it by member (absent for any other workload).
   */
  public record Second(
      long fromMillis,
      long toMillis,
      int stage,
      long started,
      long succeeded,
      long failed,
      double opsPerSecond,
      Double targetPerSecond,
      Double targetWorkers,
      int activeWorkers,
      long p50Nanos,
      long p99Nanos,
      long maxNanos,
      double cpuSeconds,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<MemberSecond> members) {

    public Second {
      members = members == null ? List.of() : List.copyOf(members);
    }

    public Second(
        long fromMillis,
        long toMillis,
        int stage,
        long started,
        long succeeded,
        long failed,
        double opsPerSecond,
        Double targetPerSecond,
        Double targetWorkers,
        int activeWorkers,
        long p50Nanos,
        long p99Nanos,
        long maxNanos,
        double cpuSeconds) {
      this(
          fromMillis,
          toMillis,
          stage,
          started,
          succeeded,
          failed,
          opsPerSecond,
          targetPerSecond,
          targetWorkers,
          activeWorkers,
          p50Nanos,
          p99Nanos,
          maxNanos,
          cpuSeconds,
          List.of());
    }
  }

  /**
   * One member of a mix in one interval: its counts, its rate of successes and its latency
   * percentiles from its own histogram.
   */
  public record MemberSecond(
      String label,
      long started,
      long succeeded,
      long failed,
      double opsPerSecond,
      long p50Nanos,
      long p99Nanos,
      long maxNanos) {}

  /**
   * One member of a mix in one stage: what its intervals counted, its successes over the stage's
   * time, latency from their summed histogram ({@code histogram}, base64). No CPU of its own: one
   * process serves every member at once, and the CPU of a second cannot be split between them.
   */
  public record MemberStage(
      String label,
      Counts counts,
      double achievedPerSecond,
      LatencyNanos latencyNanos,
      String histogram) {
    /** The latencies of the member's successful operations in the stage. */
    public Histogram mergedHistogram() {
      return LatencyHistograms.fromBase64(histogram);
    }
  }

  /**
   * One stage: the target it moves from and to (as written: {@code 400/s} or {@code 64}), its time,
   * what its intervals counted, the rate achieved over the stage's time beside its mean target,
   * latency from their summed histogram ({@code histogram}, base64 as an iteration's), and its CPU;
   * a mix's {@code members} split it by member (absent for any other workload).
   */
  public record StageSummary(
      int stage,
      String target,
      double fromTarget,
      double toTarget,
      long fromMillis,
      long toMillis,
      Counts counts,
      double achievedPerSecond,
      Double targetPerSecond,
      Double targetWorkers,
      LatencyNanos latencyNanos,
      double cpuSeconds,
      Double opsPerCpuSecond,
      String histogram,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<MemberStage> members) {

    public StageSummary {
      members = members == null ? List.of() : List.copyOf(members);
    }

    public StageSummary(
        int stage,
        String target,
        double fromTarget,
        double toTarget,
        long fromMillis,
        long toMillis,
        Counts counts,
        double achievedPerSecond,
        Double targetPerSecond,
        Double targetWorkers,
        LatencyNanos latencyNanos,
        double cpuSeconds,
        Double opsPerCpuSecond,
        String histogram) {
      this(
          stage,
          target,
          fromTarget,
          toTarget,
          fromMillis,
          toMillis,
          counts,
          achievedPerSecond,
          targetPerSecond,
          targetWorkers,
          latencyNanos,
          cpuSeconds,
          opsPerCpuSecond,
          histogram,
          List.of());
    }

    /** The latencies of the stage's successful operations. */
    public Histogram mergedHistogram() {
      return LatencyHistograms.fromBase64(histogram);
    }

    /** What compare matches stages by: the index and the target, e.g. {@code stage 2 (→ 400/s)}. */
    @JsonIgnore
    public String label() {
      return "stage " + (stage + 1) + " (→ " + target + ")";
    }
  }
}
