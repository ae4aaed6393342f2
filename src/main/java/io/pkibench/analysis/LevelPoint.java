package io.pkibench.analysis;

import io.pkibench.results.LevelResult;
import java.util.Comparator;
import java.util.List;

/**
 * One level as the analysis sees it: load (workers, or target rate in open loop), throughput, p99,
 * CPU.
 */
public record LevelPoint(
    double load,
    double throughput,
    Double throughputCi999,
    long p99Nanos,
    Double opsPerCpuSecond,
    double utilisation) {

  public static List<LevelPoint> of(List<LevelResult> levels) {
    return levels.stream()
        .map(
            l ->
                new LevelPoint(
                    l.load(),
                    l.throughput().mean(),
                    l.throughput().ci999(),
                    l.latencyNanos().p99(),
                    l.cpu().opsPerCpuSecond(),
                    l.cpu().utilisation()))
        .sorted(Comparator.comparingDouble(LevelPoint::load))
        .toList();
  }
}
