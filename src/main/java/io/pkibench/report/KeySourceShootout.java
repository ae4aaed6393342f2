package io.pkibench.report;

import io.pkibench.analysis.Analysis;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.Wycheproof;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import io.pkibench.text.Units;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The provider shoot-out: when one run measured the same workload with the same parameters through
 * several key sources ({@code --keys software:jdk,software:bc,pkcs11:…,remote:…}), one row per
 * source at its best level: ops/s, p99 there, ops per CPU-second, and the ratio to the fastest. A
 * software provider that verifies an invalid Project Wycheproof vector or refuses a valid one for
 * the workload's key type is marked '!' with what it got wrong, and is never the one recommended:
 * that is the fastest unmarked. A PKCS#11 token is put to the vectors by the run itself (the {@code
 * verify} workload through it; the report cannot reach the token), which records the verdict in the
 * result; a source never put to the vectors (a key server, a token under another workload) is said
 * to be unchecked and is not recommended either.
 */
public final class KeySourceShootout {
  private KeySourceShootout() {}

  /**
   * {@code wycheproof}: the provider's marks for the workload's key type, empty when it agrees with
   * every vector or was not checked; {@code wycheproofChecked}: whether it was put to the vectors
   * at all.
   */
  public record Row(
      String workload,
      String keys,
      int concurrency,
      double opsPerSecond,
      long p99Nanos,
      Double opsPerCpuSecond,
      double ratioToFastest,
      List<String> wycheproof,
      boolean wycheproofChecked) {}

  public static List<Row> rows(RunResult result) {
    Map<String, List<WorkloadResult>> groups = new LinkedHashMap<>();
    for (WorkloadResult w : result.workloads()) {
      if (w.step() != null || w.levels().isEmpty()) continue;
      groups.computeIfAbsent(Analysis.label(w.name(), w.params()), k -> new ArrayList<>()).add(w);
    }
    List<Row> rows = new ArrayList<>();
    for (var group : groups.entrySet()) {
      if (group.getValue().stream().map(WorkloadResult::keys).distinct().count() < 2) continue;
      List<Map.Entry<WorkloadResult, LevelResult>> best = new ArrayList<>();
      for (WorkloadResult w : group.getValue()) {
        best.add(
            Map.entry(
                w,
                w.levels().stream()
                    .max(Comparator.comparingDouble(l -> l.throughput().mean()))
                    .orElseThrow()));
      }
      double fastest =
          best.stream().mapToDouble(e -> e.getValue().throughput().mean()).max().orElse(0);
      best.sort(
          Comparator.comparingDouble(
                  (Map.Entry<WorkloadResult, LevelResult> e) -> e.getValue().throughput().mean())
              .reversed());
      for (var e : best) {
        LevelResult l = e.getValue();
        rows.add(
            new Row(
                group.getKey(),
                e.getKey().keys(),
                l.concurrency(),
                l.throughput().mean(),
                l.latencyNanos().p99(),
                l.cpu().opsPerCpuSecond(),
                fastest == 0 ? 0 : l.throughput().mean() / fastest,
                wycheproofMarks(e.getKey()),
                wycheproofChecked(e.getKey())));
      }
    }
    return rows;
  }

  /**
   * The marks the run recorded (a token), else those of a {@code software:PROVIDER} key source for
   * {@code -p alg}; none for any other source.
   */
  static List<String> wycheproofMarks(WorkloadResult w) {
    if (w.wycheproof() != null) return w.wycheproof().marks();
    return softwareMarks(w.keys(), w.params());
  }

  /**
   * Put to the vectors: a software provider (here, now) or a source whose run recorded its verdict.
   */
  static boolean wycheproofChecked(WorkloadResult w) {
    return w.wycheproof() != null || (w.keys() != null && w.keys().startsWith("software:"));
  }

  static List<String> softwareMarks(String keys, Map<String, String> params) {
    if (keys == null || !keys.startsWith("software:")) return List.of();
    ProviderChoice choice;
    try {
      choice = ProviderChoice.parse(keys.substring("software:".length()));
    } catch (IllegalArgumentException notOurs) {
      return List.of();
    }
    return Wycheproof.marks(choice, params == null ? null : params.get("alg"));
  }

  /**
   * Per workload compared, the fastest key source put to Wycheproof's vectors and not marked: the
   * only kind recommended.
   */
  public static Map<String, Row> recommended(List<Row> rows) {
    Map<String, Row> best = new LinkedHashMap<>();
    for (Row r : rows)
      if (r.wycheproofChecked() && r.wycheproof().isEmpty())
        best.merge(r.workload(), r, (a, b) -> a.opsPerSecond() >= b.opsPerSecond() ? a : b);
    return best;
  }

