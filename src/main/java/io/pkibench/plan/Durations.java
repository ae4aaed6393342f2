package io.pkibench.plan;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The duration syntax of the command line: {@code 500ms}, {@code 10s}, {@code 5m}, {@code 1h}. */
public final class Durations {
  private static final Pattern SYNTAX = Pattern.compile("(\\d+)(ms|s|m|h)");

  private Durations() {}

  public static Duration parse(String text) {
    Matcher m = SYNTAX.matcher(text.trim());
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a duration; write a whole number with a unit: 500ms, 10s, 5m or 1h");
    }
    Duration d;
    try {
      long amount = Long.parseLong(m.group(1));
      d =
          switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
          };
    } catch (NumberFormatException | ArithmeticException e) {
      d = null; // past what a long holds: longer than any run
    }
    if (d == null || d.compareTo(LONGEST) > 0) {
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is longer than "
              + LONGEST.toDays()
              + " days, the longest duration pkibench takes; write e.g. 24h");
    }
    return d;
  }

  /** The longest duration taken: a month of soak, and far from where sums of durations overflow. */
  public static final Duration LONGEST = Duration.ofDays(31);

  /** The shortest exact form in the same syntax, so that {@code parse(format(d)).equals(d)}. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0 && ms > 0) return ms / 3_600_000 + "h";
    if (ms % 60_000 == 0 && ms > 0) return ms / 60_000 + "m";
    if (ms % 1000 == 0) return ms / 1000 + "s";
    return ms + "ms";
  }
}
