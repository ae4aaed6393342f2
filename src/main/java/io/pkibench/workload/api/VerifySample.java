package io.pkibench.workload.api;

/**
 * Which of a worker's operations check their answer under {@code --verify-sample N}: the first,
 * then one in {@code every} (1: each one). One per worker, never shared: a plain counter, no lock.
 *
 * <p>Each worker's checks are shifted by a part of {@code every} of its own (the fractional parts
 * of the worker's number times the golden ratio, spread evenly whatever the count of workers; none
 * for worker 0), so that any stretch of the run checks about one operation in {@code every}. With
 * every worker in step, a measured time of fewer than {@code every} operations a worker could check
 * none: seen in a study's client-CPU step on a slow machine, 722 measured operations at 16 workers
 * and one in 100, not one checked.
 */
public final class VerifySample {
  private static final double GOLDEN_FRACTION = 0.6180339887498949;

  private final int every;
  private final int shift;
  private boolean first = true;
  private int untilNext;

  /** Worker 0's: the first operation, then each {@code every}th after it. */
  public VerifySample(int every) {
    this(every, 0);
  }

  /**
   * Worker {@code worker}'s: the first operation, then one in {@code every}, shifted by its own.
   */
  public VerifySample(int every, int worker) {
    if (every < 1) throw new IllegalArgumentException("--verify-sample: " + every + " is below 1");
    if (worker < 0) throw new IllegalArgumentException("a worker's number is below 0: " + worker);
    this.every = every;
    double fraction = (worker * GOLDEN_FRACTION) % 1.0;
    this.shift = (int) (fraction * every); // below every: fraction < 1
  }

  /** Whether the operation about to run checks its answer. */
  public boolean next() {
    if (untilNext > 0) {
      untilNext--;
      return false;
    }
    untilNext = first ? every - 1 - shift : every - 1;
    first = false;
    return true;
  }
}
