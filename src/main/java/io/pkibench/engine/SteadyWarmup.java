package io.pkibench.engine;

import java.util.List;

/**
 * When a warm-up that may run until steady ({@code 2..10x5s}) can stop: the cost of an operation
 * (CPU per operation when CPU is measured, else wall time per operation) over the last {@link
 * #WINDOW} warm-up iterations no longer moves one way by {@link #DRIFT} or more. A JIT still
 * compiling makes the cost fall iteration after iteration; noise on a shared VM makes it go up and
 * down, which is steady enough to measure (the measured iterations' spread then says how noisy).
 * The same rule as the analysis's steadiness test, applied before measuring instead of after.
 */
public final class SteadyWarmup {
  /**
   * A one-way change this large over the window is a trend, not noise (two 3-second iterations
   * differ by up to 30% on a shared VM, not always the same way).
   */
  public static final double DRIFT = 0.15;

  /** Iterations it takes to tell a trend from noise. */
  public static final int WINDOW = 3;

  private SteadyWarmup() {}

  /** One warm-up iteration as the rule reads it. */
  public record Cost(long cpuNanos, long durationNanos, long succeeded) {}

  /**
   * Whether the warm-up so far (oldest first) has settled. Fewer than {@link #WINDOW} iterations
   * cannot tell; an iteration where nothing succeeded cannot be priced, and warming longer would
   * not help it: steady, so that the failures are measured and counted instead of warmed through.
   */
  public static boolean steady(List<Cost> warmups) {
    if (warmups.size() < WINDOW) return false;
    List<Cost> window = warmups.subList(warmups.size() - WINDOW, warmups.size());
    if (window.stream().anyMatch(c -> c.succeeded() == 0)) return true;
    boolean cpu = window.stream().allMatch(c -> c.cpuNanos() > 0);
    double[] cost =
        window.stream()
            .mapToDouble(c -> (cpu ? c.cpuNanos() : c.durationNanos()) / (double) c.succeeded())
            .toArray();
    double change = cost[cost.length - 1] / cost[0] - 1;
    if (Math.abs(change) < DRIFT) return true;
    for (int i = 1; i < cost.length; i++) {
      if (Math.signum(cost[i] - cost[i - 1]) != Math.signum(change))
        return true; // up and down: noise
    }
    return false;
  }
}
