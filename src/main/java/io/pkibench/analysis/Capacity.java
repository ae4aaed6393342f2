package io.pkibench.analysis;

import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * CPU cost of a workload: per level, operations per CPU-second and utilisation; the operating point
 * is the level of highest throughput; {@code sizing} answers "how many cores for R ops/s at U%
 * CPU", as a figure and as the range the measured iterations' own spread of cost gives it.
 */
public record Capacity(
    List<LevelCapacity> levels, Double operatingLoad, Double opsPerCpuSecond, Sizing sizing) {

  public record LevelCapacity(double load, Double opsPerCpuSecond, double utilisation) {}

  /**
   * {@code cores} = targetRate / (opsPerCpuSecond × maxUtilisation), null when no CPU was measured;
   * {@code coresLow} and {@code coresHigh} the same from the cheapest and the dearest of the
   * operating level's measured iterations (null with fewer than two); {@code pastMeasured} when the
   * rate is above any throughput measured, so the answer assumes a cost per operation the run did
   * not see at that rate.
   */
  public record Sizing(
      double targetRate,
      double maxUtilisation,
      Double cores,
      Double coresLow,
      Double coresHigh,
      int iterations,
      boolean pastMeasured,
      String text) {}

  /**
   * As {@link #of(List, List, Double, double, boolean)} without the levels' iterations: no range.
   */
  public static Capacity of(
      List<LevelPoint> points, Double targetRate, double maxUtilisation, boolean openLoop) {
    return of(points, List.of(), targetRate, maxUtilisation, openLoop);
  }

  /**
   * {@code levels}: the measured levels behind {@code points}, whose iterations give the sizing its
   * range.
   */
  public static Capacity of(
      List<LevelPoint> points,
      List<LevelResult> levels,
      Double targetRate,
      double maxUtilisation,
      boolean openLoop) {
    List<LevelCapacity> capacities =
        points.stream()
            .map(p -> new LevelCapacity(p.load(), p.opsPerCpuSecond(), p.utilisation()))
            .toList();
    LevelPoint best =
        points.stream().max(Comparator.comparingDouble(LevelPoint::throughput)).orElse(null);
    Double perCpu = best == null ? null : best.opsPerCpuSecond();
    Sizing sizing = null;
    if (targetRate != null) {
      if (perCpu == null || perCpu <= 0) {
        sizing =
            new Sizing(
                targetRate,
                maxUtilisation,
                null,
                null,
                null,
                0,
                false,
                "no CPU time was measured, so no sizing");
      } else {
        double cores = targetRate / (perCpu * maxUtilisation);
        double[] spread = iterationSpread(levels, best.load());
        Double low = spread == null ? null : targetRate / (spread[1] * maxUtilisation);
        Double high = spread == null ? null : targetRate / (spread[0] * maxUtilisation);
        int iterations = spread == null ? 0 : (int) spread[2];
        double highestMeasured =
            points.stream().mapToDouble(LevelPoint::throughput).max().orElse(0);
        boolean past = targetRate > highestMeasured;
        String range =
            low == null
                ? " (one measured iteration: no range)"
                : String.format(
                    Locale.ROOT,
                    " (%.1f–%.1f over its %d measured iterations' %.0f–%.0f ops per CPU-second)",
                    low,
                    high,
                    iterations,
                    spread[0],
                    spread[1]);
        String text =
            String.format(
                Locale.ROOT,
                "to sustain %.0f ops/s at %.0f%% CPU you need %.1f cores%s, from %.0f ops per CPU-second measured at %s",
                targetRate,
                maxUtilisation * 100,
                cores,
                range,
                perCpu,
                openLoop
                    ? TrimmedNumber.of(best.load(), 1) + " ops/s offered"
                    : "concurrency " + TrimmedNumber.of(best.load(), 1));
        if (past) {
          text +=
              String.format(
                  Locale.ROOT,
                  "; %.0f ops/s is %.1f× the highest rate measured (%.0f ops/s): the answer assumes each operation"
                      + " costs at that rate what it cost here, which this run did not measure",
                  targetRate,
                  targetRate / highestMeasured,
                  highestMeasured);
        }
        sizing = new Sizing(targetRate, maxUtilisation, cores, low, high, iterations, past, text);
      }
    }
    return new Capacity(capacities, best == null ? null : best.load(), perCpu, sizing);
  }

  /**
   * The lowest and highest ops per CPU-second among the measured iterations of the level at {@code
   * load}, and their count; null under two.
   */
  private static double[] iterationSpread(List<LevelResult> levels, double load) {
    double min = Double.POSITIVE_INFINITY, max = 0;
    int n = 0;
    for (LevelResult level : levels) {
      if (level.load() != load) continue;
      for (IterationResult it : level.iterations()) {
        if (it.warmup() || it.cpuNanos() <= 0 || it.succeeded() <= 0) continue;
        double perCpu = it.succeeded() / (it.cpuNanos() / 1e9);
        min = Math.min(min, perCpu);
        max = Math.max(max, perCpu);
        n++;
      }
    }
    return n < 2 ? null : new double[] {min, max, n};
  }
}
