package io.pkibench.dashboard;

import io.pkibench.analysis.TrimmedNumber;
import io.pkibench.metrics.SeriesKey;
import io.pkibench.report.Html;
import io.pkibench.report.HtmlReport;
import io.pkibench.report.SvgChart;
import io.pkibench.results.RunResult;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The live page: its charts are SVG drawn here, on the server, by the report's own chart renderer
 * ({@link SvgChart}), so the page needs no script, font or style from anywhere else; the few lines
 * of script it carries only fetch the next rendering once a second and put it in place.
 */
public final class LivePage {
  /** The element the script replaces, and the JSON field that carries its new content. */
  static final String LIVE_ID = "live";

  /**
   * The most points a live chart's series draws: about two pixels each across the plot. A longer
   * run's seconds are averaged in groups to fit, so that a poll costs the same after an hour as
   * after a minute (drawing all 3,600 seconds took about 8 ms of CPU a poll, 40 times the cost of
   * the first minute's).
   */
  static final int MAX_DRAWN = 300;

  private LivePage() {}

  /**
   * A study's part of one rendering, read once: its step in words and its table so far (both null
   * for a run, or before the study begins).
   */
  record Study(String step, String tableHtml) {
    static final Study NONE = new Study(null, null);

    static Study of(StudyView view) {
      if (view == null) return NONE;
      RunResult soFar = view.soFar();
      if (soFar == null || soFar.study() == null || soFar.study().steps().isEmpty())
        return new Study(view.step(), null);
      String table;
      try {
        table = HtmlReport.studyTable(soFar);
      } catch (RuntimeException e) {
        // a result read between two of the runner's writes must not take the whole page down:
        // the table says why it is missing, and the next second draws it again
        table =
            "<p class=\"status\">the study's table cannot be drawn from this reading: "
                + Html.esc(String.valueOf(e.getMessage()))
                + "</p>\n";
      }
      return new Study(view.step(), table);
    }
  }

  /** The whole page, as it stands now. */
  public static String page(LiveHistory.View view) {
    return page(view, body(view));
  }

