package io.pkibench.analysis;

import io.pkibench.engine.SteadyWarmup;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Whether a level was measured in a steady state. A JVM service keeps compiling for tens of seconds
 * under load (the signing service's CPU per CAdES fell from 4.4 ms to 1.0 ms over its first 50 s on
 * two cores), so a short warm-up measures the JIT, not the service. The cost of an operation (CPU
 * per operation when CPU was measured, else time per operation) is compared between the first and
 * the last measured iteration of the first series; a change of {@link #DRIFT} or more in one
 * direction through every iteration is reported. It takes {@link #MIN_ITERATIONS} iterations to
 * call a trend: on a shared VM two 3-second iterations differ by 30% from noise alone.
 */
public final class Steadiness {
  static final double DRIFT = 0.15;
  static final int MIN_ITERATIONS = 3;

  private Steadiness() {}

  /**
   * When the level's warm-up ran until steady and ran out of iterations first (its last {@link
   * SteadyWarmup#WINDOW} warm-up iterations still trending): a sentence saying so. Such a level is
   * measured and shown, but not fitted.
   */
  public static Optional<String> neverSteadied(LevelResult level) {
    if (level.iterations().isEmpty()) return Optional.empty();
    int firstSeries = level.iterations().get(0).series();
    List<IterationResult> warm =
        level.iterations().stream().filter(i -> i.warmup() && i.series() == firstSeries).toList();
    if (warm.size() < SteadyWarmup.WINDOW) return Optional.empty();
    List<SteadyWarmup.Cost> costs =
        warm.stream()
            .map(i -> new SteadyWarmup.Cost(i.cpuNanos(), i.durationNanos(), i.succeeded()))
            .toList();
    if (SteadyWarmup.steady(costs)) return Optional.empty();
    List<IterationResult> last = warm.subList(warm.size() - SteadyWarmup.WINDOW, warm.size());
    boolean cpu = last.stream().allMatch(i -> i.cpuNanos() > 0);
    double first =
        (cpu ? last.get(0).cpuNanos() : last.get(0).durationNanos())
            / (double) last.get(0).succeeded();
    IterationResult end = last.get(last.size() - 1);
    double change =
        (cpu ? end.cpuNanos() : end.durationNanos()) / (double) end.succeeded() / first - 1;
    return Optional.of(
        String.format(
            Locale.ROOT,
            "never steadied: %s %s %.0f%% over the last %d of its %d warm-up iterations;"
                + " measured but not fitted; allow a longer warm-up (a larger upper count, or --duration)",
            cpu ? "CPU per operation" : "time per operation",
            change < 0 ? "still fell" : "still rose",
            Math.abs(change) * 100,
            SteadyWarmup.WINDOW,
            warm.size()));
  }

  /**
   * A sentence saying how the cost drifted, or empty when the level looks steady (or has too few
   * measured iterations to tell).
   */
  public static Optional<String> warning(LevelResult level) {
    if (level.iterations().isEmpty()) return Optional.empty();
    Optional<String> never = neverSteadied(level);
    if (never.isPresent()) return never;
    int firstSeries = level.iterations().get(0).series();
    List<IterationResult> measured =
        level.iterations().stream()
            .filter(i -> !i.warmup() && i.series() == firstSeries && i.succeeded() > 0)
            .toList();
    if (measured.size() < MIN_ITERATIONS) return Optional.empty();
    boolean cpu = measured.stream().allMatch(i -> i.cpuNanos() > 0);
    double[] cost =
        measured.stream()
            .mapToDouble(i -> (cpu ? i.cpuNanos() : i.durationNanos()) / (double) i.succeeded())
            .toArray();
    double change = cost[cost.length - 1] / cost[0] - 1;
    if (Math.abs(change) < DRIFT) return Optional.empty();
    for (int i = 1; i < cost.length; i++) {
      if (Math.signum(cost[i] - cost[i - 1]) != Math.signum(change))
        return Optional.empty(); // noise, not a trend
    }
    String what = cpu ? "CPU per operation" : "time per operation";
    return Optional.of(
        change < 0
            ? String.format(
                Locale.ROOT,
                "still warming up: %s fell %.0f%% from the first measured iteration to the last; lengthen --warmup (or the study's --duration) for steady-state figures",
                what,
                -change * 100)
            : String.format(
                Locale.ROOT,
                "slowing down: %s rose %.0f%% from the first measured iteration to the last; look for a resource running out (heap, connections, file descriptors)",
                what,
                change * 100));
  }
}
