package io.pkibench.report;

import io.pkibench.results.Throughput;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;
import java.util.Optional;

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

  /**
   * A figure as published or set beside one: whole thousands grouped, smaller values to four
   * significant digits without trailing zeros ({@code 60,000}, {@code 750}, {@code 11.67}, {@code
   * 2.6}, {@code 0.0025}).
   */
  public static String figure(double v) {
    if (!Double.isFinite(v)) return "-";
    if (Math.abs(v) >= 1000) return String.format(Locale.ROOT, "%,.0f", v);
    if (v == 0) return "0";
    return new BigDecimal(v).round(new MathContext(4)).stripTrailingZeros().toPlainString();
  }

  public static String percent(double fraction) {
    return String.format(Locale.ROOT, "%.0f%%", fraction * 100);
  }

  /**
   * When the 99.9% interval of a throughput is wider than the throughput itself, a bare "± 2047.9"
   * misleads: say why instead (too few or too noisy iterations) and what would do.
   */
  public static Optional<String> intervalTooWide(Throughput t) {
    if (!t.intervalWiderThanMean()) return Optional.empty();
    return Optional.of(
        String.format(
            Locale.ROOT,
            "the 99.9%% interval (± %s ops/s) is wider than the throughput: %d iterations are too few or too noisy to bound it; measure more (e.g. --measure 10x…)",
            rate(t.ci999()),
            t.samples()));
  }
}