  /** The whole page around {@code body}, {@link #body} of the same view. */
  static String page(LiveHistory.View view, String body) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>pkibench live "
        + Html.esc(view.runId())
        + "</title>\n<style>\n"
        + "body{font-family:sans-serif;margin:24px auto;max-width:1000px;color:#222}h1{margin-bottom:4px}"
        + "table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
        + "th{background:#f3f3f3}td.l,th.l{text-align:left}.status{background:#f6f9ff;border-left:4px solid #1f77b4;padding:8px 12px}"
        + "\n</style>\n</head><body>\n<h1>pkibench live: "
        + Html.esc(view.runId())
        + "</h1>\n<div id=\""
        + LIVE_ID
        + "\">\n"
        + body
        + "</div>\n<script>\n"
        // Polls the same server (the only origin the page's policy allows); when the run has ended
        // the page reloads once, into the report the run saved.
        + "(function poll(){fetch('live.json',{cache:'no-store'}).then(function(r){return r.json();})"
        + ".then(function(j){if(j.ended){location.reload();return;}"
        + "document.getElementById('"
        + LIVE_ID
        + "').innerHTML=j.html;setTimeout(poll,1000);})"
        + ".catch(function(){setTimeout(poll,2000);});})();\n"
        + "</script>\n</body></html>\n";
  }

  /** What the script puts in place each second: the status line, the charts and the table. */
  public static String body(LiveHistory.View view) {
    return body(view, Study.NONE);
  }

  /**
   * As {@link #body(LiveHistory.View)}, with a study's step in the status line and its own table,
   * as the report shows it, filling in above the series.
   */
  static String body(LiveHistory.View view, Study study) {
    StringBuilder h = new StringBuilder();
    h.append("<p class=\"status\" id=\"status\">")
        .append(Html.esc(status(view, study)))
        .append("</p>\n");
    for (SvgChart chart : charts(view)) {
      if (!chart.isEmpty()) h.append(chart.render());
    }
    if (study.tableHtml() != null)
      h.append("<h2>The study so far</h2>\n").append(study.tableHtml());
    table(h, view.rows());
    return h.toString();
  }

  /** The study's step, then what runs now and what remains, in words. */
  static String status(LiveHistory.View view, Study study) {
    return study.step() == null ? status(view) : study.step() + "; " + status(view);
  }

  /** What runs now and what remains, in words. */
  static String status(LiveHistory.View view) {
    List<LiveHistory.Row> now = view.current();
    String running =
        now.isEmpty()
            ? (view.sequence() == 0 ? "starting" : "between levels")
            : "running " + String.join(", ", now.stream().map(r -> label(r.key())).toList());
    String time =
        String.format(Locale.ROOT, "%.0f s elapsed", view.elapsedSeconds())
            + (Double.isNaN(view.plannedSeconds())
                ? ""
                : String.format(
                    Locale.ROOT,
                    " of about %.0f s planned (about %.0f s left)",
                    view.plannedSeconds(),
                    Math.max(0, view.plannedSeconds() - view.elapsedSeconds())));
    return running + "; " + time + "; " + view.rows().size() + " series so far";
  }

  static List<SvgChart> charts(LiveHistory.View view) {
    List<LiveHistory.Point> p = view.points();
    SvgChart throughput =
        chart("live-throughput", "Operations and errors per second", "seconds", "per second");
    throughput.add(series("succeeded/s", p, LiveHistory.Point::opsPerSecond, false));
    throughput.add(series("errors/s", p, LiveHistory.Point::errorsPerSecond, true));
    SvgChart latency = chart("live-latency", "Latency per second", "seconds", "ms");
    latency.add(series("p50", p, LiveHistory.Point::p50Millis, false));
    latency.add(series("p99", p, LiveHistory.Point::p99Millis, true));
    SvgChart cpu = chart("live-cpu", "CPU per side", "seconds", "cores busy");
    cpu.add(series("client", p, LiveHistory.Point::clientCpuCores, false));
    cpu.add(series("service", p, LiveHistory.Point::serviceCpuCores, true));
    SvgChart curve = chart("live-curve", "Throughput by level (measured)", "level", "per second");
    // One curve per workload (a study's step is one): the levels of two would zigzag as one line.
    Map<String, List<SvgChart.Point>> levels = new LinkedHashMap<>();
    for (LiveHistory.Row r : view.rows()) {
      if ("measure".equals(r.key().phase()) && r.key().member() == null) {
        double x = r.levelNumber(), y = r.opsPerSecond();
        if (Double.isFinite(x) && Double.isFinite(y))
          levels
              .computeIfAbsent(r.key().workload(), w -> new ArrayList<>())
              .add(new SvgChart.Point(x, y));
      }
    }
    levels.forEach(
        (workload, points) -> curve.add(new SvgChart.Series(workload, points, false, true)));
    return List.of(throughput, latency, cpu, curve);
  }

  private static SvgChart chart(String id, String title, String x, String y) {
    return new SvgChart(id, title, x, y, false, false, LivePage::number, LivePage::number);
  }

  private static SvgChart.Series series(
      String name,
      List<LiveHistory.Point> points,
      ToDoubleFunction<LiveHistory.Point> value,
      boolean dashed) {
    List<SvgChart.Point> drawn = new ArrayList<>();
    for (LiveHistory.Point p : points) {
      double y = value.applyAsDouble(p);
      if (Double.isFinite(y)) drawn.add(new SvgChart.Point(p.atSeconds(), y));
    }
    return new SvgChart.Series(name, thinned(drawn), dashed, false);
  }

  /** At most {@link #MAX_DRAWN} points: each the mean of a group of consecutive ones. */
  static List<SvgChart.Point> thinned(List<SvgChart.Point> points) {
    if (points.size() <= MAX_DRAWN) return points;
    int group = (points.size() + MAX_DRAWN - 1) / MAX_DRAWN;
    List<SvgChart.Point> fewer = new ArrayList<>(MAX_DRAWN);
    for (int from = 0; from < points.size(); from += group) {
      List<SvgChart.Point> g = points.subList(from, Math.min(points.size(), from + group));
      double x = 0, y = 0;
      for (SvgChart.Point p : g) {
        x += p.x();
        y += p.y();
      }
      fewer.add(new SvgChart.Point(x / g.size(), y / g.size()));
    }
    return fewer;
  }

  /** The table filling in row by row: a level, a stage or a study's step each. */
  private static void table(StringBuilder h, List<LiveHistory.Row> rows) {
    h.append(
        "<table id=\"series\"><tr><th class=\"l\">series</th><th>succeeded</th><th>failed</th>"
            + "<th>per second</th><th>p50 ms</th><th>p99 ms</th><th class=\"l\">now</th></tr>\n");
    Function<Double, String> n = v -> Double.isFinite(v) ? number(v) : "–";
    for (LiveHistory.Row r : rows) {
      h.append("<tr><td class=\"l\">")
          .append(Html.esc(label(r.key())))
          .append("</td><td>")
          .append(r.succeeded())
          .append("</td><td>")
          .append(r.failed())
          .append("</td><td>")
          .append(n.apply(r.opsPerSecond()))
          .append("</td><td>")
          .append(n.apply(r.p50Millis()))
          .append("</td><td>")
          .append(n.apply(r.p99Millis()))
          .append("</td><td class=\"l\">")
          .append(r.live() ? "running" : "done")
          .append("</td></tr>\n");
    }
    h.append("</table>\n");
  }

  static String label(SeriesKey k) {
    return k.workload()
        + " "
        + k.level()
        + " "
        + k.phase()
        + (k.stage() == null ? "" : " stage " + k.stage())
        + (k.member() == null ? "" : " " + k.member());
  }

  static String number(double v) {
    if (Math.abs(v) >= 1e6) return TrimmedNumber.of(v / 1e6, 4) + "M";
    if (Math.abs(v) >= 1e4) return TrimmedNumber.of(v / 1e3, 4) + "k";
    return TrimmedNumber.of(v, 4);
  }
}
