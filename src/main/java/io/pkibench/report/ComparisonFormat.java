package io.pkibench.report;

import io.pkibench.analysis.Comparison;
import io.pkibench.analysis.Comparison.Verdict;
import io.pkibench.analysis.Metric;
import io.pkibench.analysis.TrimmedNumber;
import io.pkibench.text.ConsoleTable;
import io.pkibench.text.OutsideText;
import io.pkibench.text.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A comparison as a terminal table or as Markdown for a CI comment: the rows with each change's
 * interval, a line per inconclusive row saying how many iterations would tell, and the verdict
 * line.
 */
public final class ComparisonFormat {
  private ComparisonFormat() {}

  public static String text(Comparison c) {
    List<String[]> rows = new ArrayList<>();
    rows.add(header(c));
    for (Comparison.Row r : c.rows()) rows.add(cells(r));
    StringBuilder out = new StringBuilder(method(c)).append('\n');
    out.append(new ConsoleTable("", "  ", Set.of(0, 2), ConsoleTable.COLUMNS).render(rows));
    for (String n : notes(c)) out.append(n).append('\n');
    for (String u : c.unmatched()) out.append("not compared: ").append(u).append('\n');
    return out.append(summary(c)).append('\n').toString();
  }

  public static String markdown(Comparison c) {
    StringBuilder out =
        new StringBuilder(method(c))
            .append("\n\n| ")
            .append(String.join(" | ", header(c)))
            .append(" |\n");
    out.append("|---|---:|---|---:|---:|---:|---:|---|---|\n");
    for (Comparison.Row r : c.rows()) {
      String[] cells = cells(r);
      if (r.verdict() == Verdict.FAIL) cells[8] = "**FAIL**";
      out.append("| ").append(String.join(" | ", cells)).append(" |\n");
    }
    List<String> lines = new ArrayList<>(notes(c));
    for (String u : c.unmatched()) lines.add("not compared: " + u);
    if (!lines.isEmpty()) out.append('\n');
    for (String l : lines) out.append("- ").append(l).append('\n');
    String mark =
        !c.passed()
            ? "❌ "
            : !c.complete() && !c.thresholds().isEmpty() ? "⚠️ " : !c.conclusive() ? "❔ " : "✅ ";
    return out.append('\n').append(mark).append(summary(c)).append('\n').toString();
  }

  /**
   * A self-contained HTML page of the comparison ({@code compare --html}): the same rows, notes and
   * verdict as the table, every cell escaped.
   */
  public static String html(Comparison c) {
    StringBuilder h =
        new StringBuilder(
                "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>pkibench compare</title>\n"
                    + "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
                    + "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}td:first-child,td:nth-child(3),th{text-align:left}"
                    + ".worse,.FAIL{color:#b00020;font-weight:bold}.better{color:#006400}</style></head><body>\n"
                    + "<h1>Comparison</h1>\n<p>")
            .append(Html.esc(method(c)))
            .append("</p>\n<table>\n<tr>");
    for (String cell : header(c)) h.append("<th>").append(Html.esc(cell)).append("</th>");
    h.append("</tr>\n");
    for (Comparison.Row r : c.rows()) {
      String[] cells = cells(r);
      h.append("<tr>");
      for (int i = 0; i < cells.length; i++) {
        String cls = i == cells.length - 1 ? " class=\"" + Html.esc(cells[i]) + "\"" : "";
        h.append("<td").append(cls).append('>').append(Html.esc(cells[i])).append("</td>");
      }
      h.append("</tr>\n");
    }
    h.append("</table>\n<ul>\n");
    for (String n : notes(c)) h.append("<li>").append(Html.esc(n)).append("</li>\n");
    for (String u : c.unmatched())
      h.append("<li>not compared: ").append(Html.esc(u)).append("</li>\n");
    return h.append("</ul>\n<p><strong>")
        .append(Html.esc(summary(c)))
        .append("</strong></p>\n</body></html>\n")
        .toString();
  }

  private static String method(Comparison c) {
    return "Each change is tested by Welch's t on the measured iterations of both runs"
        + (c.rows().stream().anyMatch(r -> r.workload().contains(Comparison.STAGE))
            ? " (a stage's row: on the seconds of that stage)"
            : "")
        + "; intervals at "
        + percent(c)
        + " confidence.";
  }

  private static String[] header(Comparison c) {
    return new String[] {
      "workload",
      "level",
      "metric",
      "base",
      "new",
      "change",
      percent(c) + " interval",
      "threshold",
      "verdict"
    };
  }

