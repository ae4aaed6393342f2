package io.pkibench.report;

import io.pkibench.plan.MixSpec;
import io.pkibench.results.Counts;
import io.pkibench.results.LatencyNanos;
import io.pkibench.results.LevelResult;
import io.pkibench.results.MemberLevel;
import io.pkibench.results.WorkloadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A mix's levels split by member: each member's share asked (its weight) beside the share it drew, its counts,
 * throughput and latency, then the mix's total. CPU per operation only on the total: one process served every member,
 * so its CPU cannot be split between them.
 */
public final class MixTables {
  static final String[] HEADER = {"level", "member", "asked", "achieved", "ops", "ok", "err", "ops/s", "p50", "p90", "p99", "max", "cpu/op"};

  private MixTables() {}

  /** The rows of every level of {@code w}, header first; empty when {@code w} is no mix. */
  public static List<String[]> rows(WorkloadResult w) {
    List<String[]> rows = new ArrayList<>();
    if (w.mix() == null) return rows;
    rows.add(HEADER);
    for (LevelResult l : w.levels()) {
      String level = l.openLoop() != null ? HumanUnits.rate(l.openLoop().targetRate()) + "/s" : "c=" + l.concurrency();
      for (MemberLevel m : l.members()) {
        rows.add(row(level, m.label(), percent(asked(w.mix(), m.label())), percent(m.achievedShare()), m.counts(), m.throughput().mean(),
            m.latencyNanos(), "n/a"));
      }
      Double opsPerCpuSecond = l.cpu() == null ? null : l.cpu().opsPerCpuSecond();
      rows.add(row(level, "total", "100.0%", "100.0%", l.counts(), l.throughput().mean(), l.latencyNanos(),
          opsPerCpuSecond == null ? "-" : HumanUnits.nanos(1e9 / opsPerCpuSecond)));
    }
    return rows;
  }

  /** The asked share of the member labelled {@code label}, or NaN when the mix does not name it. */
  static double asked(MixSpec mix, String label) {
    for (int i = 0; i < mix.members().size(); i++) if (mix.members().get(i).label().equals(label)) return mix.askedShare(i);
    return Double.NaN;
  }

  static String percent(double share) {
    return Double.isNaN(share) ? "-" : String.format(Locale.ROOT, "%.1f%%", share * 100);
  }

  private static String[] row(String level, String member, String asked, String achieved, Counts c, double rate, LatencyNanos lat, String cpu) {
    return new String[] {level, member, asked, achieved, Long.toString(c.started()), Long.toString(c.succeeded()), Long.toString(c.failed()),
        HumanUnits.rate(rate), HumanUnits.nanos(lat.p50()), HumanUnits.nanos(lat.p90()), HumanUnits.nanos(lat.p99()), HumanUnits.nanos(lat.max()), cpu};
  }

  /** The terminal block under a mix's level table: its members, asked beside achieved, and the total. */
  static String terminal(WorkloadResult w) {
    List<String[]> rows = rows(w);
    if (rows.size() <= 1) return "";
    return "  by member (asked share = weight / sum of weights; cpu/op of the mix as a whole, no member's own):\n" + TerminalTable.align(rows);
  }
}
