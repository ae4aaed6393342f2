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
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A study's steps laid out as its original's tables (IBM's 5.6 and 5.7): per variant (e.g. TLS
 * engine), operations per service CPU-second by row × column, the same per CPU-percent of this
 * machine, and the CPU cost of each cell relative to the baseline column; then what each
 * substituted cell measured instead of the original and why.
 */
public final class StudyGrid {
  private StudyGrid() {}

  /** A titled table, header row first. */
  record Table(String id, String title, List<String[]> rows) {}

  static List<Table> tables(RunResult result) {
    StudyRecord.Grid grid = result.study().grid();
    if (grid == null || ServiceComparison.applies(result))
      return List.of(); // services side by side: its own table
    Map<String, Optional<LevelResult>> levels =
        StudyTables.rows(result).stream()
            .collect(Collectors.toMap(StudyRow::label, StudyRow::level, (a, b) -> a));
    int cores = Math.max(1, result.environment().cores());
    List<Table> tables = new ArrayList<>();
    for (String variant : grid.variants()) {
      String suffix = grid.variants().size() > 1 || !variant.isEmpty() ? " (" + variant + ")" : "";
      tables.add(
          table(
              grid,
              "grid-per-cpu-" + variant,
              "transactions per server CPU-second" + suffix,
              variant,
              levels,
              l ->
                  l.cpu().opsPerCpuSecond() == null ? "-" : Units.rate(l.cpu().opsPerCpuSecond())));
      tables.add(
          table(
              grid,
              "grid-per-cpu-percent-" + variant,
              "transactions per second per CPU-% of this " + cores + "-core machine" + suffix,
              variant,
              levels,
              l ->
                  l.cpu().opsPerCpuSecond() == null
                      ? "-"
                      : Units.rate(l.cpu().opsPerCpuSecond() * cores / 100)));
      tables.add(relativeCost(grid, variant, levels, suffix, published(result)));
    }
    return tables;
  }

  private static Table table(
      StudyRecord.Grid grid,
      String id,
      String title,
      String variant,
      Map<String, Optional<LevelResult>> levels,
      Function<LevelResult, String> value) {
    List<String[]> rows = new ArrayList<>();
    rows.add(header(grid));
    for (String row : grid.rows()) {
      String[] cells = new String[grid.columns().size() + 1];
      cells[0] = row;
      for (int c = 0; c < grid.columns().size(); c++) {
        Optional<LevelResult> level = level(grid, row, grid.columns().get(c), variant, levels);
        cells[c + 1] =
            level.map(value).orElse("-") + mark(grid, row, grid.columns().get(c), variant);
      }
      rows.add(cells);
    }
    return new Table(id, title, rows);
  }

  /**
   * CPU per transaction relative to the baseline column of the same row: baseline ops per
   * CPU-second over the cell's, and beside it the original's own ratio from its published figures
   * (IBM's table 5.7 is exactly that: plain ÷ cell), so that a suite's relative cost is compared as
   * a ratio, the one thing both machines can be set side by side on.
   */
  private static Table relativeCost(
      StudyRecord.Grid grid,
      String variant,
      Map<String, Optional<LevelResult>> levels,
      String suffix,
      Map<String, Double> published) {
    List<String[]> rows = new ArrayList<>();
    rows.add(header(grid));
    for (String row : grid.rows()) {
      String[] cells = new String[grid.columns().size() + 1];
      cells[0] = row;
      Double base =
          level(grid, row, grid.baseline(), variant, levels)
              .map(l -> l.cpu().opsPerCpuSecond())
              .orElse(null);
      Double originalBase = published.get(row + " · " + grid.baseline());
      for (int c = 0; c < grid.columns().size(); c++) {
        String column = grid.columns().get(c);
        Double here =
            level(grid, row, column, variant, levels)
                .map(l -> l.cpu().opsPerCpuSecond())
                .orElse(null);
        Double original = published.get(row + " · " + column);
        String theirs =
            originalBase == null
                    || original == null
                    || original == 0
                    || column.equals(grid.baseline())
                ? ""
                : String.format(Locale.ROOT, " (orig. %.2f)", originalBase / original);
        cells[c + 1] =
            notCompared(grid, row, column, variant)
                ? "not compared"
                : (base == null || here == null || here == 0
                        ? "-"
                        : String.format(Locale.ROOT, "%.2f", base / here))
                    + mark(grid, row, column, variant)
                    + theirs;
      }
      rows.add(cells);
    }
    String beside = published.isEmpty() ? "" : "; the original's ratio in brackets";
    return new Table(
        "grid-relative-cost-" + variant,
        "relative CPU cost per transaction, " + grid.baseline() + " = 1" + suffix + beside,
        rows);
  }

