package io.pkibench.report;

import io.pkibench.results.ErrorCount;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The result as a fixed-width table: one block per workload, one row per level, then its errors. */
public final class TerminalTable {
  private static final String[] HEADER = {
      "conc", "ops", "ok", "err", "ops/s", "±99.9%", "mean", "p50", "p90", "p99", "p99.9", "max", "cpu", "ops/cpu-s"};

  private TerminalTable() {}

  public static String render(RunResult result) {
    StringBuilder out = new StringBuilder();
    out.append("pkibench ").append(result.environment().toolVersion())
        .append(" · ").append(result.environment().jdk())
        .append(" · ").append(result.environment().cpuModel()).append(" × ").append(result.environment().cores())
        .append(" · ").append(result.status()).append('\n');
    for (WorkloadResult w : result.workloads()) {
      out.append('\n').append(w.name());
      String params = w.params().entrySet().stream().sorted(Map.Entry.comparingByKey())
          .map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
      if (!params.isEmpty()) out.append(" (").append(params).append(')');
      out.append(" · keys ").append(w.keys()).append(" · cpu of ").append(w.cpuMeter()).append('\n');
      List<String[]> rows = new ArrayList<>();
      rows.add(HEADER);
      for (LevelResult l : w.levels()) rows.add(row(l));
      out.append(align(rows));
      for (LevelResult l : w.levels()) {
        for (ErrorCount e : l.errors()) {
          out.append("  c=").append(l.concurrency()).append(" error ×").append(e.count()).append(": ").append(e.cause()).append('\n');
        }
      }
      if (w.failure() != null) out.append("  stopped: ").append(w.failure()).append('\n');
      if (w.levels().isEmpty() && w.failure() == null) out.append("  (no level finished)\n");
    }
    return out.toString();
  }

  private static String[] row(LevelResult l) {
    var lat = l.latencyNanos();
    return new String[] {
        Integer.toString(l.concurrency()),
        Long.toString(l.counts().started()),
        Long.toString(l.counts().succeeded()),
        Long.toString(l.counts().failed()),
        HumanUnits.rate(l.throughput().mean()),
        l.throughput().ci999() == null ? "-" : HumanUnits.rate(l.throughput().ci999()),
        HumanUnits.nanos(lat.mean()),
        HumanUnits.nanos(lat.p50()),
        HumanUnits.nanos(lat.p90()),
        HumanUnits.nanos(lat.p99()),
        HumanUnits.nanos(lat.p999()),
        HumanUnits.nanos(lat.max()),
        HumanUnits.percent(l.cpu().utilisation()),
        l.cpu().opsPerCpuSecond() == null ? "-" : HumanUnits.rate(l.cpu().opsPerCpuSecond())};
  }

  private static String align(List<String[]> rows) {
    int[] widths = new int[HEADER.length];
    for (String[] r : rows) for (int i = 0; i < r.length; i++) widths[i] = Math.max(widths[i], r[i].length());
    StringBuilder out = new StringBuilder();
    for (String[] r : rows) {
      out.append(' ');
      for (int i = 0; i < r.length; i++) out.append(' ').append(" ".repeat(widths[i] - r[i].length())).append(r[i]);
      out.append('\n');
    }
    return out.toString();
  }
}
