package io.pkibench.report;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.analysis.Analysis;
import io.pkibench.analysis.Steadiness;
import io.pkibench.analysis.TrimmedNumber;
import io.pkibench.analysis.UslFit;
import io.pkibench.analysis.UslForecast;
import io.pkibench.files.OutputFiles;
import io.pkibench.results.CpuProfile;
import io.pkibench.results.ErrorCount;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.WorkloadResult;
import io.pkibench.text.Units;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * The report an architect gets: one self-contained HTML file (inline SVG and CSS, no script, no
 * network). Verdict and key numbers first; then per workload throughput with the USL curve, latency
 * percentiles (linear and log), the percentile spectrum per level, per-iteration throughput;
 * capacity, errors, and the environment and plan last.
 */
public final class HtmlReport {
  private static final double[] SPECTRUM_PERCENTILES = {
    0, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999
  };

  private HtmlReport() {}

  public static String render(RunResult result, Analysis analysis) {
    return render(result, analysis, null);
  }

  /** A study's table as the report shows it, its rows those recorded so far: the live page's. */
  public static String studyTable(RunResult result) {
    return StudyHtml.table(result);
  }

  /**
   * The report, with the "where the CPU went" section of a {@code --profile} run when {@code
   * profile} is not null.
   */
  public static String render(RunResult result, Analysis analysis, CpuProfile profile) {
    StringBuilder h = new StringBuilder();
    head(h, result);
    if (result.study() != null) h.append(StudyTables.html(result));
    h.append(ThresholdTables.html(result));
    verdicts(h, result, analysis);
    chartSection(h, result, analysis);
    capacity(h, result, analysis);
    h.append(MixTables.html(result));
    errors(h, result);
    if (profile != null) h.append(ProfileSection.html(profile));
    environment(h, result);
    return h.append("</body></html>\n").toString();
  }

  /** The page's head and style, its title, and the command line and status under it. */
  private static void head(StringBuilder h, RunResult result) {
    String heading =
        result.study() == null ? "pkibench report" : "pkibench study " + result.study().name();
    h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>")
        .append(Html.esc(heading))
        .append("</title>\n<style>\n")
        .append(
            "body{font-family:sans-serif;margin:24px auto;max-width:1000px;color:#222}h1{margin-bottom:4px}")
        .append(
            "table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}")
        .append(
            "th{background:#f3f3f3}td.l,th.l{text-align:left}.verdict{font-size:1.08em;background:#f6f9ff;border-left:4px solid #1f77b4;padding:8px 12px}"
                + ".warn{background:#fff8e6;border-left:4px solid #ff7f0e;padding:6px 12px}"
                + ".wide{overflow-x:auto}.wide td,.wide th{font-size:.86em;padding:3px 5px}.wide td{white-space:nowrap}")
        .append(
            ".muted{color:#666}svg.chart{display:block;margin:12px 0;border:1px solid #ddd}pre{background:#f6f6f6;padding:8px;overflow:auto}\n")
        .append("</style></head><body>\n");
    h.append("<h1>")
        .append(Html.esc(heading))
        .append("</h1>\n<p class=\"muted\">")
        .append(Html.esc(result.environment().commandLine()))
        .append(" · started ")
        .append(toTheSecond(result.environment().startedAt()))
        .append(" · status <b>")
        .append(Html.esc(result.status().toString()))
        .append("</b></p>\n");
  }

