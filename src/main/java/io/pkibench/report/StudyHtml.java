package io.pkibench.report;

import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import java.util.List;
import java.util.Optional;

/** The study's section of the HTML report: the terminal's table, remarks and checks as HTML. */
final class StudyHtml {
  private StudyHtml() {}

  /**
   * Title, the original's grids, its table, remarks, the bar charts, the original beside ours, the
   * checks.
   */
  static String section(RunResult result) {
    StudyRecord study = result.study();
    StringBuilder h =
        new StringBuilder("<section id=\"study\"><h2>Study ")
            .append(Html.esc(study.name()))
            .append(": ")
            .append(Html.esc(study.title()))
            .append("</h2>\n");
    h.append(StudyGrid.html(result)); // the original's own tables first, when its steps form one
    h.append(ServiceComparison.html(result));
    h.append(table(result));
    List<StudyRow> rows = StudyRow.of(result);
    List<String> remarks =
        StudyTableText.remarks(study, rows, false); // a step not measured says so in its row
    h.append(
        "<p class=\"muted\">One level is measured per step, so this table sizes each step at its chosen level;"
            + " how throughput scales is read from the probe sweeps below, not from these rows.</p>\n");
    for (String note : study.notes())
      h.append("<p class=\"warn\">").append(Html.esc(note)).append("</p>\n");
    if (!remarks.isEmpty()) {
      h.append("<ul>");
      for (String r : remarks) h.append("<li>").append(Html.esc(r)).append("</li>");
      h.append("</ul>\n");
    }
    for (Chart chart : StudyTables.charts(result)) h.append(chart.render());
    h.append(FaultTimeline.html(result));
    h.append(SizingCheckTable.html(result));
    PublishedBeside.originalInWords(result)
        .ifPresent(
            w ->
                h.append("<h3>The original beside ours</h3>\n<p>")
                    .append(Html.esc(w))
                    .append(".</p>\n"));
    published(h, result);
    checks(h, study);
    return h.append("</section>\n").toString();
  }

  /**
   * The study's table alone, a row per step recorded so far (the live page shows it filling in):
   * its cells as the terminal's, a step not measured saying why.
   */
  static String table(RunResult result) {
    StudyRecord study = result.study();
    StringBuilder h = new StringBuilder("<div class=\"wide\"><table id=\"study-table\"><tr>");
    String[] header = StudyTableText.header(study);
    for (int i = 0; i < header.length; i++)
      h.append(i == 0 ? "<th class=\"l\">" : "<th>").append(Html.esc(header[i])).append("</th>");
    h.append("</tr>\n");
    List<StudyRow> rows = StudyRow.of(result);
    for (StudyRow row : rows) {
      Optional<LevelResult> level = row.level();
      if (level.isEmpty()) {
        String why = StudyTableText.whyNotMeasured(row);
        h.append("<tr><td class=\"l\">")
            .append(Html.esc(row.label()))
            .append("</td><td class=\"l\" colspan=\"")
            .append(header.length - 1)
            .append("\">")
            .append(why.startsWith(StudyTableText.NOT_APPLICABLE) ? "" : "not measured: ")
            .append(Html.esc(why))
            .append("</td></tr>\n");
        continue;
      }
      String[] cells = StudyTableText.cells(row, level.get(), study);
      h.append("<tr>");
      for (int i = 0; i < cells.length; i++)
        h.append(i == 0 ? "<td class=\"l\">" : "<td>").append(Html.esc(cells[i])).append("</td>");
      h.append("</tr>\n");
    }
    return h.append("</table></div>\n").toString();
  }

  private static void published(StringBuilder h, RunResult result) {
    StudyRecord study = result.study();
    PublishedBeside.Beside published = PublishedBeside.of(result);
    List<String[]> beside = published.rows();
    if (beside.size() <= 1) return;
    h.append("<h3>The original beside ours</h3>\n<table id=\"published\">");
    for (int r = 0; r < beside.size(); r++) {
      h.append("<tr>");
      for (int i = 0; i < beside.get(r).length; i++) {
        String tag = r == 0 ? "th" : "td";
        h.append('<')
            .append(tag)
            .append(i == 0 || i == 2 ? " class=\"l\">" : ">")
            .append(Html.esc(beside.get(r)[i]))
            .append("</")
            .append(tag)
            .append('>');
      }
      h.append("</tr>\n");
    }
    h.append("</table>\n<p>Original: ")
        .append(Html.esc(study.published().source()))
        .append("; ")
        .append(Html.esc(study.published().hardware()))
        .append(".<br>Ours: ")
        .append(Html.esc(PublishedBeside.hardware(result.environment())))
        .append(".</p>\n");
    for (String n : PublishedBeside.notComparable(study))
      h.append("<p class=\"warn\">").append(Html.esc(n)).append(".</p>\n");
    for (String r : PublishedBeside.ratios(result))
      h.append("<p>").append(Html.esc(r)).append(".</p>\n");
    if (published.starred()) {
      h.append(
          "<p class=\"warn\">* ours measured a substitute for the original's configuration; the grid's footnotes above say which.</p>\n");
    }
  }

  private static void checks(StringBuilder h, StudyRecord study) {
    if (study.checks().isEmpty()) return;
    h.append(
        "<h3>Checks</h3>\n<table id=\"checks\"><tr><th class=\"l\">check</th><th class=\"l\">outcome</th><th class=\"l\">found</th></tr>\n");
    for (StudyRecord.CheckRecord c : study.checks()) {
      h.append("<tr><td class=\"l\">")
          .append(Html.esc(c.name()))
          .append("</td><td class=\"l\">")
          .append(c.passed() ? "passed" : "<b>FAILED</b>")
          .append("</td><td class=\"l\">")
          .append(Html.esc(c.detail()))
          .append("</td></tr>\n");
    }
    h.append("</table>\n");
  }
}
