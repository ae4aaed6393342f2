package io.pkibench.workload.pec;

import io.pkibench.plan.Durations;
import java.time.Duration;
import java.util.SplittableRandom;

/**
 * The pause a user takes before each message, drawn uniformly from {@code min..max}: OpenPEC's
 * reliability test sent its mail with 1 to 15 s pauses between sends ({@code 1s..15s}). At most a
 * minute, so that an operation still ends well within the engine's wait for a hung one.
 */
public record PauseRange(Duration min, Duration max) {
  public static final Duration LONGEST = Duration.ofMinutes(1);

  public PauseRange {
    if (min.isNegative() || max.compareTo(min) < 0 || max.compareTo(LONGEST) > 0) {
      throw new IllegalArgumentException(
          "a range from 0 s up to 1m, the shorter first, like 1s..15s");
    }
  }

  /**
   * {@code 1s..15s}, or one duration ({@code 5s}) for a fixed pause; the message says what is
   * allowed.
   */
  public static PauseRange parse(String text) {
    String[] parts = text.split("\\.\\.", -1);
    if (parts.length > 2)
      throw new IllegalArgumentException("'" + text + "': write a range like 1s..15s");
    Duration lo = Durations.parse(parts[0].strip()); // its message names the part and the syntax
    Duration hi = parts.length == 2 ? Durations.parse(parts[1].strip()) : lo;
    try {
      return new PauseRange(lo, hi);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + text + "': write " + e.getMessage());
    }
  }

  public long drawNanos(SplittableRandom random) {
    long lo = min.toNanos(), hi = max.toNanos();
    return lo == hi ? lo : random.nextLong(lo, hi + 1);
  }

  @Override
  public String toString() {
    return Durations.format(min) + ".." + Durations.format(max);
  }
}