  private static String[] cells(Comparison.Row r) {
    return new String[] {
      OutsideText.forTerminal(r.workload()),
      r.load() == Math.rint(r.load()) ? Long.toString((long) r.load()) : Double.toString(r.load()),
      r.metric().flag,
      value(r.metric(), r.base()),
      value(r.metric(), r.current()),
      signed(r.deltaPercent()),
      r.changeLowPercent() == null
          ? "none"
          : signed(r.changeLowPercent()) + " .. " + signed(r.changeHighPercent()),
      r.threshold() == null ? "" : r.threshold().toString(),
      r.verdict().name()
    };
  }

  /** Why each inconclusive row could not be decided, and what would decide it. */
  private static List<String> notes(Comparison c) {
    List<String> notes = new ArrayList<>();
    for (Comparison.Row r : c.rows()) {
      if (r.verdict() != Verdict.inconclusive) continue;
      String what =
          "inconclusive: "
              + OutsideText.forTerminal(r.workload())
              + " level "
              + TrimmedNumber.of(r.load(), 4)
              + " "
              + r.metric().flag
              + ": ";
      double size =
          r.threshold() != null
              ? Math.abs(r.threshold().allowedPercent())
              : Comparison.UNTHRESHOLDED_SIZE_PERCENT;
      String change =
          r.threshold() != null
              ? "the limit " + r.threshold()
              : "a change of " + TrimmedNumber.of(size, 4) + "%";
      if (r.changeLowPercent() == null) {
        notes.add(
            what
                + "one iteration a side shows no noise to test against ("
                + r.baseIterations()
                + " and "
                + r.newIterations()
                + "); measure at least 3 a side (--measure 3x…)");
      } else if (r.iterationsNeeded() == null) {
        notes.add(
            what
                + "the interval spans both no change and "
                + change
                + ", and no count of iterations up to 10,000 would"
                + " narrow it enough at this noise: make the runs steadier (longer iterations, an idle machine)");
      } else {
        notes.add(
            what
                + "the interval spans both no change and "
                + change
                + "; about "
                + String.format(Locale.ROOT, "%,d", r.iterationsNeeded())
                + " measured iterations a side would tell (now "
                + r.baseIterations()
                + " and "
                + r.newIterations()
                + ")");
      }
    }
    return notes;
  }

  private static String value(Metric m, double v) {
    return m.unit.equals("ns") ? Units.nanos(v) : Units.rate(v);
  }

  private static String signed(double percent) {
    return String.format(Locale.ROOT, "%+.1f%%", percent);
  }

  private static String percent(Comparison c) {
    return TrimmedNumber.of(c.confidence() * 100, 4) + "%";
  }

  private static String summary(Comparison c) {
    String verdict = verdict(c);
    if (c.complete()) return verdict;
    int missing = c.unmatched().size();
    String incomplete =
        "incomplete: "
            + missing
            + " workload"
            + (missing == 1 ? " or level is" : "s or levels are")
            + " in one run only (not compared, above): a change there cannot be seen";
    if (c.thresholds().isEmpty()) return incomplete + "; " + verdict;
    long failed = c.rows().stream().filter(r -> r.verdict() == Verdict.FAIL).count();
    // A breach stands whatever else is missing; without one, the missing part is why the gate does
    // not pass.
    return failed > 0
        ? verdict + "; and " + incomplete
        : incomplete + ", so the thresholds (" + thresholdList(c) + ") are not passed";
  }

  private static String verdict(Comparison c) {
    if (c.thresholds().isEmpty()) return "no thresholds given: nothing can fail";
    long failed = c.rows().stream().filter(r -> r.verdict() == Verdict.FAIL).count();
    long undecided =
        c.rows().stream()
            .filter(r -> r.threshold() != null && r.verdict() == Verdict.inconclusive)
            .count();
    if (failed > 0) {
      return failed
          + " threshold breach"
          + (failed == 1 ? "" : "es")
          + " beyond the noise ("
          + thresholdList(c)
          + ")";
    }
    if (undecided > 0) {
      return "inconclusive: "
          + undecided
          + " threshold row"
          + (undecided == 1 ? "" : "s")
          + " too noisy or too few iterations to tell ("
          + thresholdList(c)
          + "); measure more iterations, as said above";
    }
    return "every threshold holds (" + thresholdList(c) + ")";
  }

  private static String thresholdList(Comparison c) {
    return String.join(", ", c.thresholds().stream().map(Object::toString).toList());
  }
}
