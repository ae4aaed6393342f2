package io.pkibench.analysis;

import java.util.List;
import java.util.Locale;

/**
 * CPU cost of a workload: per level, operations per CPU-second and utilisation; the operating point
 * is the level of highest throughput; {@code sizing} answers "how many cores for R ops/s at U% CPU".
 */
public record Capacity(List<LevelCapacity> levels, Double operatingLoad, Double opsPerCpuSecond, Sizing sizing) {

  public record LevelCapacity(double load, Double opsPerCpuSecond, double utilisation) {}

  /** {@code cores} = targetRate / (opsPerCpuSecond × maxUtilisation); null when no CPU was measured. */
  public record Sizing(double targetRate, double maxUtilisation, Double cores, String text) {}

  public static Capacity of(List<LevelPoint> points, Double targetRate, double maxUtilisation, boolean openLoop) {
    List<LevelCapacity> levels = points.stream().map(p -> new LevelCapacity(p.load(), p.opsPerCpuSecond(), p.utilisation())).toList();
    LevelPoint best = points.stream().max(java.util.Comparator.comparingDouble(LevelPoint::throughput)).orElse(null);
    Double perCpu = best == null ? null : best.opsPerCpuSecond();
    Sizing sizing = null;
    if (targetRate != null) {
      if (perCpu == null || perCpu <= 0) {
        sizing = new Sizing(targetRate, maxUtilisation, null, "no CPU time was measured, so no sizing");
      } else {
        double cores = targetRate / (perCpu * maxUtilisation);
        sizing = new Sizing(targetRate, maxUtilisation, cores, String.format(Locale.ROOT,
            "to sustain %.0f ops/s at %.0f%% CPU you need %.1f cores (%.0f ops per CPU-second, measured at %s)",
            targetRate, maxUtilisation * 100, cores, perCpu, openLoop ? TrimmedNumber.of(best.load(), 1) + " ops/s offered" : "concurrency " + TrimmedNumber.of(best.load(), 1)));
      }
    }
    return new Capacity(levels, best == null ? null : best.load(), perCpu, sizing);
  }


}
