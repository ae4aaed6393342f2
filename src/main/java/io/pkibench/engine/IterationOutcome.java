package io.pkibench.engine;

import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One iteration as measured: every operation started in it is counted once, as succeeded or failed;
 * {@code latency} holds the successful operations, in nanoseconds; {@code errors} groups the failures by cause.
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
    Map<String, Long> errors) {

  public IterationOutcome {
    errors = Map.copyOf(errors);
    if (started != succeeded + failed) {
      throw new IllegalStateException(
          "counting invariant broken: started " + started + " != succeeded " + succeeded + " + failed " + failed);
    }
  }

  public double opsPerSecond() {
    return succeeded * 1e9 / durationNanos;
  }
}