  /**
   * The original's figures by step label, for the ratios it published (empty when it published
   * none).
   */
  private static Map<String, Double> published(RunResult result) {
    StudyRecord.Published p = result.study().published();
    if (p == null) return Map.of();
    return p.figures().stream()
        .collect(
            Collectors.toMap(StudyRecord.Figure::step, StudyRecord.Figure::value, (a, b) -> a));
  }

  private static String[] header(StudyRecord.Grid grid) {
    String[] header = new String[grid.columns().size() + 1];
    header[0] = grid.rowsAre();
    for (int c = 0; c < grid.columns().size(); c++) header[c + 1] = grid.columns().get(c);
    return header;
  }

  private static Optional<LevelResult> level(
      StudyRecord.Grid grid,
      String row,
      String column,
      String variant,
      Map<String, Optional<LevelResult>> levels) {
    return grid.cell(row, column, variant)
        .flatMap(c -> levels.getOrDefault(c.step(), Optional.empty()));
  }

  /**
   * A star on a cell that measured a substitute, so no one reads it as the original's
   * configuration.
   */
  private static String mark(StudyRecord.Grid grid, String row, String column, String variant) {
    return grid.cell(row, column, variant).filter(c -> c.substitutedBecause() != null).isPresent()
        ? " *"
        : "";
  }

  /**
   * Whether the cell's server was found not like for like with the baseline's: its ratio is not
   * drawn.
   */
  private static boolean notCompared(
      StudyRecord.Grid grid, String row, String column, String variant) {
    return !column.equals(grid.baseline())
        && grid.cell(row, column, variant).filter(c -> c.notComparedBecause() != null).isPresent();
  }

  /**
   * One line per substituted column and variant: what was refused, and what was measured instead;
   * then each column measured as asked, and each not set against the baseline and why.
   */
  static List<String> substitutions(RunResult result) {
    StudyRecord.Grid grid = result.study().grid();
    if (grid == null || ServiceComparison.applies(result)) return List.of();
    boolean original = result.study().published() != null;
    List<String> lines = new ArrayList<>();
    for (StudyRecord.Cell c : grid.cells()) {
      if (c.substitutedBecause() == null || !c.row().equals(grid.rows().get(0)))
        continue; // the same for every row of a column
      String what = c.step() == null ? "; not measured" : "; measured " + c.measured() + " instead";
      lines.add(
          "* "
              + c.column()
              + (c.variant().isEmpty() ? "" : " (" + c.variant() + ")")
              + ": "
              + c.substitutedBecause()
              + what);
    }
    for (StudyRecord.Cell c : grid.cells()) {
      if (c.substitutedBecause() == null
          && c.row().equals(grid.rows().get(0))
          && !c.column().equals(grid.baseline())) {
        lines.add(
            c.column()
                + (c.variant().isEmpty() ? "" : " (" + c.variant() + ")")
                + (original ? ": measured as the original, " : ": measured ")
                + c.measured());
      }
    }
    for (StudyRecord.Cell c : grid.cells()) {
      if (c.notComparedBecause() != null && c.row().equals(grid.rows().get(0)))
        lines.add(
            c.column()
                + (c.variant().isEmpty() ? "" : " (" + c.variant() + ")")
                + ": not compared with "
                + grid.baseline()
                + ", not like for like: "
                + c.notComparedBecause());
    }
    return lines;
  }

  public static String terminal(RunResult result) {
    StringBuilder out = new StringBuilder();
    for (Table t : tables(result))
      out.append('\n').append(t.title()).append('\n').append(TerminalTable.align(t.rows()));
    for (String line : substitutions(result)) out.append("  ").append(line).append('\n');
    return out.toString();
  }

  public static String html(RunResult result) {
    StringBuilder h = new StringBuilder();
    for (Table t : tables(result)) {
      h.append("<h3>")
          .append(Html.esc(t.title()))
          .append("</h3>\n<table id=\"")
          .append(Html.esc(t.id()))
          .append("\">");
      for (int r = 0; r < t.rows().size(); r++) {
        h.append("<tr>");
        String[] cells = t.rows().get(r);
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
      h.append("</table>\n");
    }
    List<String> subs = substitutions(result);
    if (!subs.isEmpty()) {
      h.append("<ul>");
      for (String s : subs) h.append("<li>").append(Html.esc(s)).append("</li>");
      h.append("</ul>\n");
    }
    return h.toString();
  }
}
