package io.pkibench.report;

import io.pkibench.analysis.Comparison;
import io.pkibench.analysis.Metric;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A comparison as a terminal table or as Markdown for a CI comment; both end with the verdict line. */
public final class ComparisonFormat {
  private ComparisonFormat() {}

  public static String text(Comparison c) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"workload", "level", "metric", "base", "new", "change", "noise", "threshold", "verdict"});
    for (Comparison.Row r : c.rows()) rows.add(cells(r));
    StringBuilder out = new StringBuilder();
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) for (int i = 0; i < row.length; i++) widths[i] = Math.max(widths[i], row[i].length());
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        boolean left = i == 0 || i == 2;
        String pad = " ".repeat(widths[i] - row[i].length());
        out.append(i == 0 ? "" : "  ").append(left ? row[i] + pad : pad + row[i]);
      }
      out.append('\n');
    }
    for (String u : c.unmatched()) out.append("not compared: ").append(u).append('\n');
    return out.append(summary(c)).append('\n').toString();
  }

  public static String markdown(Comparison c) {
    StringBuilder out = new StringBuilder("| workload | level | metric | base | new | change | noise | threshold | verdict |\n");
    out.append("|---|---:|---|---:|---:|---:|---|---|---|\n");
    for (Comparison.Row r : c.rows()) {
      String[] cells = cells(r);
      if (r.verdict().equals("FAIL")) cells[8] = "**FAIL**";
      out.append("| ").append(String.join(" | ", cells)).append(" |\n");
    }
    for (String u : c.unmatched()) out.append("\n- not compared: ").append(u);
    if (!c.unmatched().isEmpty()) out.append('\n');
    return out.append('\n').append(c.passed() ? "✅ " : "❌ ").append(summary(c)).append('\n').toString();
  }

  private static String[] cells(Comparison.Row r) {
    return new String[] {
        r.workload(),
        r.load() == Math.rint(r.load()) ? Long.toString((long) r.load()) : Double.toString(r.load()),
        r.metric().flag,
        value(r.metric(), r.base()),
        value(r.metric(), r.current()),
        String.format(Locale.ROOT, "%+.1f%%", r.deltaPercent()),
        r.overlap() == null ? "unknown" : r.overlap() ? "overlaps" : "apart",
        r.threshold() == null ? "" : r.threshold().toString(),
        r.verdict()};
  }

  private static String value(Metric m, double v) {
    return m.unit.equals("ns") ? HumanUnits.nanos(v) : HumanUnits.rate(v);
  }

  private static String summary(Comparison c) {
    long failed = c.rows().stream().filter(r -> r.verdict().equals("FAIL")).count();
    if (c.thresholds().isEmpty()) return "no thresholds given: nothing can fail";
    return failed == 0 ? "every threshold holds (" + thresholdList(c) + ")"
        : failed + " threshold breach" + (failed == 1 ? "" : "es") + " beyond the noise (" + thresholdList(c) + ")";
  }

  private static String thresholdList(Comparison c) {
    return String.join(", ", c.thresholds().stream().map(Object::toString).toList());
  }
}
