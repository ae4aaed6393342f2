package io.pkibench.text;

import java.util.Locale;

/**
 * Latencies and rates as a person reads them, in one style wherever they are printed (tables, the
 * progress lines, the report): {@code 812.0 µs}, {@code 1.20 ms}, {@code 2,450}. Here, below every
 * layer that prints, so a progress line and the table beside it cannot disagree on a unit.
 */
public final class Units {
  private Units() {}

  public static String nanos(double nanos) {
    if (nanos < 1_000) return String.format(Locale.ROOT, "%.0f ns", nanos);
    if (nanos < 1_000_000) return String.format(Locale.ROOT, "%.1f µs", nanos / 1e3);
    if (nanos < 1_000_000_000) return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
  }

  public static String rate(double perSecond) {
    return String.format(Locale.ROOT, perSecond >= 100 ? "%,.0f" : "%,.1f", perSecond);
  }
}
