package io.pkibench.report;

import io.pkibench.analysis.Analysis;
import io.pkibench.analysis.Steadiness;
import io.pkibench.results.ErrorCount;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import io.pkibench.text.ConsoleTable;
import io.pkibench.text.OutsideText;
import io.pkibench.text.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The result as a fixed-width table: one block per workload, one row per level, its errors and
 * verdict. Every text the result holds that came from outside (a service's error, a name or note
 * read back from a file) is shown through {@link OutsideText}: a result file is input too, and its
 * strings must not drive the terminal.
 */
public final class TerminalTable {
  private static final String[] HEADER = {
    "conc",
    "ops",
    "ok",
    "err",
    "ops/s",
    "±99.9%",
    "mean",
    "p50",
    "p90",
    "p99",
    "p99.9",
    "max",
    "cpu",
    "ops/cpu-s"
  };
  private static final String[] OPEN_HEADER = {
    "rate/s",
    "workers",
    "late",
    "missed",
    "ops",
    "ok",
    "err",
    "ops/s",
    "±99.9%",
    "p50",
    "p90",
    "p99",
    "p99.9",
    "max",
    "p99 uncorr.",
    "cpu",
    "ops/cpu-s"
  };

  private TerminalTable() {}

  public static String render(RunResult result, Analysis analysis) {
    StringBuilder out = new StringBuilder();
    out.append("pkibench ")
        .append(OutsideText.forTerminal(result.environment().toolVersion()))
        .append(" · ")
        .append(OutsideText.forTerminal(result.environment().jdk()))
        .append(" · ")
        .append(OutsideText.forTerminal(result.environment().cpuModel()))
        .append(" × ")
        .append(result.environment().cores())
        .append(" · ")
        .append(result.status())
        .append('\n');
    for (int wi = 0; wi < result.workloads().size(); wi++) {
      WorkloadResult w = result.workloads().get(wi);
      out.append('\n')
          .append(
              OutsideText.forTerminal(StudyTables.label(w, Analysis.label(w.name(), w.params()))));
      out.append(" · keys ")
          .append(OutsideText.forTerminal(w.keys()))
          .append(" · cpu of ")
          .append(OutsideText.forTerminal(w.cpuMeter()))
          .append('\n');
      boolean open = w.levels().stream().anyMatch(l -> l.openLoop() != null);
      List<String[]> rows = new ArrayList<>();
      rows.add(open ? OPEN_HEADER : HEADER);
      for (LevelResult l : w.levels()) rows.add(open ? openRow(l) : row(l));
      out.append(align(rows));
      out.append(StageCharts.terminal(w));
      out.append(MixTables.terminal(w));
      for (String note : w.notes())
        out.append("  note: ").append(OutsideText.forTerminal(note)).append('\n');
      outcomes(w)
          .ifPresent(text -> out.append("  ").append(OutsideText.forTerminal(text)).append('\n'));
      for (LevelResult l : w.levels()) errors(out, l);
      for (LevelResult l : w.levels()) {
        HumanUnits.intervalTooWide(l.throughput())
            .ifPresent(
                text ->
                    out.append("  c=")
                        .append(l.concurrency())
                        .append(' ')
                        .append(text)
                        .append('\n'));
      }
      for (LevelResult l : w.levels()) {
        Steadiness.warning(l)
            .ifPresent(
                text ->
                    out.append("  c=")
                        .append(l.concurrency())
                        .append(' ')
                        .append(text)
                        .append('\n'));
      }
      keyNodes(w)
          .ifPresent(text -> out.append("  ").append(OutsideText.forTerminal(text)).append('\n'));
      if (w.failure() != null)
        out.append("  stopped: ").append(OutsideText.forTerminal(w.failure())).append('\n');
      if (w.levels().isEmpty() && w.failure() == null) out.append("  (no level finished)\n");
      Analysis.WorkloadAnalysis a = analysis.workloads().get(wi);
      if (!w.levels().isEmpty())
        out.append("  verdict: ").append(OutsideText.forTerminal(a.verdict().text())).append('\n');
      if (a.selfCheck() != null)
        out.append("  self-check: ")
            .append(OutsideText.forTerminal(a.selfCheck().text()))
            .append('\n');
      if (a.capacity().sizing() != null)
        out.append("  sizing: ")
            .append(OutsideText.forTerminal(a.capacity().sizing().text()))
            .append('\n');
    }
    out.append(KeySourceShootout.terminal(result));
    if (analysis.relativeCost().size() > 1) {
      out.append("\nrelative CPU cost per operation (baseline ")
          .append(analysis.baseline())
          .append(")\n");
      List<String[]> costs = new ArrayList<>();
      costs.add(new String[] {"workload", "CPU per operation", "relative"});
      for (Analysis.CostRow c : analysis.relativeCost()) {
        costs.add(
            new String[] {
              OutsideText.forTerminal(c.workload()),
              c.cpuMicrosPerOp() == null
                  ? "no CPU measured"
                  : String.format(Locale.ROOT, "%.2f µs", c.cpuMicrosPerOp()),
              c.relative() == null ? "" : String.format(Locale.ROOT, "%.2f×", c.relative())
            });
      }
      out.append(new ConsoleTable("  ", "  ", Set.of(0), ConsoleTable.COLUMNS).render(costs));
    }
    out.append(ThresholdTables.terminal(result));
    return out.toString();
  }

