package io.pkibench.workload.api;

/**
 * Which of a worker's operations check their answer under {@code --verify-sample N}: the first,
 * then one in {@code every} (1: each one). One per worker, never shared: a plain counter, no lock.
 */
public final class VerifySample {
  private final int every;
  private int untilNext;

  public VerifySample(int every) {
    if (every < 1) throw new IllegalArgumentException("--verify-sample: " + every + " is below 1");
    this.every = every;
  }

  /** Whether the operation about to run checks its answer. */
  public boolean next() {
    if (untilNext > 0) {
      untilNext--;
      return false;
    }
    untilNext = every - 1;
    return true;
  }
}
