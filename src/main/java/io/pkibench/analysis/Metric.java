package io.pkibench.analysis;

import io.pkibench.measure.LatencyHistograms;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import java.util.List;

/**
 * What a comparison compares, read from a level and, for the noise interval, from each measured
 * iteration.
 */
public enum Metric {
  THROUGHPUT("throughput", true, "ops/s"),
  CPU("cpu", true, "ops/cpu-s"),
  P50("p50", false, "ns"),
  P90("p90", false, "ns"),
  P99("p99", false, "ns"),
  P999("p999", false, "ns"),
  MAX("max", false, "ns");

  public final String flag;
  private final boolean higherIsBetter;
  public final String unit;

  Metric(String flag, boolean higherIsBetter, String unit) {
    this.flag = flag;
    this.higherIsBetter = higherIsBetter;
    this.unit = unit;
  }

  static Metric parse(String flag) {
    for (Metric m : values()) if (m.flag.equals(flag)) return m;
    return null;
  }

  public boolean higherIsBetter() {
    return higherIsBetter;
  }

  /**
   * The level's value: throughput mean, ops per CPU-second, or a percentile of the merged
   * histogram.
   */
  Double of(LevelResult level) {
    return switch (this) {
      case THROUGHPUT -> level.throughput().mean();
      case CPU -> level.cpu().opsPerCpuSecond();
      case P50 -> (double) level.latencyNanos().p50();
      case P90 -> (double) level.latencyNanos().p90();
      case P99 -> (double) level.latencyNanos().p99();
      case P999 -> (double) level.latencyNanos().p999();
      case MAX -> (double) level.latencyNanos().max();
    };
  }

  /** One value per measured iteration: the samples whose spread is the noise. */
  double[] perIteration(LevelResult level) {
    List<IterationResult> measured = level.iterations().stream().filter(i -> !i.warmup()).toList();
    double[] values = new double[measured.size()];
    for (int i = 0; i < values.length; i++) {
      IterationResult it = measured.get(i);
      values[i] =
          switch (this) {
            case THROUGHPUT -> it.opsPerSecond();
            case CPU -> it.cpuNanos() == 0 ? 0 : it.succeeded() / (it.cpuNanos() / 1e9);
            default -> percentileOf(it);
          };
    }
    return values;
  }

  private double percentileOf(IterationResult it) {
    var h = LatencyHistograms.fromBase64(it.histogram());
    return switch (this) {
      case P50 -> h.getValueAtPercentile(50);
      case P90 -> h.getValueAtPercentile(90);
      case P99 -> h.getValueAtPercentile(99);
      case P999 -> h.getValueAtPercentile(99.9);
      default -> h.getMaxValue();
    };
  }
}
