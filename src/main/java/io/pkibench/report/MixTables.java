package io.pkibench.report;

import io.pkibench.plan.MixSpec;
import io.pkibench.results.Counts;
import io.pkibench.results.LatencyNanos;
import io.pkibench.results.LevelResult;
import io.pkibench.results.MemberLevel;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import io.pkibench.text.OutsideText;
import io.pkibench.text.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A mix's levels split by member: each member's share asked (its weight) beside the share it drew,
 * its counts, throughput and latency, then the mix's total. CPU per operation only on the total:
 * one process served every member, so its CPU cannot be split between them.
 */
public final class MixTables {
  static final String[] HEADER = {
    "level",
    "member",
    "asked",
    "achieved",
    "ops",
    "ok",
    "err",
    "ops/s",
    "p50",
    "p90",
    "p99",
    "max",
    "cpu/op"
  };

  private MixTables() {}

  /** The rows of every level of {@code w}, header first; empty when {@code w} is no mix. */
  public static List<String[]> rows(WorkloadResult w) {
    List<String[]> rows = new ArrayList<>();
    if (w.mix() == null) return rows;
    rows.add(HEADER);
    for (LevelResult l : w.levels()) {
      String level =
          l.openLoop() != null
              ? Units.rate(l.openLoop().targetRate()) + "/s"
              : "c=" + l.concurrency();
      for (MemberLevel m : l.members()) {
        rows.add(
            row(
                level,
                OutsideText.forTerminal(m.label()),
                percent(asked(w.mix(), m.label())),
                percent(m.achievedShare()),
                m.counts(),
                m.throughput().mean(),
                m.latencyNanos(),
                "n/a"));
      }
      Double opsPerCpuSecond = l.cpu() == null ? null : l.cpu().opsPerCpuSecond();
      rows.add(
          row(
              level,
              "total",
              "100.0%",
              "100.0%",
              l.counts(),
              l.throughput().mean(),
              l.latencyNanos(),
              opsPerCpuSecond == null ? "-" : Units.nanos(1e9 / opsPerCpuSecond)));
    }
    return rows;
  }

  /** The asked share of the member labelled {@code label}, or NaN when the mix does not name it. */
  static double asked(MixSpec mix, String label) {
    for (int i = 0; i < mix.members().size(); i++)
      if (mix.members().get(i).label().equals(label)) return mix.askedShare(i);
    return Double.NaN;
  }

  static String percent(double share) {
    return Double.isNaN(share) ? "-" : String.format(Locale.ROOT, "%.1f%%", share * 100);
  }

  private static String[] row(
      String level,
      String member,
      String asked,
      String achieved,
      Counts c,
      double rate,
      LatencyNanos lat,
      String cpu) {
    return new String[] {
      level,
      member,
      asked,
      achieved,
      Long.toString(c.started()),
      Long.toString(c.succeeded()),
      Long.toString(c.failed()),
      Units.rate(rate),
      Units.nanos(lat.p50()),
      Units.nanos(lat.p90()),
      Units.nanos(lat.p99()),
      Units.nanos(lat.max()),
      cpu
    };
  }

