package io.pkibench.results;

import io.pkibench.text.OutsideText;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One row per workload level; the first column carries the format version so that the file
 * identifies itself.
 */
public final class RunResultCsv {
  /** 2 added the four open-loop columns at the end; the columns of 1 keep their places. */
  public static final String FORMAT = "pkibench.levels/2";

  public static final String HEADER =
      "format,workload,params,keys,concurrency,started,succeeded,failed,"
          + "throughput_ops_s,throughput_ci999_ops_s,latency_mean_ns,latency_p50_ns,latency_p90_ns,latency_p99_ns,"
          + "latency_p999_ns,latency_max_ns,cpu_seconds,cpu_utilisation,ops_per_cpu_second,cpu_meter,error_causes,"
          + "target_rate_ops_s,late_starts,missed_starts,latency_uncorrected_p99_ns";

  private RunResultCsv() {}

  public static String toCsv(RunResult result) {
    StringBuilder out = new StringBuilder(HEADER).append('\n');
    for (WorkloadResult w : result.workloads()) {
      for (LevelResult l : w.levels()) {
        out.append(
                String.join(
                    ",",
                    FORMAT,
                    quote(w.name()),
                    quote(params(w.params())),
                    quote(w.keys()),
                    Integer.toString(l.concurrency()),
                    Long.toString(l.counts().started()),
                    Long.toString(l.counts().succeeded()),
                    Long.toString(l.counts().failed()),
                    number(l.throughput().mean()),
                    l.throughput().ci999() == null ? "" : number(l.throughput().ci999()),
                    number(l.latencyNanos().mean()),
                    Long.toString(l.latencyNanos().p50()),
                    Long.toString(l.latencyNanos().p90()),
                    Long.toString(l.latencyNanos().p99()),
                    Long.toString(l.latencyNanos().p999()),
                    Long.toString(l.latencyNanos().max()),
                    number(l.cpu().seconds()),
                    number(l.cpu().utilisation()),
                    l.cpu().opsPerCpuSecond() == null ? "" : number(l.cpu().opsPerCpuSecond()),
                    quote(l.cpu().meter()),
                    Integer.toString(l.errors().size()),
                    l.openLoop() == null ? "" : number(l.openLoop().targetRate()),
                    l.openLoop() == null ? "" : Long.toString(l.openLoop().lateStarts()),
                    l.openLoop() == null ? "" : Long.toString(l.openLoop().missedStarts()),
                    l.openLoop() == null
                        ? ""
                        : Long.toString(l.openLoop().uncorrectedLatencyNanos().p99())))
            .append('\n');
      }
    }
    return out.toString();
  }

  static String params(Map<String, String> params) {
    return params.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(" "));
  }

  private static String number(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }

  /**
   * A text field as CSV quotes it, escaped first: report prints the CSV on a terminal, and its
   * names came from a file.
   */
  private static String quote(String text) {
    if (text == null) return "";
    String s = OutsideText.forTerminal(text, Integer.MAX_VALUE);
    if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) return s;
    return '"' + s.replace("\"", "\"\"") + '"';
  }
}
