package io.pkibench.engine;

import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What the workers did in one interval of an iteration (about a second; the last one ends with the
 * iteration), as the engine's controller hands it to {@link ProgressListener#interval}: the
 * operations that started, succeeded and failed in it (counts of the interval, not running totals)
 * and the latencies recorded in it.
 *
 * <p>{@code latency} is the engine's own buffer, reused for the next interval: valid during the
 * call only, so a listener that keeps it copies it ({@code latency.copy()}) or adds it into its own
 * histogram.
 *
 * @param startMillis wall clock at the interval's start (epoch milliseconds)
 * @param endMillis wall clock at its end
 * @param targetPerSecond the open loop's scheduled rate (on stages, the timetable's mean over the
 *     interval); {@code NaN} in the closed loop
 * @param activeWorkers the workers serving the series in this interval; on worker stages, those
 *     running operations (not parked) at the interval's end
 * @param stage on stages, the index of the stage the interval lies in (intervals end at stage
 *     boundaries too); -1 else
 * @param targetWorkers on worker stages, the workers the target asks at the interval's end; {@code
 *     NaN} else
 * @param cpuNanos CPU time the run's meter counted in the interval
 * @param members a mix's members in member order, each with its own figures of the interval (empty
 *     for any other workload); their counts add up to the interval's, but for an operation ending
 *     between the two reads
 */
public record IntervalSample(
    SeriesSpec spec,
    boolean warmup,
    int iteration,
    long startMillis,
    long endMillis,
    long started,
    long succeeded,
    long failed,
    Histogram latency,
    double targetPerSecond,
    int activeWorkers,
    int stage,
    double targetWorkers,
    long cpuNanos,
    List<MemberSample> members) {

  public IntervalSample {
    members = members == null ? List.of() : List.copyOf(members);
  }

  /** An interval of a workload that is not a mix. */
  public IntervalSample(
      SeriesSpec spec,
      boolean warmup,
      int iteration,
      long startMillis,
      long endMillis,
      long started,
      long succeeded,
      long failed,
      Histogram latency,
      double targetPerSecond,
      int activeWorkers,
      int stage,
      double targetWorkers,
      long cpuNanos) {
    this(
        spec,
        warmup,
        iteration,
        startMillis,
        endMillis,
        started,
        succeeded,
        failed,
        latency,
        targetPerSecond,
        activeWorkers,
        stage,
        targetWorkers,
        cpuNanos,
        List.of());
  }
}
