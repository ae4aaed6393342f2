package io.pkibench.report;

import io.pkibench.analysis.Steadiness;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.results.WorkloadResult;
import io.pkibench.text.OutsideText;
import io.pkibench.text.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A study's own table, as its original printed it (one row per step: threads, operations, errors,
 * average and max, throughput in the original's unit) plus what it lacked (ops per service
 * CPU-second, percentiles), the published figures beside ours, and the post-run checks. Computed
 * from the result alone: {@code pkibench report} prints the same. {@link StudyAnalysis} finds what
 * the rows say (the seed's condition, client : server splits); {@link StudyTableText}, {@link
 * PublishedBeside} and {@link StudyHtml} only format it; this class is the entry the commands call.
 */
public final class StudyTables {
  private StudyTables() {}

  /** The study's rows in step order. */
  public static List<StudyRow> rows(RunResult result) {
    return StudyRow.of(result);
  }

  /**
   * The terminal form: title, table, notes on what the figures can and cannot say, the original
   * beside ours, the checks.
   */
  public static String terminal(RunResult result) {
    StudyRecord study = result.study();
    StringBuilder out = new StringBuilder();
    out.append('\n')
        .append("study ")
        .append(study.name())
        .append(": ")
        .append(study.title())
        .append(" · status ")
        .append(result.status())
        .append('\n');
    List<StudyRow> rows = rows(result);
    List<String[]> table = new ArrayList<>();
    table.add(StudyTableText.header(study));
    for (StudyRow row : rows)
      row.level().ifPresent(l -> table.add(StudyTableText.cells(row, l, study)));
    out.append(TerminalTable.align(table));
    for (String r : StudyTableText.remarks(study, rows)) out.append("  ").append(r).append('\n');
    for (String note : study.notes()) out.append("  note: ").append(note).append('\n');
    out.append(StudyGrid.terminal(result));
    out.append(ServiceComparison.terminal(result));
    out.append(FaultTimeline.terminal(result));
    out.append(SizingCheckTable.terminal(result));
    PublishedBeside.originalInWords(result).ifPresent(w -> out.append('\n').append(w).append('\n'));
    PublishedBeside.Beside published = PublishedBeside.of(result);
    List<String[]> beside = published.rows();
    if (beside.size() > 1) {
      out.append("\nthe original beside ours (").append(study.published().source()).append(")\n");
      out.append(TerminalTable.align(beside));
      out.append("  original hardware: ").append(study.published().hardware()).append('\n');
      out.append("  ours: ").append(PublishedBeside.hardware(result.environment())).append('\n');
      for (String n : PublishedBeside.notComparable(study)) out.append("  ").append(n).append('\n');
      for (String r : PublishedBeside.ratios(result)) out.append("  ").append(r).append('\n');
      if (published.starred())
        out.append(
            "  * ours measured a substitute for the original's configuration; the lines marked * above say which\n");
    }
    if (!study.checks().isEmpty()) {
      out.append("\nchecks\n");
      for (StudyRecord.CheckRecord c : study.checks()) {
        out.append("  ")
            .append(c.passed() ? "passed " : "FAILED ")
            .append(c.name())
            .append(": ")
            .append(c.detail())
            .append('\n');
      }
    }
    return out.toString();
  }

  /**
   * The published figures beside ours in the original's unit, matched by step label: header row
   * first. The ratio column says "not comparable" where the figure says why ours over it would not
   * be like for like.
   */
  public static List<String[]> published(RunResult result) {
    return PublishedBeside.table(result);
  }

  /** The stress tool's panel for one step, shown on the live view when its measurement ends. */
  public static String panel(String label, WorkloadResult w, StudyRecord.Unit unit) {
    if (w.levels().isEmpty())
      return "[" + label + "] not measured: " + OutsideText.forTerminal(w.failure());
    LevelResult l = w.levels().get(0);
    StringBuilder p = new StringBuilder();
    p.append("┌─ ").append(label).append(" (").append(w.name()).append(")\n");
    p.append(
        String.format(
            Locale.ROOT,
            "│ threads %d   operations %d   successes %d   errors %d%n",
            l.concurrency(),
            l.counts().started(),
            l.counts().succeeded(),
            l.counts().failed()));
    p.append(
        String.format(
            Locale.ROOT,
            "│ average %s   max %s   p99 %s%n",
            Units.nanos(l.latencyNanos().mean()),
            Units.nanos(l.latencyNanos().max()),
            Units.nanos(l.latencyNanos().p99())));
    p.append(
        String.format(
            Locale.ROOT,
            "│ %s %s   %s ops per service CPU-second   service CPU %s%n",
            Units.rate(l.throughput().mean() * (unit.perServiceCpu() ? 1 : unit.perSecond())),
            StudyTableText.rateName(unit),
            l.cpu().opsPerCpuSecond() == null ? "-" : Units.rate(l.cpu().opsPerCpuSecond()),
            HumanUnits.percent(l.cpu().utilisation())));
    HumanUnits.intervalTooWide(l.throughput())
        .ifPresent(t -> p.append("│ ").append(t).append('\n'));
    Steadiness.warning(l).ifPresent(t -> p.append("│ ").append(t).append('\n'));
    return p.append("└─\n").toString();
  }

  /**
   * The study's bar charts: throughput per step in the original's unit, and ops per service
   * CPU-second.
   */
  public static List<Chart> charts(RunResult result) {
    StudyRecord study = result.study();
    List<SvgBarChart.Bar> rate = new ArrayList<>(), perCpu = new ArrayList<>();
    for (StudyRow row : rows(result)) {
      row.level()
          .ifPresent(
              l -> {
                double v =
                    l.throughput().mean()
                        * (study.unit().perServiceCpu() ? 1 : study.unit().perSecond());
                rate.add(
                    new SvgBarChart.Bar(
                        row.label(),
                        v,
                        Units.rate(v)
                            + " "
                            + StudyTableText.rateName(study.unit())
                            + " at "
                            + l.concurrency()
                            + " threads"));
                Double c = l.cpu().opsPerCpuSecond();
                perCpu.add(
                    new SvgBarChart.Bar(
                        row.label(),
                        c == null ? 0 : c,
                        c == null ? "no CPU measured" : Units.rate(c) + " per CPU-s"));
              });
    }
    if (rate.isEmpty()) return List.of();
    return List.of(
        new SvgBarChart(
            "study-throughput",
            study.name() + ": throughput by step (" + StudyTableText.rateName(study.unit()) + ")",
            rate),
        new SvgBarChart("study-cpu", study.name() + ": operations per service CPU-second", perCpu));
  }

  /**
   * The study's section of the HTML report: title, its table, remarks, the bar charts, the original
   * beside ours, the checks.
   */
  public static String html(RunResult result) {
    return StudyHtml.section(result);
  }

  /**
   * How a workload entry is named in charts and headings: a study's step and role, else the
   * workload with its parameters.
   */
  public static String label(WorkloadResult w, String analysisLabel) {
    if (w.step() == null) return analysisLabel;
    return w.step().label() + (w.probe() ? " (probe sweep, " : " (measured, ") + w.name() + ")";
  }
}
