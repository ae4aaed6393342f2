package io.pkibench.analysis;

import io.pkibench.results.Timeline;
import java.util.List;

/**
 * A comparison's metrics read from one stage of a staged level: the stage's value from its summary
 * (percentiles of its summed histogram) and, for the noise, one sample per second of the stage. A
 * staged level has one measured iteration, so its seconds are the samples: neighbouring seconds are
 * not independent and a ramp's seconds differ by design, which widens the interval (more rows
 * inconclusive) rather than inventing a change. p90 and p99.9 are not kept per second: those rows
 * have no interval and say inconclusive.
 */
final class StageMetrics {
  private StageMetrics() {}

  static Double of(Metric m, Timeline.StageSummary s) {
    return switch (m) {
      case THROUGHPUT -> s.achievedPerSecond();
      case CPU -> s.opsPerCpuSecond();
      case P50 -> (double) s.latencyNanos().p50();
      case P90 -> (double) s.latencyNanos().p90();
      case P99 -> (double) s.latencyNanos().p99();
      case P999 -> (double) s.latencyNanos().p999();
      case MAX -> (double) s.latencyNanos().max();
    };
  }

  /**
   * Seconds shorter than half a second (the tail after the end, a stage's last sliver) are left
   * out: their rate is noise.
   */
  static double[] perSecond(Metric m, Timeline t, int stage) {
    List<Timeline.Second> seconds =
        t.seconds().stream()
            .filter(
                s ->
                    s.stage() == stage && s.toMillis() - s.fromMillis() >= 500 && s.succeeded() > 0)
            .toList();
    if (m == Metric.P90 || m == Metric.P999) return new double[0];
    double[] values = new double[seconds.size()];
    for (int i = 0; i < values.length; i++) {
      Timeline.Second s = seconds.get(i);
      values[i] =
          switch (m) {
            case THROUGHPUT -> s.opsPerSecond();
            case CPU -> s.cpuSeconds() == 0 ? 0 : s.succeeded() / s.cpuSeconds();
            case P50 -> s.p50Nanos();
            case P99 -> s.p99Nanos();
            default -> s.maxNanos();
          };
    }
    return values;
  }
}
