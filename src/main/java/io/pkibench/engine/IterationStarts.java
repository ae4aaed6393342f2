package io.pkibench.engine;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * When each iteration may start: at once (one agent alone), or at a wall-clock boundary every agent
 * of a split plan shares ({@code --start-at}), so that iteration k of each agent covers the same
 * interval and their counts add up per interval.
 */
@FunctionalInterface
public interface IterationStarts {
  /** No waiting: each iteration starts when the last one ends. */
  IterationStarts NOW = (spec, warmup, index, length, aborted) -> {};

  /**
   * Returns when the iteration {@code index} of {@code spec} ({@code length} long) may start, or
   * early once {@code aborted} says so; called with the series' workers all waiting at the gate.
   */
  void awaitStart(
      SeriesSpec spec, boolean warmup, int index, Duration length, BooleanSupplier aborted)
      throws InterruptedException;
}