  /**
   * The first distinct failure reasons shown per level, most frequent first; the result file keeps
   * them all.
   */
  static final int SHOWN_REASONS = 5;

  /**
   * A level's most frequent failure reasons, one line each with its count, then how many more the
   * result file holds.
   */
  static void errors(StringBuilder out, LevelResult l) {
    List<ErrorCount> errors = l.errors();
    for (ErrorCount e : errors.subList(0, Math.min(SHOWN_REASONS, errors.size()))) {
      out.append("  c=")
          .append(l.concurrency())
          .append(" error ×")
          .append(e.count())
          .append(": ")
          .append(OutsideText.forTerminal(e.cause()))
          .append('\n');
    }
    if (errors.size() > SHOWN_REASONS) {
      long rest =
          errors.subList(SHOWN_REASONS, errors.size()).stream().mapToLong(ErrorCount::count).sum();
      out.append("  c=")
          .append(l.concurrency())
          .append(" … ")
          .append(errors.size() - SHOWN_REASONS)
          .append(" more distinct reasons (")
          .append(rest)
          .append(" failures): 'pkibench report FILE --format json' lists them\n");
    }
  }

  /**
   * "answers, all levels, warm-ups included: good 1,204 · revoked 0 · unknown 3" for a workload
   * that counts them.
   */
  static Optional<String> outcomes(WorkloadResult w) {
    if (w.outcomes().isEmpty()) return Optional.empty();
    List<String> parts = new ArrayList<>();
    w.outcomes().forEach((answer, n) -> parts.add(String.format(Locale.ROOT, "%s %,d", answer, n)));
    return Optional.of("answers, all levels, warm-ups included: " + String.join(" · ", parts));
  }

  /**
   * "key-server calls: 127.0.0.1:9443 (weight 50) 1,204 (50.1%), 0 failed; …" for a remote: source.
   */
  static Optional<String> keyNodes(WorkloadResult w) {
    if (w.keyNodes().isEmpty()) return Optional.empty();
    long total = w.keyNodes().stream().mapToLong(WorkloadResult.KeyNode::calls).sum();
    List<String> parts = new ArrayList<>();
    for (WorkloadResult.KeyNode n : w.keyNodes()) {
      parts.add(
          String.format(
              Locale.ROOT,
              "%s (weight %d) %,d calls (%.1f%%), %,d failed%s",
              n.node(),
              n.weight(),
              n.calls(),
              total == 0 ? 0.0 : 100.0 * n.calls() / total,
              n.failures(),
              n.upAtEnd() ? "" : ", down at the end"));
    }
    return Optional.of("key-server calls, warm-ups included: " + String.join("; ", parts));
  }

  private static String[] openRow(LevelResult l) {
    var lat = l.latencyNanos();
    var open = l.openLoop();
    return new String[] {
      Units.rate(open.targetRate()),
      Integer.toString(l.concurrency()),
      Long.toString(open.lateStarts()),
      Long.toString(open.missedStarts()),
      Long.toString(l.counts().started()),
      Long.toString(l.counts().succeeded()),
      Long.toString(l.counts().failed()),
      Units.rate(open.achievedRate()),
      ci(l),
      Units.nanos(lat.p50()),
      Units.nanos(lat.p90()),
      Units.nanos(lat.p99()),
      Units.nanos(lat.p999()),
      Units.nanos(lat.max()),
      Units.nanos(open.uncorrectedLatencyNanos().p99()),
      HumanUnits.percent(l.cpu().utilisation()),
      l.cpu().opsPerCpuSecond() == null ? "-" : Units.rate(l.cpu().opsPerCpuSecond())
    };
  }

  private static String[] row(LevelResult l) {
    var lat = l.latencyNanos();
    return new String[] {
      Integer.toString(l.concurrency()),
      Long.toString(l.counts().started()),
      Long.toString(l.counts().succeeded()),
      Long.toString(l.counts().failed()),
      Units.rate(l.throughput().mean()),
      ci(l),
      Units.nanos(lat.mean()),
      Units.nanos(lat.p50()),
      Units.nanos(lat.p90()),
      Units.nanos(lat.p99()),
      Units.nanos(lat.p999()),
      Units.nanos(lat.max()),
      HumanUnits.percent(l.cpu().utilisation()),
      l.cpu().opsPerCpuSecond() == null ? "-" : Units.rate(l.cpu().opsPerCpuSecond())
    };
  }

  /**
   * The ± of the 99.9% interval, or "too wide" where it is wider than the throughput (said in words
   * below the table).
   */
  private static String ci(LevelResult l) {
    if (l.throughput().ci999() == null) return "-";
    return HumanUnits.intervalTooWide(l.throughput()).isPresent()
        ? "too wide"
        : Units.rate(l.throughput().ci999());
  }

  /** {@code rows} (the header first) as a console table, wrapped by row when wider than 120. */
  static String align(List<String[]> rows) {
    return ConsoleTable.rightAligned("  ").render(rows);
  }
}