  /**
   * Per workload: the verdict, its best level, the sizing sentence, and the levels too unsteady to
   * trust.
   */
  private static void verdicts(StringBuilder h, RunResult result, Analysis analysis) {
    h.append("<section id=\"verdict\"><h2>Verdict</h2>\n");
    for (int i = 0; i < result.workloads().size(); i++) {
      WorkloadResult w = result.workloads().get(i);
      Analysis.WorkloadAnalysis a = analysis.workloads().get(i);
      h.append("<h3>")
          .append(Html.esc(StudyTables.label(w, a.label())))
          .append(" <span class=\"muted\">keys ")
          .append(Html.esc(w.keys()))
          .append("</span></h3>\n");
      if (w.failure() != null)
        h.append("<p><b>Stopped:</b> ").append(Html.esc(w.failure())).append("</p>\n");
      for (String note : w.notes())
        h.append("<p class=\"warn\"><b>Note:</b> ").append(Html.esc(note)).append("</p>\n");
      TerminalTable.outcomes(w)
          .ifPresent(text -> h.append("<p>").append(Html.esc(text)).append("</p>\n"));
      if (w.levels().isEmpty()) continue;
      h.append("<p class=\"verdict\">").append(Html.esc(a.verdict().text())).append("</p>\n");
      LevelResult best =
          w.levels().stream()
              .max(Comparator.comparingDouble(l -> l.throughput().mean()))
              .orElseThrow();
      long failed = w.levels().stream().mapToLong(l -> l.counts().failed()).sum();
      h.append(
              "<table><tr><th class=\"l\">best throughput</th><th class=\"l\">at</th><th class=\"l\">p99 there</th><th class=\"l\">ops per CPU-second there</th><th class=\"l\">failed operations (all levels)</th></tr>\n<tr><td>")
          .append(Units.rate(best.throughput().mean()))
          .append(" ops/s</td><td>")
          .append(Html.esc(loadLabel(best)))
          .append("</td><td>")
          .append(Units.nanos(best.latencyNanos().p99()))
          .append("</td><td>")
          .append(
              best.cpu().opsPerCpuSecond() == null ? "-" : Units.rate(best.cpu().opsPerCpuSecond()))
          .append("</td><td>")
          .append(failed)
          .append("</td></tr></table>\n");
      if (a.selfCheck() != null)
        h.append("<p class=\"self-check\">Self-check: ")
            .append(Html.esc(a.selfCheck().text()))
            .append("</p>\n");
      if (a.capacity().sizing() != null)
        h.append("<p>").append(Html.esc(a.capacity().sizing().text())).append("</p>\n");
      for (LevelResult l : w.levels()) {
        Steadiness.warning(l)
            .ifPresent(
                text ->
                    h.append("<p class=\"warn\"><b>")
                        .append(Html.esc(loadLabel(l)))
                        .append(":</b> ")
                        .append(Html.esc(text))
                        .append("</p>\n"));
      }
    }
    h.append("</section>\n");
  }

  /** Every chart but the study's own, which open the report. */
  private static void chartSection(StringBuilder h, RunResult result, Analysis analysis) {
    h.append("<section id=\"charts\"><h2>Charts</h2>\n");
    for (Chart chart : charts(result, analysis)) {
      if (!chart.id().startsWith("study-"))
        h.append(chart.render()); // the study's own charts open the report
    }
    h.append("</section>\n");
  }

  /**
   * Per workload its levels and USL fit, the key sources side by side, and the relative CPU cost.
   */
  private static void capacity(StringBuilder h, RunResult result, Analysis analysis) {
    h.append("<section id=\"capacity\"><h2>Capacity</h2>\n");
    for (int i = 0; i < result.workloads().size(); i++) {
      WorkloadResult w = result.workloads().get(i);
      if (w.levels().isEmpty()) continue;
      h.append("<h3>")
          .append(Html.esc(StudyTables.label(w, analysis.workloads().get(i).label())))
          .append("</h3>\n<table><tr><th class=\"l\">level</th><th>ops/s</th><th>±99.9%</th>")
          .append("<th>p50</th><th>p99</th><th>p99.9</th><th>CPU utilisation (of ")
          .append(result.environment().cores())
          .append(" cores)</th><th>ops per CPU-second</th><th>efficiency</th></tr>\n");
      List<Double> efficiency = analysis.workloads().get(i).verdict().efficiency();
      List<LevelResult> sorted =
          w.levels().stream().sorted(Comparator.comparingDouble(LevelResult::load)).toList();
      for (int k = 0; k < sorted.size(); k++) {
        LevelResult l = sorted.get(k);
        h.append("<tr><td class=\"l\">")
            .append(Html.esc(loadLabel(l)))
            .append("</td><td>")
            .append(Units.rate(l.throughput().mean()))
            .append("</td><td>")
            .append(
                l.throughput().ci999() == null
                    ? "-"
                    : HumanUnits.intervalTooWide(l.throughput()).isPresent()
                        ? "wider than the value: too few iterations"
                        : Units.rate(l.throughput().ci999()))
            .append("</td><td>")
            .append(Units.nanos(l.latencyNanos().p50()))
            .append("</td><td>")
            .append(Units.nanos(l.latencyNanos().p99()))
            .append("</td><td>")
            .append(Units.nanos(l.latencyNanos().p999()))
            .append("</td><td>")
            .append(HumanUnits.percent(l.cpu().utilisation()))
            .append("</td><td>")
            .append(l.cpu().opsPerCpuSecond() == null ? "-" : Units.rate(l.cpu().opsPerCpuSecond()))
            .append("</td><td>")
            .append(k < efficiency.size() ? HumanUnits.percent(efficiency.get(k)) : "-")
            .append("</td></tr>\n");
      }
      h.append("</table>\n");
      h.append(StageCharts.html(w, i + 1));
      UslFit usl = analysis.workloads().get(i).usl();
      if (usl != null) {
        h.append(
            String.format(
                Locale.ROOT,
                "<p>USL fit over %d levels%s: σ = %.5f%s, κ = %.7f%s, λ = %.2f%s ops/s, R² = %.4f%s.</p>%n",
                usl.levels(),
                usl.weak() ? " (weak: fewer than " + UslFit.TRUSTWORTHY_LEVELS + " levels)" : "",
                usl.sigma(),
                err(usl.sigmaStdErr()),
                usl.kappa(),
                err(usl.kappaStdErr()),
                usl.lambda(),
                err(usl.lambdaStdErr()),
                usl.rSquared(),
                usl.peakConcurrency() == null
                    ? "; no peak: throughput keeps rising in the model"
                    : String.format(
                        Locale.ROOT,
                        "; predicted peak %.1f ops/s at %.1f",
                        usl.peakThroughput(),
                        usl.peakConcurrency())));
      }
    }
    h.append(KeySourceShootout.html(result));
    if (analysis.relativeCost().size() > 1) {
      h.append(
              "<h3>Relative CPU cost per operation</h3>\n<table><tr><th class=\"l\">workload</th><th>CPU µs per op</th><th>relative to ")
          .append(Html.esc(analysis.baseline()))
          .append("</th></tr>\n");
      for (Analysis.CostRow c : analysis.relativeCost()) {
        h.append("<tr><td class=\"l\">")
            .append(Html.esc(c.workload()))
            .append("</td><td>")
            .append(
                c.cpuMicrosPerOp() == null
                    ? "-"
                    : String.format(Locale.ROOT, "%.2f", c.cpuMicrosPerOp()))
            .append("</td><td>")
            .append(c.relative() == null ? "-" : String.format(Locale.ROOT, "%.2f×", c.relative()))
            .append("</td></tr>\n");
      }
      h.append("</table>\n");
    }
    h.append("</section>\n");
  }

