package io.pkibench.report;

import io.pkibench.results.Throughput;
import io.pkibench.text.Units;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;
import java.util.Optional;

/**
 * Published figures and intervals as a person reads them in a table ({@code 2,450.1}); latencies
 * and rates are {@link Units}'.
 */
public final class HumanUnits {
  private HumanUnits() {}

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
            Units.rate(t.ci999()),
            t.samples()));
  }
}
