package io.pkibench.results;

import io.pkibench.measure.LatencyHistograms;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Result files built from fixed numbers, for comparison, report and format tests. */
public final class ResultFixtures {
  private ResultFixtures() {}

  public static Environment environment() {
    return new Environment(
        "0.1.0",
        "abc1234",
        "Eclipse Adoptium 25.0.3+9-LTS",
        "Linux 6.1.0 amd64",
        "AMD EPYC",
        2,
        25_000_000_000L,
        List.of("SUN 25", "AmazonCorrettoCryptoProvider 2.5"),
        "pkibench run sign --concurrency 1..64",
        Instant.parse("2026-11-22T03:00:00Z"));
  }

  /**
   * A closed-loop run of one workload: level i has concurrency {@code concurrency[i]} and one
   * measured 1-second iteration per entry of {@code ratesPerLevel[i]}; latencies are spread evenly
   * over [0.5, 1.5] × {@code meanLatencyNanos[i]}; every iteration burns 0.9 CPU-seconds per worker
   * (at most 2).
   */
  public static RunResult closedRun(
      String workload, int[] concurrency, double[][] ratesPerLevel, long[] meanLatencyNanos) {
    WorkloadResult w =
        WorkloadResult.builder(workload)
            .params(Map.of("alg", "rsa2048", "size", "1024"))
            .keys("software:accp")
            .cpuMeter("jvm")
            .levels(List.of())
            .build();
    for (int i = 0; i < concurrency.length; i++) {
      List<IterationResult> its = new ArrayList<>();
      its.add(
          iteration(0, true, (long) ratesPerLevel[i][0] / 2, meanLatencyNanos[i], concurrency[i]));
      for (int k = 0; k < ratesPerLevel[i].length; k++) {
        its.add(
            iteration(
                k + 1,
                false,
                Math.round(ratesPerLevel[i][k]),
                meanLatencyNanos[i],
                concurrency[i]));
      }
      w = w.withLevel(LevelResult.of(concurrency[i], null, its, "jvm", 2));
    }
    return RunResult.start(environment(), null).withWorkload(0, w).withStatus(RunStatus.COMPLETE);
  }

  private static IterationResult iteration(
      int index, boolean warmup, long succeeded, long meanNanos, int workers) {
    Histogram h = LatencyHistograms.newHistogram();
    for (long i = 0; i < succeeded; i++)
      h.recordValue(meanNanos / 2 + meanNanos * (i * 7919 % succeeded) / Math.max(1, succeeded));
    return IterationResult.builder()
        .series(1)
        .index(index)
        .warmup(warmup)
        .durationNanos(1_000_000_000L)
        .started(succeeded)
        .succeeded(succeeded)
        .failed(0)
        .cpuNanos(900_000_000L * Math.min(2, workers))
        .histogram(LatencyHistograms.toBase64(h))
        .build();
  }
}
