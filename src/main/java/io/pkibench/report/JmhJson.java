package io.pkibench.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pkibench.plan.Iterations;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.WorkloadResult;
import java.util.List;
import java.util.TreeMap;

/**
 * The result in JMH's JSON result shape ({@code -rf json}), one benchmark entry per workload level
 * with threads = concurrency, so existing JMH visualisers open pkibench runs. The primary metric is
 * throughput in ops/s with rawData per series; latency percentiles go in a secondary metric.
 */
public final class JmhJson {
  private JmhJson() {}

  public static String of(RunResult result) {
    ObjectMapper mapper = RunResultJson.mapper();
    ArrayNode out = mapper.createArrayNode();
    String warmup =
        result.plan() != null && result.plan().has("warmup")
            ? result.plan().get("warmup").asText()
            : "0x0s";
    String measure =
        result.plan() != null && result.plan().has("measure")
            ? result.plan().get("measure").asText()
            : "0x0s";
    int series =
        result.plan() != null && result.plan().has("series")
            ? result.plan().get("series").asInt()
            : 1;
    Iterations w = Iterations.parse(warmup), m = Iterations.parse(measure);
    for (WorkloadResult workload : result.workloads()) {
      for (LevelResult level : workload.levels()) {
        ObjectNode b = out.addObject();
        b.put("jmhVersion", "pkibench " + result.environment().toolVersion());
        b.put("benchmark", "pkibench." + workload.name());
        b.put("mode", "thrpt");
        b.put("threads", level.concurrency());
        b.put("forks", series);
        b.put("jvm", "");
        b.putArray("jvmArgs");
        b.put("jdkVersion", result.environment().jdk());
        b.put("vmName", "");
        b.put("vmVersion", "");
        b.put("warmupIterations", w.count());
        b.put("warmupTime", w.each().toMillis() / 1000.0 + " s");
        b.put("warmupBatchSize", 1);
        b.put("measurementIterations", m.count());
        b.put("measurementTime", m.each().toMillis() / 1000.0 + " s");
        b.put("measurementBatchSize", 1);
        ObjectNode params = b.putObject("params");
        new TreeMap<>(workload.params()).forEach(params::put);
        params.put("keys", workload.keys());

        ObjectNode primary = b.putObject("primaryMetric");
        double score = level.throughput().mean();
        double error = level.throughput().ci999() == null ? Double.NaN : level.throughput().ci999();
        primary.put("score", score);
        if (Double.isNaN(error)) primary.put("scoreError", "NaN");
        else primary.put("scoreError", error);
        ArrayNode confidence = primary.putArray("scoreConfidence");
        confidence.add(Double.isNaN(error) ? score : score - error);
        confidence.add(Double.isNaN(error) ? score : score + error);
        List<Double> rates =
            level.iterations().stream()
                .filter(i -> !i.warmup())
                .map(IterationResult::opsPerSecond)
                .sorted()
                .toList();
        ObjectNode pct = primary.putObject("scorePercentiles");
        for (double p : new double[] {0, 50, 90, 95, 99, 99.9, 99.99, 99.999, 99.9999, 100}) {
          pct.put(percentKey(p), rates.isEmpty() ? 0 : nearestRank(rates, p));
        }
        primary.put("scoreUnit", "ops/s");
        ArrayNode raw = primary.putArray("rawData");
        for (int s = 1; s <= series; s++) {
          ArrayNode fork = raw.addArray();
          for (IterationResult it : level.iterations())
            if (!it.warmup() && it.series() == s) fork.add(it.opsPerSecond());
        }
        ObjectNode secondary = b.putObject("secondaryMetrics");
        ObjectNode latency = secondary.putObject("latency");
        var h = level.mergedHistogram();
        latency.put("score", h.getTotalCount() == 0 ? 0 : h.getMean() / 1000.0);
        latency.put("scoreError", "NaN");
        latency.putArray("scoreConfidence").add(h.getMean() / 1000.0).add(h.getMean() / 1000.0);
        ObjectNode lp = latency.putObject("scorePercentiles");
        for (double p : new double[] {0, 50, 90, 95, 99, 99.9, 99.99, 99.999, 99.9999, 100}) {
          lp.put(percentKey(p), (p == 0 ? h.getMinValue() : h.getValueAtPercentile(p)) / 1000.0);
        }
        latency.put("scoreUnit", "us/op");
        latency.putArray("rawData");
      }
    }
    try {
      return mapper.writeValueAsString(out) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** JMH writes percentile keys as "0.0", "50.0", "99.9", "100.0". */
  private static String percentKey(double p) {
    return Double.toString(p);
  }

  /**
   * The nearest-rank percentile of sorted values: the smallest value with at least p% of them at or
   * below it.
   */
  static double nearestRank(List<Double> sorted, double p) {
    int rank = (int) Math.ceil(p / 100 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }
}
