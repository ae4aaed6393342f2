package io.pkibench.plan;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Duration;
import java.util.Objects;

/**
 * {@code count} iterations of {@code each} wall-clock time, written on the command line as {@code
 * 5x10s}. A warm-up may run more, up to {@code upTo}, until the cost per operation stops moving:
 * written {@code 2..10x5s} (at least 2, at most 10). A JVM service compiles for tens of seconds
 * under load, and a fixed warm-up either measures the JIT or wastes minutes on a service that was
 * warm after one.
 */
public record Iterations(int count, Duration each, int upTo) {

  public Iterations {
    Objects.requireNonNull(each, "each");
    upTo = Math.max(upTo, count);
  }

  /** Exactly {@code count} iterations. */
  public Iterations(int count, Duration each) {
    this(count, each, count);
  }

  /** Whether more iterations may follow {@code count} until steady. */
  public boolean untilSteady() {
    return upTo > count;
  }

  /**
   * Parses {@code COUNTxDURATION}, e.g. {@code 2x5s}, {@code 5x500ms}; {@code 0x1s} means none.
   * Also how the result file's plan is read back.
   */
  @JsonCreator
  public static Iterations fromText(String text) {
    return parse(text);
  }

  /**
   * Parses {@code COUNTxDURATION}, e.g. {@code 2x5s}, {@code 5x500ms}, or {@code
   * MIN..MAXxDURATION}; {@code 0x1s} means none.
   */
  public static Iterations parse(String text) {
    String t = text.trim();
    int x = t.indexOf('x');
    if (x <= 0) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not COUNTxDURATION; write it like 5x10s or 2x500ms (or 2..10x5s: at least 2, up to 10 until steady)");
    }
    String counts = t.substring(0, x);
    int dots = counts.indexOf("..");
    int count;
    int upTo;
    try {
      count = Integer.parseInt(dots < 0 ? counts : counts.substring(0, dots));
      upTo = dots < 0 ? count : Integer.parseInt(counts.substring(dots + 2));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "': the count before 'x' must be a whole number (5x10s) or a range (2..10x5s)");
    }
    if (upTo < count)
      throw new IllegalArgumentException(
          "'" + text + "': the range runs backwards; write the smaller count first, e.g. 2..10x5s");
    return new Iterations(count, Durations.parse(t.substring(x + 1)), upTo);
  }

  public Duration total() {
    return each.multipliedBy(count);
  }

  @JsonValue
  @Override
  public String toString() {
    return (untilSteady() ? count + ".." + upTo : Integer.toString(count))
        + "x"
        + Durations.format(each);
  }
}
