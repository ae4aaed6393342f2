package io.pkibench.analysis;

import java.util.Locale;

/**
 * A number as a sentence or an axis writes it: whole numbers without a point, others with at most a
 * few decimals and no trailing zeros.
 */
public final class TrimmedNumber {
  private TrimmedNumber() {}

  /** {@code 8} → "8", {@code 2.5} → "2.5", {@code 1/3} with 2 decimals → "0.33". */
  public static String of(double v, int maxDecimals) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) return Long.toString((long) v);
    String s = String.format(Locale.ROOT, "%." + maxDecimals + "f", v);
    return s.contains(".") ? s.replaceAll("0+$", "").replaceAll("\\.$", "") : s;
  }
}
