package io.pkibench.analysis;

import java.util.Locale;

/** Latencies in the verdict's sentences: whole units where they are whole ("50 ms", "200 µs"). */
final class HumanNanos {
  private HumanNanos() {}

  static String of(long nanos) {
    if (nanos >= 1_000_000_000L) return trim(nanos / 1e9) + " s";
    if (nanos >= 1_000_000L) return trim(nanos / 1e6) + " ms";
    if (nanos >= 1_000L) return trim(nanos / 1e3) + " µs";
    return nanos + " ns";
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
  }
}