  /**
   * The report's section of every mix in {@code result}, a table per mix; empty when it ran none.
   */
  static String html(RunResult result) {
    StringBuilder h = new StringBuilder();
    for (WorkloadResult w : result.workloads()) {
      List<String[]> rows = rows(w);
      if (rows.size() <= 1 || w.probe()) continue;
      h.append("<h3>")
          .append(Html.esc(w.name()))
          .append(" <span class=\"muted\">seed ")
          .append(w.mix().seed())
          .append("</span></h3>\n<table><tr>");
      for (int c = 0; c < HEADER.length; c++)
        h.append(c < 2 ? "<th class=\"l\">" : "<th>").append(Html.esc(HEADER[c])).append("</th>");
      h.append("</tr>\n");
      for (String[] r : rows.subList(1, rows.size())) {
        h.append(r[1].equals("total") ? "<tr class=\"total\">" : "<tr>");
        for (int c = 0; c < r.length; c++) {
          String cell = Html.esc(r[c]);
          h.append(c < 2 ? "<td class=\"l\">" : "<td>")
              .append(r[1].equals("total") ? "<b>" + cell + "</b>" : cell)
              .append("</td>");
        }
        h.append("</tr>\n");
      }
      h.append("</table>\n");
      sumOfParts(result, w)
          .ifPresent(text -> h.append("<p>").append(Html.esc(text)).append("</p>\n"));
      for (MixSpec.Member m : w.mix().members()) {
        h.append("<p class=\"muted\">")
            .append(Html.esc(m.label()))
            .append(": ")
            .append(Html.esc(m.name()))
            .append(" weight ")
            .append(HumanUnits.figure(m.weight()))
            .append(m.params().isEmpty() ? "" : ", " + Html.esc(m.params().toString()))
            .append("</p>\n");
      }
    }
    if (h.isEmpty()) return "";
    return "<section id=\"mix\"><h2>Mix by member</h2>\n<p>Each member's share asked (its weight over the sum of weights) beside the share"
        + " it drew, then the mix's total. CPU per operation is the mix's only: one process served every member at once, so its CPU cannot"
        + " be split between them.</p>\n"
        + h
        + "</section>\n";
  }

  /**
   * A study's mix beside its parts: the service CPU per mix operation its types measured alone
   * predict (each type's CPU per operation, weighted by its asked share) against what the mix
   * measured, when every member was also measured alone.
   */
  static Optional<String> sumOfParts(RunResult result, WorkloadResult mixed) {
    if (result.study() == null || mixed.mix() == null || mixed.levels().isEmpty())
      return Optional.empty();
    Double measured = mixed.levels().get(mixed.levels().size() - 1).cpu().opsPerCpuSecond();
    if (measured == null) return Optional.empty();
    double cpuSecondsPerOp = 0;
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < mixed.mix().members().size(); i++) {
      MixSpec.Member m = mixed.mix().members().get(i);
      WorkloadResult alone =
          result.workloads().stream()
              .filter(
                  w ->
                      w.mix() == null
                          && !w.probe()
                          && w.name().equals(m.name())
                          && !w.levels().isEmpty())
              .findFirst()
              .orElse(null);
      Double rate =
          alone == null
              ? null
              : alone.levels().get(alone.levels().size() - 1).cpu().opsPerCpuSecond();
      if (rate == null) return Optional.empty();
      cpuSecondsPerOp += mixed.mix().askedShare(i) / rate;
      parts.add(OutsideText.forTerminal(m.label()) + " " + Units.rate(rate));
    }
    double predicted = 1 / cpuSecondsPerOp;
    return Optional.of(
        String.format(
            Locale.ROOT,
            "%s: %s ops per service CPU-second measured as one mix; its types alone (%s) predict %s"
                + " for these shares: measured / predicted = %.2f",
            OutsideText.forTerminal(mixed.step() == null ? mixed.name() : mixed.step().label()),
            Units.rate(measured),
            String.join(", ", parts),
            Units.rate(predicted),
            measured / predicted));
  }

  /**
   * A study's mixes as the terminal shows them after the study's table: each by member, and beside
   * its parts.
   */
  public static String studyTerminal(RunResult result) {
    StringBuilder out = new StringBuilder();
    for (WorkloadResult w : result.workloads()) {
      if (w.mix() == null || w.probe() || w.levels().isEmpty()) continue;
      out.append('\n')
          .append(OutsideText.forTerminal(w.step() == null ? w.name() : w.step().label()))
          .append('\n')
          .append(terminal(w));
      sumOfParts(result, w).ifPresent(text -> out.append("  ").append(text).append('\n'));
    }
    return out.toString();
  }

  /**
   * The terminal block under a mix's level table: its members, asked beside achieved, and the
   * total.
   */
  static String terminal(WorkloadResult w) {
    List<String[]> rows = rows(w);
    if (rows.size() <= 1) return "";
    return "  by member (asked share = weight / sum of weights; cpu/op of the mix as a whole, no member's own):\n"
        + TerminalTable.align(rows);
  }
}
