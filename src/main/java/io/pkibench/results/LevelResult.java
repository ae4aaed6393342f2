package io.pkibench.results;

import io.pkibench.measure.LatencyHistograms;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * One level (a concurrency) of one workload: totals and summaries over the measured iterations of
 * every series; {@code iterations} keeps each iteration, warm-up included, with its histogram.
 */
public record LevelResult(
    int concurrency,
    Counts counts,
    Throughput throughput,
    LatencyNanos latencyNanos,
    Cpu cpu,
    List<ErrorCount> errors,
    List<IterationResult> iterations) {

  public LevelResult {
    errors = List.copyOf(errors);
    iterations = List.copyOf(iterations);
  }

  /** Summarises the measured (non-warm-up) iterations; histograms are merged, never averaged. */
  public static LevelResult of(int concurrency, List<IterationResult> iterations, String cpuMeter, int cores) {
    List<IterationResult> measured = iterations.stream().filter(i -> !i.warmup()).toList();
    long started = 0, succeeded = 0, failed = 0, durationNanos = 0, cpuNanos = 0;
    double[] rates = new double[measured.size()];
    List<Histogram> histograms = new ArrayList<>();
    Map<String, Long> errors = new TreeMap<>();
    for (int i = 0; i < measured.size(); i++) {
      IterationResult it = measured.get(i);
      started += it.started();
      succeeded += it.succeeded();
      failed += it.failed();
      durationNanos += it.durationNanos();
      cpuNanos += it.cpuNanos();
      rates[i] = it.opsPerSecond();
      histograms.add(LatencyHistograms.fromBase64(it.histogram()));
      for (ErrorCount e : it.errors()) errors.merge(e.cause(), e.count(), Long::sum);
    }
    return new LevelResult(
        concurrency,
        new Counts(started, succeeded, failed),
        Throughput.of(rates),
        LatencyNanos.of(LatencyHistograms.merge(histograms)),
        Cpu.of(cpuNanos, durationNanos, succeeded, cores, cpuMeter),
        ErrorCount.sorted(errors),
        iterations);
  }

  /** Every successful latency of the measured iterations in one histogram. */
  public Histogram mergedHistogram() {
    return LatencyHistograms.merge(iterations.stream()
        .filter(i -> !i.warmup()).map(i -> LatencyHistograms.fromBase64(i.histogram())).toList());
  }
}
