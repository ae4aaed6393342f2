package io.pkibench.report;

import io.pkibench.results.RunResult;
import io.pkibench.results.ThresholdVerdict;
import io.pkibench.text.OutsideText;
import io.pkibench.text.Units;
import java.util.ArrayList;
import java.util.List;

/**
 * The verdicts of a run's thresholds ({@code run --threshold}), as k6 prints its summary: one ✓ or
 * ✗ line per figure checked, the figure observed beside the limit, then how many passed. Nothing
 * when the run had no threshold.
 */
public final class ThresholdTables {
  private static final String[] HEADER = {"", "threshold", "workload", "keys", "level", "observed"};

  private ThresholdTables() {}

  public static String terminal(RunResult result) {
    if (result.thresholds() == null) return "";
    List<String[]> rows = rows(result.thresholds());
    StringBuilder out =
        new StringBuilder("\nthresholds (each must hold at every level measured)\n");
    out.append(leftAligned(rows));
    out.append("  ").append(summary(result.thresholds())).append('\n');
    return out.toString();
  }

  public static String html(RunResult result) {
    if (result.thresholds() == null) return "";
    StringBuilder h =
        new StringBuilder(
            "<section id=\"thresholds\"><h2>Thresholds</h2>\n<p class=\"muted\">Each must hold at every level"
                + " measured, each level's figure from its measured iterations (a staged run is one level).</p>\n<table>");
    List<String[]> rows = rows(result.thresholds());
    for (int r = 0; r < rows.size(); r++) {
      String cell = r == 0 ? "th" : "td";
      String style =
          r == 0
              ? ""
              : result.thresholds().get(r - 1).passed()
                  ? " style=\"color:#2ca02c\""
                  : " style=\"color:#d62728;font-weight:bold\"";
      h.append("<tr>");
      for (int c = 0; c < rows.get(r).length; c++) {
        h.append('<')
            .append(cell)
            .append(" class=\"l\"")
            .append(c == 0 ? style : "")
            .append('>')
            .append(Html.esc(rows.get(r)[c]))
            .append("</")
            .append(cell)
            .append('>');
      }
      h.append("</tr>\n");
    }
    h.append("</table>\n<p class=\"verdict\">")
        .append(Html.esc(summary(result.thresholds())))
        .append("</p>\n</section>\n");
    return h.toString();
  }

  private static List<String[]> rows(List<ThresholdVerdict> verdicts) {
    List<String[]> rows = new ArrayList<>();
    rows.add(HEADER);
    for (ThresholdVerdict v : verdicts) {
      String where =
          OutsideText.forTerminal(
              v.member() == null ? v.workload() : v.workload() + "/" + v.member());
      String level = v.stage() != null ? "stage " + v.stage() : v.level() == null ? "-" : v.level();
      String observed =
          v.observed() == null
              ? "none: " + OutsideText.forTerminal(v.why())
              : v.metric() + " " + value(v.observed(), v.unit());
      rows.add(
          new String[] {
            v.passed() ? "✓" : "✗",
            OutsideText.forTerminal(v.threshold()),
            where,
            OutsideText.forTerminal(v.keys()),
            OutsideText.forTerminal(level),
            observed
          });
    }
    return rows;
  }

  /** Left-aligned columns: the expressions and names read as text, not as figures. */
  private static String leftAligned(List<String[]> rows) {
    int[] widths = new int[HEADER.length];
    for (String[] r : rows)
      for (int c = 0; c < r.length; c++) widths[c] = Math.max(widths[c], r[c].length());
    StringBuilder out = new StringBuilder();
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder(" ");
      for (int c = 0; c < r.length; c++)
        line.append(' ').append(r[c]).append(" ".repeat(widths[c] - r[c].length()));
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  private static String summary(List<ThresholdVerdict> verdicts) {
    long failed = verdicts.stream().filter(v -> !v.passed()).count();
    return failed == 0
        ? "all " + verdicts.size() + " checks passed"
        : failed + " of " + verdicts.size() + " checks failed";
  }

  private static String value(double v, String unit) {
    return switch (unit) {
      case "ns" -> Units.nanos(v);
      case "%" -> HumanUnits.figure(v) + "%";
      default -> Units.rate(v) + " " + unit;
    };
  }
}
