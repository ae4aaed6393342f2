package io.pkibench.report;

import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** A study's {@code --check-sizing} table: per step, the capacity at one core predicted from half a core, the one measured, the miss. */
public final class SizingCheckTable {
  private SizingCheckTable() {}

  /** How far past its limit a service's CPU may read before the limit is said not to have held. */
  static final double QUOTA_SLACK = 1.05;
  /** The share of the limit a measurement must fill to count as the capacity there: the studies' own 90%. */
  static final double SATURATED = 0.9;

  /** The table with its formula, or "" when the study checked no sizing. */
  public static String terminal(RunResult result) {
    if (result.study() == null || result.study().sizingChecks().isEmpty()) return "";
    List<StudyRecord.SizingCheck> checks = result.study().sizingChecks();
    StudyRecord.SizingCheck first = checks.get(0);
    String limit = cores(first.limitCores()), check = cores(first.checkCores());
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"step", "threads", "ops/service-cpu-s @ " + limit, "service cores @ " + limit, "predicted ops/s @ " + check,
        "measured ops/s @ " + check, "service cores @ " + check, "miss"});
    for (StudyRecord.SizingCheck c : checks) {
      rows.add(new String[] {c.step(), c.level() == null ? "-" : Integer.toString(c.level()), number(c.opsPerCpuSecondLimited(), "%.1f"),
          number(c.serviceCoresLimited(), "%.2f"), number(c.predictedOpsPerSecond(), "%.1f"), number(c.measuredOpsPerSecond(), "%.1f"),
          number(c.serviceCoresChecked(), "%.2f"), c.miss() == null ? "-" : String.format(Locale.ROOT, "%+.1f%%", c.miss() * 100)});
    }
    StringBuilder out = new StringBuilder("\ncheck-sizing: the capacity at " + check + " core predicted from " + limit + " core, then measured"
        + " (the measured services' CPU limited together by a cgroup cpu quota)\n");
    out.append(TerminalTable.align(rows));
    out.append("  ").append(StudyRecord.SizingCheck.FORMULA).append(" (L = ").append(limit).append(", C = ").append(check).append(")\n");
    out.append("  service cores: the services' CPU-seconds over the measured wall time; at most the limit when the quota held\n");
    for (StudyRecord.SizingCheck c : checks) {
      if (c.notCheckedBecause() != null) out.append("  ").append(c.step()).append(": not checked: ").append(c.notCheckedBecause()).append('\n');
      // The scheduler may run a group a little past its quota within a period; 5% past is no longer that.
      if (c.serviceCoresLimited() != null && c.serviceCoresLimited() > c.limitCores() * QUOTA_SLACK) {
        out.append("  ").append(c.step()).append(": the ").append(limit).append("-core limit did not hold: the service used ")
            .append(number(c.serviceCoresLimited(), "%.2f")).append(" core; the prediction is not from a service so limited\n");
      }
      if (c.measuredOpsPerSecond() != null && c.serviceCoresChecked() != null && c.serviceCoresChecked() < c.checkCores() * SATURATED) {
        out.append("  ").append(c.step()).append(": at ").append(check).append(" core the service used only ").append(number(c.serviceCoresChecked(), "%.2f"))
            .append(" core: the load did not fill the limit (the client short of CPU, or too few threads), so the measured figure is under")
            .append(" its capacity there and the miss overstates the prediction's\n");
      }
    }
    return out.toString();
  }

  private static String number(Double value, String format) {
    return value == null ? "-" : String.format(Locale.ROOT, format, value);
  }

  private static String cores(double cores) {
    return cores == Math.rint(cores) ? Long.toString((long) cores) : String.format(Locale.ROOT, "%.1f", cores);
  }
}
