package io.pkibench.report;

import java.util.Locale;

/** Numbers as a person reads them in a table: {@code 812 µs}, {@code 1.20 ms}, {@code 2,450.1}. */
public final class HumanUnits {
  private HumanUnits() {}

  public static String nanos(double nanos) {
    if (nanos < 1_000) return String.format(Locale.ROOT, "%.0f ns", nanos);
    if (nanos < 1_000_000) return String.format(Locale.ROOT, "%.1f µs", nanos / 1e3);
    if (nanos < 1_000_000_000) return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
  }

  public static String rate(double perSecond) {
    return String.format(Locale.ROOT, perSecond >= 100 ? "%,.0f" : "%,.1f", perSecond);
  }

  public static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.0f%%", fraction * 100);
  }
}