  /**
   * The lines under the table: each mark said in full, then what is recommended for each workload.
   */
  static List<String> verdictLines(List<Row> rows) {
    List<String> lines = new ArrayList<>();
    for (Row r : rows) {
      if (!r.wycheproof().isEmpty()) {
        lines.add(
            "! "
                + r.keys()
                + " ("
                + r.workload()
                + "): Wycheproof "
                + String.join("; ", r.wycheproof())
                + " - not recommended");
      } else if (!r.wycheproofChecked()) {
        lines.add(
            "? "
                + r.keys()
                + " ("
                + r.workload()
                + "): not put to Wycheproof's vectors"
                + (r.keys().startsWith("pkcs11:")
                    ? " (a run of 'verify' through the token checks it)"
                    : "")
                + " - not recommended");
      }
    }
    Map<String, Row> recommended = recommended(rows);
    for (String workload : rows.stream().map(Row::workload).distinct().toList()) {
      Row r = recommended.get(workload);
      lines.add(
          "recommended for "
              + workload
              + ": "
              + (r == null
                  ? "none (every key source compared is marked or unchecked)"
                  : r.keys()
                      + " (the fastest whose provider agrees with every Wycheproof vector checked)"));
    }
    return lines;
  }

  static final String[] HEADER = {
    "workload", "keys", "best at", "ops/s", "p99", "ops/cpu-s", "of the fastest"
  };

  static String[] cells(Row r) {
    return new String[] {
      r.workload(),
      r.keys() + (!r.wycheproof().isEmpty() ? " !" : r.wycheproofChecked() ? "" : " ?"),
      "c=" + r.concurrency(),
      Units.rate(r.opsPerSecond()),
      Units.nanos(r.p99Nanos()),
      r.opsPerCpuSecond() == null ? "-" : Units.rate(r.opsPerCpuSecond()),
      String.format(Locale.ROOT, "%.2f", r.ratioToFastest())
    };
  }

  public static String terminal(RunResult result) {
    List<Row> rows = rows(result);
    if (rows.isEmpty()) return "";
    List<String[]> table = new ArrayList<>();
    table.add(HEADER);
    for (Row r : rows) table.add(cells(r));
    StringBuilder text =
        new StringBuilder("\nkey sources compared (each at its best level)\n")
            .append(TerminalTable.align(table));
    for (String line : verdictLines(rows)) text.append(line).append('\n');
    return text.toString();
  }

  public static String html(RunResult result) {
    List<Row> rows = rows(result);
    if (rows.isEmpty()) return "";
    StringBuilder h =
        new StringBuilder(
            "<h3>Key sources compared (each at its best level)</h3>\n<table id=\"shootout\"><tr>");
    for (int i = 0; i < HEADER.length; i++)
      h.append(i < 2 ? "<th class=\"l\">" : "<th>").append(Html.esc(HEADER[i])).append("</th>");
    h.append("</tr>\n");
    for (Row r : rows) {
      String[] c = cells(r);
      h.append("<tr>");
      for (int i = 0; i < c.length; i++)
        h.append(i < 2 ? "<td class=\"l\">" : "<td>").append(Html.esc(c[i])).append("</td>");
      h.append("</tr>\n");
    }
    h.append("</table>\n");
    for (String line : verdictLines(rows))
      h.append("<p class=\"")
          .append(line.startsWith("!") ? "mark" : "recommended")
          .append("\">")
          .append(Html.esc(line))
          .append("</p>\n");
    return h.toString();
  }

  /** One bar per key source and workload: ops/s at its best level. */
  public static List<Chart> charts(RunResult result) {
    List<Row> rows = rows(result);
    if (rows.isEmpty()) return List.of();
    List<SvgBarChart.Bar> bars = new ArrayList<>();
    for (Row r : rows) {
      bars.add(
          new SvgBarChart.Bar(
              r.workload() + " · " + r.keys(),
              r.opsPerSecond(),
              Units.rate(r.opsPerSecond())
                  + " ops/s at c="
                  + r.concurrency()
                  + String.format(Locale.ROOT, " (%.2f of the fastest)", r.ratioToFastest())));
    }
    return List.of(
        new SvgBarChart("shootout", "key sources compared: ops/s at each one's best level", bars));
  }
}
