package io.pkibench.workload.acme;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.ConcurrentHistogram;

/**
 * The latency of each ACME step of an order (new-order, authorize, finalize, download) and of a
 * revocation, one histogram each, recorded by every worker: the engine times whole operations,
 * these say where an order's time went. Warm-up orders are counted too (the workload cannot tell
 * them apart).
 */
final class StepLatencies {
  static final List<String> STEPS =
      List.of("new-order", "authorize", "finalize", "download", "revoke");
  private final Map<String, ConcurrentHistogram> histograms = new LinkedHashMap<>();

  StepLatencies() {
    for (String step : STEPS) histograms.put(step, new ConcurrentHistogram(3));
  }

  void record(String step, long nanos) {
    histograms.get(step).recordValue(Math.max(1, nanos / 1000));
  }

  /** {@code "step new-order p50 µs"} to its value, and p99, for each step that ran. */
  Map<String, Long> percentilesMicros() {
    Map<String, Long> out = new LinkedHashMap<>();
    histograms.forEach(
        (step, h) -> {
          if (h.getTotalCount() == 0) return;
          out.put(key(step, 50), h.getValueAtPercentile(50));
          out.put(key(step, 99), h.getValueAtPercentile(99));
        });
    return out;
  }

  static String key(String step, int percentile) {
    return "step " + step + " p" + percentile + " µs";
  }
}