  /** Every error of a measured iteration, by workload, level and cause. */
  private static void errors(StringBuilder h, RunResult result) {
    h.append("<section id=\"errors\"><h2>Errors</h2>\n");
    boolean anyError = false;
    for (WorkloadResult w : result.workloads()) {
      for (LevelResult l : w.levels()) {
        for (ErrorCount e : l.errors()) {
          if (!anyError)
            h.append(
                "<table><tr><th class=\"l\">workload</th><th class=\"l\">level</th><th>count</th><th class=\"l\">cause</th></tr>\n");
          anyError = true;
          h.append("<tr><td class=\"l\">")
              .append(Html.esc(w.name()))
              .append("</td><td class=\"l\">")
              .append(Html.esc(loadLabel(l)))
              .append("</td><td>")
              .append(e.count())
              .append("</td><td class=\"l\">")
              .append(Html.esc(e.cause()))
              .append("</td></tr>\n");
        }
      }
    }
    h.append(anyError ? "</table>\n" : "<p>No operation failed in a measured iteration.</p>\n")
        .append("</section>\n");
  }

  /** Where it ran and the plan as run. */
  private static void environment(StringBuilder h, RunResult result) {
    var env = result.environment();
    h.append("<section id=\"environment\"><h2>Environment and plan</h2>\n<table>");
    row(h, "tool", env.toolVersion() + " (commit " + env.commit() + ")");
    row(h, "JDK", env.jdk());
    row(h, "OS", env.os());
    row(h, "CPU", env.cpuModel() + " × " + env.cores());
    row(
        h,
        "memory",
        String.format(Locale.ROOT, "%.1f GiB", env.memoryBytes() / (1024.0 * 1024 * 1024)));
    row(h, "providers", String.join(", ", env.providers()));
    row(h, "command line", env.commandLine());
    row(h, "started", toTheSecond(env.startedAt()));
    JsonNode plan = RunResultJson.mapper().valueToTree(result.plan());
    Map<String, String> rows = new LinkedHashMap<>();
    flatten("", plan, rows);
    for (Map.Entry<String, String> planRow : rows.entrySet())
      row(h, "plan: " + planRow.getKey(), planRow.getValue());
    h.append("</table>\n</section>\n");
  }

