package io.pkibench.engine;

import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * One member of a mix in one iteration: the operations it drew, counted once each as succeeded or
 * failed, the latency of its successes (as the series records it: in open loop from the scheduled
 * start) and its failures by cause.
 */
public record MemberOutcome(
    String label,
    long started,
    long succeeded,
    long failed,
    Histogram latency,
    Map<String, Long> errors) {
  public MemberOutcome {
    errors = Map.copyOf(errors);
    if (started != succeeded + failed) {
      throw new IllegalStateException(
          "counting invariant broken for "
              + label
              + ": started "
              + started
              + " != succeeded "
              + succeeded
              + " + failed "
              + failed);
    }
  }
}
