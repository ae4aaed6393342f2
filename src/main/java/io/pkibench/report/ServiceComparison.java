package io.pkibench.report;

import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.text.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Services side by side (a study whose grid's columns are services, e.g. restpki against the
 * built-in signer and EU DSS): per transaction, each service's operations per minute at its
 * measured level, its CPU per operation (read by its pid), its p99, and each service against the
 * first (the baseline). A cell a service has no counterpart for says "n/a — why".
 */
public final class ServiceComparison {
  private ServiceComparison() {}

  /** The grid's columns are services when the study says so. */
  public static final String SERVICE_COLUMNS = "service";

  static boolean applies(RunResult result) {
    StudyRecord.Grid grid = result.study() == null ? null : result.study().grid();
    return grid != null && SERVICE_COLUMNS.equals(grid.columnsAre());
  }

  /** Header row first, then one row per transaction. */
  public static List<String[]> table(RunResult result) {
    StudyRecord.Grid grid = result.study().grid();
    Map<String, Optional<LevelResult>> levels =
        StudyTables.rows(result).stream()
            .collect(Collectors.toMap(StudyRow::label, StudyRow::level, (a, b) -> a));
    List<String> services = grid.columns();
    List<String> header = new ArrayList<>(List.of(grid.rowsAre()));
    for (String s : services) header.add(s + " ops/min");
    for (String s : services) header.add(s + " CPU/op");
    for (String s : services) header.add(s + " p99");
    for (String s : services.subList(1, services.size())) {
      header.add(s + " / " + grid.baseline() + " ops/min");
      header.add(s + " / " + grid.baseline() + " CPU/op");
    }
    List<String[]> rows = new ArrayList<>();
    rows.add(header.toArray(String[]::new));
    for (String row : grid.rows()) {
      List<String> cells = new ArrayList<>(List.of(row));
      List<Optional<LevelResult>> measured = new ArrayList<>();
      List<String> notApplicable = new ArrayList<>();
      for (String s : services) {
        Optional<StudyRecord.Cell> cell = grid.cell(row, s, "");
        measured.add(
            cell.map(StudyRecord.Cell::step)
                .flatMap(step -> levels.getOrDefault(step, Optional.empty())));
        notApplicable.add(
            cell.filter(c -> c.step() == null)
                .map(StudyRecord.Cell::substitutedBecause)
                .orElse(null));
      }
      for (int i = 0; i < services.size(); i++) {
        cells.add(
            notApplicable.get(i) != null
                ? notApplicable.get(i)
                : measured
                    .get(i)
                    .map(l -> HumanUnits.figure(l.throughput().mean() * 60))
                    .orElse("not measured"));
      }
      for (int i = 0; i < services.size(); i++) {
        cells.add(
            notApplicable.get(i) != null
                ? "n/a"
                : measured.get(i).map(ServiceComparison::cpuPerOperation).orElse("-"));
      }
      for (int i = 0; i < services.size(); i++) {
        cells.add(
            notApplicable.get(i) != null
                ? "n/a"
                : measured.get(i).map(l -> Units.nanos(l.latencyNanos().p99())).orElse("-"));
      }
      for (int i = 1; i < services.size(); i++) {
        Optional<LevelResult> base = measured.get(0), here = measured.get(i);
        cells.add(
            ratio(here.map(l -> l.throughput().mean()), base.map(l -> l.throughput().mean())));
        cells.add(
            ratio(
                here.map(ServiceComparison::cpuSecondsPerOperation),
                base.map(ServiceComparison::cpuSecondsPerOperation)));
      }
      rows.add(cells.toArray(String[]::new));
    }
    return rows;
  }

  /** What the figures rest on: CPU by pid, each service at the level its own probe chose. */
  static List<String> notes(RunResult result) {
    List<String> notes = new ArrayList<>();
    notes.add(
        "each service measured alone, in turn, at the thread count its own probe chose; CPU/op is the service's CPU (read by its pid) per operation");
    boolean unmeasuredCpu =
        StudyTables.rows(result).stream()
            .anyMatch(r -> r.level().map(l -> l.cpu().opsPerCpuSecond() == null).orElse(false));
    if (unmeasuredCpu)
      notes.add("a service running on another machine has no pid here: its CPU/op is not measured");
    return notes;
  }

  static Double cpuSecondsPerOperation(LevelResult l) {
    Double perCpu = l.cpu().opsPerCpuSecond();
    return perCpu == null || perCpu == 0 ? null : 1 / perCpu;
  }

  private static String cpuPerOperation(LevelResult l) {
    Double s = cpuSecondsPerOperation(l);
    return s == null ? "no CPU measured" : Units.nanos(s * 1e9);
  }

  private static String ratio(Optional<Double> here, Optional<Double> base) {
    if (here.isEmpty()
        || base.isEmpty()
        || here.get() == null
        || base.get() == null
        || base.get() == 0) return "-";
    return String.format(Locale.ROOT, "%.2f×", here.get() / base.get());
  }

  public static String terminal(RunResult result) {
    if (!applies(result)) return "";
    StringBuilder out =
        new StringBuilder("\nservices side by side\n").append(TerminalTable.align(table(result)));
    for (String n : notes(result)) out.append("  ").append(n).append('\n');
    return out.toString();
  }

  public static String html(RunResult result) {
    if (!applies(result)) return "";
    StringBuilder h =
        new StringBuilder("<h3>services side by side</h3>\n<table id=\"services-side-by-side\">");
    List<String[]> rows = table(result);
    for (int r = 0; r < rows.size(); r++) {
      h.append("<tr>");
      String[] cells = rows.get(r);
      for (int i = 0; i < cells.length; i++) {
        String tag = r == 0 ? "th" : "td";
        h.append('<')
            .append(tag)
            .append(i == 0 ? " class=\"l\">" : ">")
            .append(Html.esc(cells[i]))
            .append("</")
            .append(tag)
            .append('>');
      }
      h.append("</tr>\n");
    }
    h.append("</table>\n<ul>");
    for (String n : notes(result)) h.append("<li>").append(Html.esc(n)).append("</li>");
    return h.append("</ul>\n").toString();
  }
}
