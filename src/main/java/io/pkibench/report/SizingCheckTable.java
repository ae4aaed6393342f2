package io.pkibench.report;

import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A study's {@code --check-sizing} table: per step, the capacity at one core predicted from half a
 * core, the one measured, the miss.
 */
public final class SizingCheckTable {
  private SizingCheckTable() {}

  /** How far past its limit a service's CPU may read before the limit is said not to have held. */
  static final double QUOTA_SLACK = 1.05;

  /**
   * The share of the limit a measurement must fill to count as the capacity there: the studies' own
   * 90%.
   */
  static final double SATURATED = 0.9;

  /** The table with its formula, or "" when the study checked no sizing. */
  public static String terminal(RunResult result) {
    if (result.study() == null || result.study().sizingChecks().isEmpty()) return "";
    List<StudyRecord.SizingCheck> checks = result.study().sizingChecks();
    StringBuilder out = new StringBuilder("\n").append(title(checks)).append('\n');
    out.append(TerminalTable.align(rows(checks)));
    for (String line : explanations(checks)) out.append("  ").append(line).append('\n');
    for (String warning : warnings(checks)) out.append("  ").append(warning).append('\n');
    return out.toString();
  }

  /**
   * The same for the report: a table, the formula, and each warning, or "" when the study checked
   * no sizing.
   */
  public static String html(RunResult result) {
    if (result.study() == null || result.study().sizingChecks().isEmpty()) return "";
    List<StudyRecord.SizingCheck> checks = result.study().sizingChecks();
    StringBuilder h =
        new StringBuilder("<h3>Check-sizing</h3>\n<p>")
            .append(Html.esc(title(checks)))
            .append("</p>\n<table id=\"sizing-check\">");
    List<String[]> rows = rows(checks);
    for (int r = 0; r < rows.size(); r++) {
      h.append("<tr>");
      for (int i = 0; i < rows.get(r).length; i++) {
        String tag = r == 0 ? "th" : "td";
        h.append('<')
            .append(tag)
            .append(i == 0 ? " class=\"l\">" : ">")
            .append(Html.esc(rows.get(r)[i]))
            .append("</")
            .append(tag)
            .append('>');
      }
      h.append("</tr>\n");
    }
    h.append("</table>\n");
    for (String line : explanations(checks))
      h.append("<p class=\"muted\">").append(Html.esc(line)).append("</p>\n");
    for (String warning : warnings(checks))
      h.append("<p class=\"warn\">").append(Html.esc(warning)).append("</p>\n");
    return h.toString();
  }

  private static String title(List<StudyRecord.SizingCheck> checks) {
    StudyRecord.SizingCheck first = checks.get(0);
    return "check-sizing: the capacity at "
        + cores(first.checkCores())
        + " core predicted from "
        + cores(first.limitCores())
        + " core, then measured (the measured services' CPU limited together by a cgroup cpu quota)";
  }

  private static List<String[]> rows(List<StudyRecord.SizingCheck> checks) {
    StudyRecord.SizingCheck first = checks.get(0);
    String limit = cores(first.limitCores()), check = cores(first.checkCores());
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "step",
          "threads",
          "ops/service-cpu-s @ " + limit,
          "service cores @ " + limit,
          "predicted ops/s @ " + check,
          "measured ops/s @ " + check,
          "service cores @ " + check,
          "miss"
        });
    for (StudyRecord.SizingCheck c : checks) {
      rows.add(
          new String[] {
            c.step(),
            c.level() == null ? "-" : Integer.toString(c.level()),
            number(c.opsPerCpuSecondLimited(), "%.1f"),
            number(c.serviceCoresLimited(), "%.2f"),
            number(c.predictedOpsPerSecond(), "%.1f"),
            number(c.measuredOpsPerSecond(), "%.1f"),
            number(c.serviceCoresChecked(), "%.2f"),
            c.miss() == null ? "-" : String.format(Locale.ROOT, "%+.1f%%", c.miss() * 100)
          });
    }
    return rows;
  }

  private static List<String> explanations(List<StudyRecord.SizingCheck> checks) {
    StudyRecord.SizingCheck first = checks.get(0);
    return List.of(
        StudyRecord.SizingCheck.FORMULA
            + " (L = "
            + cores(first.limitCores())
            + ", C = "
            + cores(first.checkCores())
            + ")",
        "service cores: the services' CPU-seconds over the measured wall time; at most the limit when the quota held");
  }

  /**
   * What makes a row's figures mislead: a step not checked, a quota that did not hold, a one-core
   * run that did not fill its core.
   */
  private static List<String> warnings(List<StudyRecord.SizingCheck> checks) {
    List<String> said = new ArrayList<>();
    for (StudyRecord.SizingCheck c : checks) {
      String limit = cores(c.limitCores()), check = cores(c.checkCores());
      if (c.notCheckedBecause() != null)
        said.add(c.step() + ": not checked: " + c.notCheckedBecause());
      // The scheduler may run a group a little past its quota within a period; 5% past is no longer
      // that.
      if (c.serviceCoresLimited() != null
          && c.serviceCoresLimited() > c.limitCores() * QUOTA_SLACK) {
        said.add(
            c.step()
                + ": the "
                + limit
                + "-core limit did not hold: the service used "
                + number(c.serviceCoresLimited(), "%.2f")
                + " core; the prediction is not from a service so limited");
      }
      if (c.measuredOpsPerSecond() != null
          && c.serviceCoresChecked() != null
          && c.serviceCoresChecked() < c.checkCores() * SATURATED) {
        said.add(
            c.step()
                + ": at "
                + check
                + " core the service used only "
                + number(c.serviceCoresChecked(), "%.2f")
                + " core: the load did not fill the limit (the client short of CPU, or too few threads), so the measured figure is under"
                + " its capacity there and the miss overstates the prediction's");
      }
    }
    return said;
  }

  private static String number(Double value, String format) {
    return value == null ? "-" : String.format(Locale.ROOT, format, value);
  }

  private static String cores(double cores) {
    return cores == Math.rint(cores)
        ? Long.toString((long) cores)
        : String.format(Locale.ROOT, "%.1f", cores);
  }
}
