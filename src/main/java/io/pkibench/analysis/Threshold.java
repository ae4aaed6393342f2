package io.pkibench.analysis;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A limit a comparison must hold, in the one threshold grammar (docs/cli-grammar.md) with a signed
 * change in percent: {@code throughput>-5%} (may drop by at most 5%), {@code p99<+10%} (may rise by
 * at most 10%), {@code cpu>-5%} (ops per CPU-second). The former spelling {@code throughput:-5%} is
 * still read ({@link #formerSpelling}).
 */
public record Threshold(Metric metric, double allowedPercent) {

  private static final String SYNTAX =
      "write METRIC OP CHANGE%, e.g. throughput>-5% or p99<+10% (metrics: throughput, cpu, p50, p90, p99, p999, max)";
  private static final Pattern WRITTEN =
      Pattern.compile("\\s*([A-Za-z0-9().]*)\\s*(<=|>=|<|>|:)\\s*(\\S*?)\\s*%\\s*");

  /** True for compare's spelling before the one grammar, {@code METRIC:CHANGE%}. */
  public static boolean formerSpelling(String text) {
    Matcher m = WRITTEN.matcher(text);
    return m.matches() && m.group(2).equals(":");
  }

  public static Threshold parse(String text) {
    Matcher m = WRITTEN.matcher(text);
    if (!m.matches()) throw new IllegalArgumentException("--threshold " + text + ": " + SYNTAX);
    // k6 writes a percentile p(99): the same figure as our p99.
    String name =
        m.group(1).toLowerCase(Locale.ROOT).replaceAll("^p\\((\\d+(?:\\.\\d+)?)\\)$", "p$1");
    Metric metric = Metric.parse(name.equals("p99.9") ? "p999" : name);
    if (metric == null)
      throw new IllegalArgumentException("--threshold " + text + ": unknown metric; " + SYNTAX);
    String op = m.group(2);
    String number = m.group(3);
    double percent;
    try {
      percent = Double.parseDouble(number);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("--threshold " + text + ": " + SYNTAX);
    }
    boolean signed = number.startsWith("-") || number.startsWith("+");
    // A zero limit (no change allowed) reads the same either way; any other must point the way the
    // metric gets worse, and so must the comparison.
    boolean wrongWay = percent != 0 && metric.higherIsBetter() != (percent < 0);
    boolean wrongOp = !op.equals(":") && metric.higherIsBetter() != op.startsWith(">");
    if (wrongWay || wrongOp || percent == 0 && !signed) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "--threshold %s: %s is %s, so its limit is a %s: write %s%s%s%s%%",
              text,
              metric.flag,
              metric.higherIsBetter() ? "better higher" : "better lower",
              metric.higherIsBetter() ? "drop" : "rise",
              metric.flag,
              metric.higherIsBetter() ? ">" : "<",
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
    return metric.flag
        + (metric.higherIsBetter() ? ">" : "<")
        + sign
        + TrimmedNumber.of(allowedPercent, 4)
        + "%";
  }
}
