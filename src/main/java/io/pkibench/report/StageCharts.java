package io.pkibench.report;

import io.pkibench.results.LevelResult;
import io.pkibench.results.Timeline;
import io.pkibench.results.WorkloadResult;
import io.pkibench.text.ConsoleTable;
import io.pkibench.text.OutsideText;
import io.pkibench.text.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * A staged level ({@code run --stages}) second by second: latency on a log axis (p50, p99, max of
 * each second's own histogram), ops/s achieved beside the target, and for worker stages the workers
 * running beside those asked; each stage's start marked; a mix's members' ops/s and p99 per second.
 * Then the per-stage table, as the terminal and the HTML show it.
 */
final class StageCharts {
  private StageCharts() {}

  /**
   * The charts of each staged level of {@code w}; ids {@code timeline-latency-N}, {@code
   * timeline-rate-N}, {@code timeline-workers-N}.
   */
  static List<Chart> charts(WorkloadResult w, String label, int n) {
    List<Chart> charts = new ArrayList<>();
    for (LevelResult l : w.levels()) {
      Timeline t = l.timeline();
      if (t == null || t.seconds().isEmpty()) continue;
      boolean workers = t.seconds().stream().anyMatch(s -> s.targetWorkers() != null);
      SvgChart latency =
          new SvgChart(
              "timeline-latency-" + n,
              label + ": latency per second (" + t.stages() + ")",
              "time (s)",
              "latency",
              false,
              true,
              StageCharts::seconds,
              Units::nanos);
      latency.add(series("p50", t, s -> (double) s.p50Nanos()));
      latency.add(series("p99", t, s -> (double) s.p99Nanos()));
      latency.add(series("max", t, s -> (double) s.maxNanos()));
      SvgChart rate =
          new SvgChart(
              "timeline-rate-" + n,
              label + ": ops/s per second (" + t.stages() + ")",
              "time (s)",
              "ops/s",
              false,
              false,
              StageCharts::seconds,
              Units::rate);
      rate.add(series("achieved", t, Timeline.Second::opsPerSecond));
      if (!workers)
        rate.add(
            dashed(
                "target", t, s -> s.targetPerSecond() == null ? Double.NaN : s.targetPerSecond()));
      List<SvgChart> drawn = new ArrayList<>(List.of(latency, rate));
      List<String> members =
          t.seconds().isEmpty()
              ? List.of()
              : t.seconds().get(0).members().stream().map(Timeline.MemberSecond::label).toList();
      if (!members.isEmpty()) {
        // A mix's members second by second: where one member's rate or latency bends while the
        // others hold.
        SvgChart memberRate =
            new SvgChart(
                "timeline-members-" + n,
                label + ": ops/s per member per second (" + t.stages() + ")",
                "time (s)",
                "ops/s",
                false,
                false,
                StageCharts::seconds,
                Units::rate);
        SvgChart memberLatency =
            new SvgChart(
                "timeline-members-p99-" + n,
                label + ": p99 per member per second (" + t.stages() + ")",
                "time (s)",
                "latency",
                false,
                true,
                StageCharts::seconds,
                Units::nanos);
        for (int m = 0; m < members.size(); m++) {
          int i = m;
          memberRate.add(
              series(
                  members.get(m),
                  t,
                  s -> s.members().size() > i ? s.members().get(i).opsPerSecond() : Double.NaN));
          memberLatency.add(
              series(
                  members.get(m),
                  t,
                  s -> s.members().size() > i ? s.members().get(i).p99Nanos() : Double.NaN));
        }
        drawn.add(memberRate);
        drawn.add(memberLatency);
      }
      if (workers) {
        SvgChart active =
            new SvgChart(
                "timeline-workers-" + n,
                label + ": workers per second (" + t.stages() + ")",
                "time (s)",
                "workers",
                false,
                false,
                StageCharts::seconds,
                StageCharts::whole);
        active.add(series("running", t, s -> (double) s.activeWorkers()));
        active.add(
            dashed("target", t, s -> s.targetWorkers() == null ? Double.NaN : s.targetWorkers()));
        drawn.add(active);
      }
      for (SvgChart c : drawn) {
        for (Timeline.StageSummary s : t.perStage()) {
          if (s.toMillis() > s.fromMillis())
            c.mark(
                new SvgChart.Marker(
                    s.fromMillis() / 1000.0, "stage " + (s.stage() + 1) + " → " + s.target()));
        }
        c.mark(
            new SvgChart.Marker(
                t.perStage().get(t.perStage().size() - 1).toMillis() / 1000.0, "end"));
      }
      charts.addAll(drawn);
      break; // a staged workload has one level
    }
    return charts;
  }

  /** Each point at the middle of its interval. */
  private static SvgChart.Series series(
      String name, Timeline t, ToDoubleFunction<Timeline.Second> value) {
    return new SvgChart.Series(name, points(t, value), false, false);
  }

  private static SvgChart.Series dashed(
      String name, Timeline t, ToDoubleFunction<Timeline.Second> value) {
    return new SvgChart.Series(name, points(t, value), true, false);
  }

  private static List<SvgChart.Point> points(Timeline t, ToDoubleFunction<Timeline.Second> value) {
    return t.seconds().stream()
        .map(
            s ->
                new SvgChart.Point(
                    (s.fromMillis() + s.toMillis()) / 2000.0, value.applyAsDouble(s)))
        .toList();
  }

  private static String seconds(double v) {
    return String.format(Locale.ROOT, "%.0f", v);
  }

  private static String whole(double v) {
    return String.format(Locale.ROOT, "%.0f", v);
  }

  /**
   * One row per stage: target, counts, achieved rate beside the mean target, latency of its summed
   * histogram, CPU; a mix's members each on a row of their own under their stage (an older result,
   * without them, has the stages alone).
   */
  static List<String[]> rows(Timeline t) {
    List<String[]> rows = new ArrayList<>();
    rows.add(
        new String[] {
          "stage",
          "target",
          "time",
          "ops",
          "ok",
          "err",
          "ops/s",
          "asked",
          "p50",
          "p99",
          "max",
          "ops/cpu-s"
        });
    for (Timeline.StageSummary s : t.perStage()) {
      rows.add(
          new String[] {
            Integer.toString(s.stage() + 1),
            "→ " + s.target(),
            seconds(s.fromMillis() / 1000.0) + "–" + seconds(s.toMillis() / 1000.0) + " s",
            Long.toString(s.counts().started()),
            Long.toString(s.counts().succeeded()),
            Long.toString(s.counts().failed()),
            Units.rate(s.achievedPerSecond()),
            s.targetPerSecond() != null
                ? Units.rate(s.targetPerSecond()) + "/s"
                : s.targetWorkers() != null
                    ? String.format(Locale.ROOT, "%.1f workers", s.targetWorkers())
                    : "-",
            Units.nanos(s.latencyNanos().p50()),
            Units.nanos(s.latencyNanos().p99()),
            Units.nanos(s.latencyNanos().max()),
            s.opsPerCpuSecond() == null ? "-" : Units.rate(s.opsPerCpuSecond())
          });
      for (Timeline.MemberStage m : s.members()) {
        rows.add(
            new String[] {
              "",
              "  " + OutsideText.forTerminal(m.label()),
              "",
              Long.toString(m.counts().started()),
              Long.toString(m.counts().succeeded()),
              Long.toString(m.counts().failed()),
              Units.rate(m.achievedPerSecond()),
              "-",
              m.counts().succeeded() == 0 ? "-" : Units.nanos(m.latencyNanos().p50()),
              m.counts().succeeded() == 0 ? "-" : Units.nanos(m.latencyNanos().p99()),
              m.counts().succeeded() == 0 ? "-" : Units.nanos(m.latencyNanos().max()),
              "-"
            });
      }
    }
    return rows;
  }

  /**
   * What the table of a mix's stages says: each stage is the mix's total, its members under it; a
   * result written before members were kept per second has the total alone, and says so.
   */
  static String mixTotal(LevelResult l) {
    if (l.members() == null || l.members().isEmpty()) return "";
    boolean split = l.timeline().perStage().stream().anyMatch(s -> !s.members().isEmpty());
    return split
        ? "; each stage is the mix's total, its members under it (CPU per operation is the mix's only: one process serves every member at once)"
        : "; the mix's total, all members together: a member's own figures are the whole run's, not split by stage";
  }

  /**
   * What the table says of stages the run did not finish: where it stopped, and that the figures
   * are those until then.
   */
  static String stopped(Timeline t) {
    return t.interruptedAtMillis() == null
        ? ""
        : String.format(
            Locale.ROOT,
            "; INTERRUPTED at %.1f s: the run was stopped there, and the stages hold the seconds measured until then",
            t.interruptedAtMillis() / 1000.0);
  }

  /** The terminal's per-stage block under the level's row, or "" for a level held steady. */
  static String terminal(WorkloadResult w) {
    StringBuilder out = new StringBuilder();
    for (LevelResult l : w.levels()) {
      if (l.timeline() == null) continue;
      out.append("  per stage (")
          .append(l.timeline().stages())
          .append("; asked: the stage's mean target")
          .append(mixTotal(l))
          .append(stopped(l.timeline()))
          .append("):\n");
      out.append(ConsoleTable.rightAligned("    ").render(rows(l.timeline())));
    }
    return out.toString();
  }

  /** The same table in HTML, with an id per workload ({@code stages-N}). */
  static String html(WorkloadResult w, int n) {
    StringBuilder h = new StringBuilder();
    for (LevelResult l : w.levels()) {
      if (l.timeline() == null) continue;
      List<String[]> rows = rows(l.timeline());
      h.append("<p>Per stage (")
          .append(Html.esc(l.timeline().stages()))
          .append("; asked: the stage's mean target")
          .append(Html.esc(mixTotal(l) + stopped(l.timeline())))
          .append("):</p>\n<table id=\"stages-")
          .append(n)
          .append("\">");
      for (int r = 0; r < rows.size(); r++) {
        h.append("<tr>");
        for (int c = 0; c < rows.get(r).length; c++) {
          String tag = r == 0 ? "th" : "td";
          h.append('<')
              .append(tag)
              .append(c < 3 ? " class=\"l\"" : "")
              .append('>')
              .append(Html.esc(rows.get(r)[c]))
              .append("</")
              .append(tag)
              .append('>');
        }
        h.append("</tr>\n");
      }
      h.append("</table>\n");
    }
    return h.toString();
  }
}
