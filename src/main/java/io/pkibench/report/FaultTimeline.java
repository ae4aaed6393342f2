package io.pkibench.report;

import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import io.pkibench.text.Units;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A study step run through a fault (a hook described {@code fault: …}, {@link
 * io.pkibench.results.StudyRecord.StepRecord#fault()}), measured in one-second iterations: the
 * timeline second by second, and what it shows, read from the data alone: the rate before, the
 * first second that dipped (a failure, or under 80% of the rate before), the lowest second, the
 * failed calls, the seconds until the rate was back to 90% with no failure, and each key-server
 * node's transitions as the client saw them.
 */
public final class FaultTimeline {
  private FaultTimeline() {}

  public record Second(int index, double okPerSecond, long failed) {}

  public record Summary(
      String step,
      String fault,
      List<Second> seconds,
      double rateBefore,
      Integer dipAt,
      double lowest,
      long failedCalls,
      Integer recoveredAfterSeconds,
      List<String> nodeLines) {

    /** The summary's sentences, as the terminal and the HTML print them. */
    public List<String> lines() {
      List<String> lines = new ArrayList<>();
      lines.add(fault);
      if (dipAt == null) {
        lines.add(
            String.format(
                Locale.ROOT,
                "no dip: every second stayed at 80%% or more of %s ops/s with no failed call",
                Units.rate(rateBefore)));
      } else {
        lines.add(
            String.format(
                Locale.ROOT,
                "before: %s ops/s (median of %d s); the first dip at second %d; lowest second %s ops/s; %,d calls failed",
                Units.rate(rateBefore),
                dipAt,
                dipAt + 1,
                Units.rate(lowest),
                failedCalls));
        lines.add(
            recoveredAfterSeconds == null
                ? "not back to 90% of the rate before, failure-free, within the step"
                : "back to 90% of the rate before, with no failed call, "
                    + recoveredAfterSeconds
                    + " s after the dip began");
      }
      lines.addAll(nodeLines);
      return lines;
    }
  }

  public static List<Summary> of(RunResult result) {
    List<Summary> list = new ArrayList<>();
    if (result.study() == null) return list;
    for (StudyRow row : StudyTables.rows(result)) {
      Optional<String> fault = row.step().fault();
      if (fault.isEmpty() || row.measured() == null || row.measured().levels().isEmpty()) continue;
      list.add(summarise(row.label(), fault.get(), row.measured()));
    }
    return list;
  }

  static Summary summarise(String step, String fault, WorkloadResult w) {
    LevelResult level = w.levels().get(0);
    List<Second> seconds = new ArrayList<>();
    for (IterationResult it : level.iterations()) {
      if (!it.warmup()) seconds.add(new Second(seconds.size(), it.opsPerSecond(), it.failed()));
    }
    Integer dip = null;
    for (int i = 3;
        i < seconds.size() && dip == null;
        i++) { // three seconds at least to know the rate before
      double before = median(seconds.subList(0, i));
      if (seconds.get(i).failed() > 0 || seconds.get(i).okPerSecond() < 0.8 * before) dip = i;
    }
    double rateBefore = median(seconds.subList(0, dip == null ? seconds.size() : dip));
    double lowest = rateBefore;
    Integer recovered = null;
    if (dip != null) {
      for (int i = dip; i < seconds.size(); i++) {
        Second s = seconds.get(i);
        if (i > dip && s.failed() == 0 && s.okPerSecond() >= 0.9 * rateBefore) {
          recovered = i - dip;
          break;
        }
        lowest = Math.min(lowest, s.okPerSecond());
      }
    }
    long failed = seconds.stream().mapToLong(Second::failed).sum();
    return new Summary(
        step, fault, seconds, rateBefore, dip, lowest, failed, recovered, nodeLines(w));
  }

  private static List<String> nodeLines(WorkloadResult w) {
    List<String> lines = new ArrayList<>();
    for (WorkloadResult.KeyNode n : w.keyNodes()) {
      if (n.transitions().isEmpty()) {
        lines.add(
            n.node()
                + ": never out; "
                + String.format(Locale.ROOT, "%,d calls, %,d failed", n.calls(), n.failures()));
        continue;
      }
      StringBuilder line = new StringBuilder(n.node() + ":");
      Instant down = null;
      for (WorkloadResult.Transition t : n.transitions()) {
        if (!t.up()) {
          down = t.at();
          line.append(" taken out (").append(t.why()).append(");");
        } else {
          line.append(
              down == null
                  ? " rejoined;"
                  : " rejoined "
                      + String.format(
                          Locale.ROOT,
                          "%.1f s later;",
                          Duration.between(down, t.at()).toMillis() / 1000.0));
        }
      }
      line.append(
          String.format(
              Locale.ROOT,
              " %,d calls, %,d failed, %s at the end",
              n.calls(),
              n.failures(),
              n.upAtEnd() ? "up" : "down"));
      lines.add(line.toString());
    }
    return lines;
  }

  private static double median(List<Second> seconds) {
    if (seconds.isEmpty()) return 0;
    double[] v = seconds.stream().mapToDouble(Second::okPerSecond).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  public static String terminal(RunResult result) {
    StringBuilder out = new StringBuilder();
    for (Summary s : of(result)) {
      out.append("\nthrough the fault: ").append(s.step()).append('\n');
      for (String line : s.lines()) out.append("  ").append(line).append('\n');
      out.append("  ops/s by second (failed calls in brackets):");
      for (Second sec : s.seconds()) {
        if (sec.index() % 10 == 0) out.append("\n   ");
        out.append(' ')
            .append(Units.rate(sec.okPerSecond()))
            .append(sec.failed() > 0 ? "[" + sec.failed() + "]" : "");
      }
      out.append('\n');
    }
    return out.toString();
  }

  public static String html(RunResult result) {
    StringBuilder h = new StringBuilder();
    for (Summary s : of(result)) {
      h.append("<h3>Through the fault: ").append(Html.esc(s.step())).append("</h3>\n<ul>");
      for (String line : s.lines()) h.append("<li>").append(Html.esc(line)).append("</li>");
      h.append("</ul>\n");
      SvgChart chart =
          new SvgChart(
              "fault-" + s.step().replaceAll("[^A-Za-z0-9]", "-"),
              s.step() + ": each second through the fault",
              "second",
              "per second",
              false,
              false,
              x -> String.format(Locale.ROOT, "%.0f", x),
              Units::rate);
      chart.add(
          new SvgChart.Series(
              "successful ops",
              s.seconds().stream()
                  .map(x -> new SvgChart.Point(x.index() + 1, x.okPerSecond()))
                  .toList(),
              false,
              true));
      chart.add(
          new SvgChart.Series(
              "failed calls",
              s.seconds().stream().map(x -> new SvgChart.Point(x.index() + 1, x.failed())).toList(),
              true,
              true));
      h.append(chart.render());
    }
    return h.toString();
  }
}
