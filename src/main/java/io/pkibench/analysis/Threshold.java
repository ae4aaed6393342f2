package io.pkibench.analysis;

import java.util.Locale;

/**
 * A limit a comparison must hold, as written on the command line: {@code throughput:-5%} (may drop
 * by at most 5%), {@code p99:+10%} (may rise by at most 10%), {@code cpu:-5%} (ops per CPU-second).
 */
public record Threshold(Metric metric, double allowedPercent) {

  public static Threshold parse(String text) {
    int colon = text.indexOf(':');
    String syntax =
        "write METRIC:CHANGE%, e.g. throughput:-5% or p99:+10% (metrics: throughput, cpu, p50, p90, p99, p999, max)";
    if (colon < 0 || !text.endsWith("%"))
      throw new IllegalArgumentException("--threshold " + text + ": " + syntax);
    Metric metric = Metric.parse(text.substring(0, colon));
    if (metric == null)
      throw new IllegalArgumentException("--threshold " + text + ": unknown metric; " + syntax);
    double percent;
    try {
      percent = Double.parseDouble(text.substring(colon + 1, text.length() - 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--threshold " + text + ": " + syntax);
    }
    String number = text.substring(colon + 1).strip();
    boolean signed = number.startsWith("-") || number.startsWith("+");
    // A zero limit (no change allowed) reads the same either way; any other must point the way the
    // metric gets worse.
    boolean wrongWay = percent != 0 && metric.higherIsBetter() != (percent < 0);
    if (wrongWay || percent == 0 && !signed) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "--threshold %s: %s is %s, so its limit is a %s: write %s:%s%s%%",
              text,
              metric.flag,
              metric.higherIsBetter() ? "better higher" : "better lower",
              metric.higherIsBetter() ? "drop" : "rise",
              metric.flag,
              metric.higherIsBetter() ? "-" : "+",
              TrimmedNumber.of(Math.abs(percent), 4)));
    }
    return new Threshold(metric, percent == 0 ? 0.0 : percent); // -0 and +0 are one limit
  }

  /** True when a change of {@code deltaPercent} stays inside the limit. */
  public boolean holds(double deltaPercent) {
    return metric.higherIsBetter()
        ? deltaPercent >= allowedPercent
        : deltaPercent <= allowedPercent;
  }

  @Override
  public String toString() {
    String sign =
        allowedPercent > 0 || allowedPercent == 0 && !metric.higherIsBetter()
            ? "+"
            : allowedPercent == 0 ? "-" : "";
    return metric.flag + ":" + sign + TrimmedNumber.of(allowedPercent, 4) + "%";
  }
}