  /** A time as people read it: to the second, in UTC. */
  static String toTheSecond(Instant time) {
    return time == null ? "" : time.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /**
   * The plan's fields as rows, named by their path (load.model, workloads[1].params.alg); a list of
   * plain values on one row; empty fields left out.
   */
  private static void flatten(String path, JsonNode node, Map<String, String> rows) {
    if (node == null || node.isNull() || node.isMissingNode()) return;
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> field : node.properties())
        flatten(
            path.isEmpty() ? field.getKey() : path + "." + field.getKey(), field.getValue(), rows);
    } else if (node.isArray()) {
      boolean plain = true;
      for (JsonNode item : node) plain &= item.isValueNode();
      if (plain) {
        List<String> values = new ArrayList<>();
        for (JsonNode item : node) values.add(item.asText());
        if (!values.isEmpty()) rows.put(path, String.join(", ", values));
      } else {
        for (int k = 0; k < node.size(); k++)
          flatten(path + "[" + (k + 1) + "]", node.get(k), rows);
      }
    } else {
      rows.put(path, node.asText());
    }
  }

  /** Writes the report to {@code target}, creating its directory. */
  public static void write(Path target, RunResult result, Analysis analysis) throws IOException {
    write(target, result, analysis, null);
  }

  /** The same, with the profile of a {@code --profile} run (null: none). */
  public static void write(Path target, RunResult result, Analysis analysis, CpuProfile profile)
      throws IOException {
    if (target.toAbsolutePath().getParent() != null)
      Files.createDirectories(target.toAbsolutePath().getParent());
    OutputFiles.replace(
        target,
        render(result, analysis, profile)); // owner-only; a link at target replaced, not followed
  }

  /**
   * Every chart of the report, in order; ids are stable ({@code throughput-1}, {@code
   * spectrum-1}...) for tests and PNG names.
   */
  public static List<Chart> charts(RunResult result, Analysis analysis) {
    List<Chart> charts = new ArrayList<>();
    if (result.study() != null) charts.addAll(StudyTables.charts(result));
    charts.addAll(KeySourceShootout.charts(result));
    for (int i = 0; i < result.workloads().size(); i++) {
      WorkloadResult w = result.workloads().get(i);
      if (w.levels().isEmpty()) continue;
      String label = StudyTables.label(w, analysis.workloads().get(i).label());
      int n = i + 1;
      boolean open = w.levels().stream().anyMatch(l -> l.openLoop() != null);
      String xLabel = open ? "target rate (ops/s)" : "concurrency (workers)";
      List<LevelResult> levels =
          w.levels().stream().sorted(Comparator.comparingDouble(LevelResult::load)).toList();

      // One level is one dot on an axis of its own: the load-axis charts say nothing then, so they
      // are left out.
      boolean sweep = levels.size() > 1;
      SvgChart throughput =
          new SvgChart(
              "throughput-" + n,
              label + ": throughput",
              xLabel,
              "ops/s",
              false,
              false,
              HtmlReport::number,
              HtmlReport::number);
      if (!open) throughput.wholeNumbersX();
      throughput.add(
          new SvgChart.Series(
              "measured",
              levels.stream()
                  .map(l -> new SvgChart.Point(l.load(), l.throughput().mean()))
                  .toList(),
              false,
              true));
      UslFit usl = analysis.workloads().get(i).usl();
      if (usl != null && !open) {
        double hi = levels.get(levels.size() - 1).load();
        List<SvgChart.Point> curve = new ArrayList<>();
        for (int k = 0; k <= 60; k++) {
          double x = 1 + (hi - 1) * k / 60.0;
          curve.add(new SvgChart.Point(x, usl.predict(x)));
        }
        throughput.add(new SvgChart.Series("USL fit", curve, true, false));
        // The band a measurement would fall in (95%), drawn only over the measured range: past it
        // the report claims nothing.
        UslForecast forecast = UslForecast.of(Analysis.steadyPoints(w), 0.95).forecast();
        if (forecast != null && forecast.hasIntervals()) {
          List<SvgChart.Point> low = new ArrayList<>(), high = new ArrayList<>();
          for (SvgChart.Point p : curve) {
            UslForecast.Prediction at = forecast.predict(p.x());
            if (at.low() == null) continue;
            low.add(new SvgChart.Point(p.x(), at.low()));
            high.add(new SvgChart.Point(p.x(), at.high()));
          }
          throughput.add(new SvgChart.Series("USL 95% band, low", low, true, false));
          throughput.add(new SvgChart.Series("USL 95% band, high", high, true, false));
        }
      }
      if (open)
        throughput.add(
            new SvgChart.Series(
                "target",
                levels.stream().map(l -> new SvgChart.Point(l.load(), l.load())).toList(),
                true,
                false));
      if (sweep) charts.add(throughput);

      for (boolean log : sweep ? new boolean[] {false, true} : new boolean[0]) {
        SvgChart latency =
            new SvgChart(
                (log ? "latency-log-" : "latency-") + n,
                label + ": latency percentiles" + (log ? " (log scale)" : ""),
                xLabel,
                "latency",
                false,
                log,
                HtmlReport::number,
                Units::nanos);
        if (!open) latency.wholeNumbersX();
        latency.add(percentileSeries("p50", levels, 50));
        latency.add(percentileSeries("p90", levels, 90));
        latency.add(percentileSeries("p99", levels, 99));
        latency.add(percentileSeries("p99.9", levels, 99.9));
        // max is one operation's worst: on a linear axis it flattens every percentile against zero
        if (log) latency.add(percentileSeries("max", levels, 100));
        if (open) {
          latency.add(
              new SvgChart.Series(
                  "p99 uncorrected",
                  levels.stream()
                      .map(
                          l ->
                              new SvgChart.Point(
                                  l.load(), l.openLoop().uncorrectedLatencyNanos().p99()))
                      .toList(),
                  true,
                  true));
        }
        charts.add(latency);
      }

      // Log on both axes: the tail spans orders of magnitude that a linear axis flattens the body
      // against.
      SvgChart spectrum =
          new SvgChart(
              "spectrum-" + n,
              label + ": latency by percentile",
              "percentile",
              "latency",
              true,
              true,
              HtmlReport::percentileLabel,
              Units::nanos);
      for (LevelResult l : levels)
        spectrum.add(
            new SvgChart.Series(loadLabel(l), spectrum(l.mergedHistogram()), false, false));
      charts.add(spectrum);

      SvgChart iterations =
          new SvgChart(
                  "iterations-" + n,
                  label + ": throughput per iteration (open = warm-up)",
                  "iteration",
                  "ops/s",
                  false,
                  false,
                  HtmlReport::number,
                  HtmlReport::number)
              .wholeNumbersX();
      for (LevelResult l : levels) {
        List<SvgChart.Point> points = new ArrayList<>();
        int k = 0;
        for (IterationResult it : l.iterations())
          points.add(new SvgChart.Point(++k, it.opsPerSecond(), it.warmup()));
        iterations.add(new SvgChart.Series(loadLabel(l), points, false, true));
      }
      charts.add(iterations);
      charts.addAll(StageCharts.charts(w, label, n));
    }
    return charts;
  }

  private static SvgChart.Series percentileSeries(
      String name, List<LevelResult> levels, double percentile) {
    return new SvgChart.Series(
        name,
        levels.stream()
            .map(
                l ->
                    new SvgChart.Point(
                        l.load(),
                        switch ((int) (percentile * 10)) {
                          case 500 -> l.latencyNanos().p50();
                          case 900 -> l.latencyNanos().p90();
                          case 990 -> l.latencyNanos().p99();
                          case 999 -> l.latencyNanos().p999();
                          default -> l.latencyNanos().max();
                        }))
            .toList(),
        false,
        true);
  }

  /**
   * x = 1 / (1 − q), so that 90%, 99%, 99.9%... are evenly spaced on a log axis, as HdrHistogram
   * plots them.
   */
  static List<SvgChart.Point> spectrum(Histogram h) {
    List<SvgChart.Point> points = new ArrayList<>();
    if (h.getTotalCount() == 0) return points;
    for (double p : SPECTRUM_PERCENTILES)
      points.add(new SvgChart.Point(1 / (1 - p / 100), h.getValueAtPercentile(p)));
    return points;
  }

  private static String percentileLabel(double x) {
    double q = 100 * (1 - 1 / x);
    if (q < 1e-9) return "0%";
    return TrimmedNumber.of(q, 4) + "%";
  }

  private static String number(double v) {
    if (Math.abs(v) >= 1e6) return TrimmedNumber.of(v / 1e6, 4) + "M";
    if (Math.abs(v) >= 1e4) return TrimmedNumber.of(v / 1e3, 4) + "k";
    return TrimmedNumber.of(v, 4);
  }

  private static String loadLabel(LevelResult l) {
    return l.openLoop() == null ? "c=" + l.concurrency() : number(l.openLoop().targetRate()) + "/s";
  }

  private static String err(Double stdErr) {
    return stdErr == null ? "" : String.format(Locale.ROOT, " ± %.2g", stdErr);
  }

  private static void row(StringBuilder h, String key, String value) {
    h.append("<tr><th class=\"l\">")
        .append(Html.esc(key))
        .append("</th><td class=\"l\">")
        .append(Html.esc(value))
        .append("</td></tr>\n");
  }
}
