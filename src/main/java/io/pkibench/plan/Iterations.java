package io.pkibench.plan;

import java.time.Duration;
import java.util.Objects;

/** {@code count} iterations of {@code each} wall-clock time, written on the command line as {@code 5x10s}. */
public record Iterations(int count, Duration each) {

  public Iterations {
    Objects.requireNonNull(each, "each");
  }

  /** Parses {@code COUNTxDURATION}, e.g. {@code 2x5s}, {@code 5x500ms}; {@code 0x1s} means none. Also how the result file's plan is read back. */
  @com.fasterxml.jackson.annotation.JsonCreator
  public static Iterations fromText(String text) {
    return parse(text);
  }

  /** Parses {@code COUNTxDURATION}, e.g. {@code 2x5s}, {@code 5x500ms}; {@code 0x1s} means none. */
  public static Iterations parse(String text) {
    String t = text.trim();
    int x = t.indexOf('x');
    if (x <= 0) {
      throw new IllegalArgumentException(
          "'" + text + "' is not COUNTxDURATION; write it like 5x10s or 2x500ms");
    }
    int count;
    try {
      count = Integer.parseInt(t.substring(0, x));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "'" + text + "': the count before 'x' must be a whole number, like 5x10s");
    }
    return new Iterations(count, Durations.parse(t.substring(x + 1)));
  }

  public Duration total() {
    return each.multipliedBy(count);
  }

  @com.fasterxml.jackson.annotation.JsonValue
  @Override
  public String toString() {
    return count + "x" + Durations.format(each);
  }
}
