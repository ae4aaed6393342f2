package io.pkibench.engine;

/** Receives progress as the engine runs; called from the engine's controller thread, never from workers. */
public interface ProgressListener {
  ProgressListener NONE = new ProgressListener() {};

  default void tick(ProgressSnapshot snapshot) {}

  default void iterationFinished(SeriesSpec spec, IterationOutcome outcome) {}

  /**
   * Once a second during an iteration, and once at its end, what the workers did since the last call (time series,
   * live metrics). Called before {@link #iterationFinished} for the iteration's last interval.
   */
  default void interval(IntervalSample sample) {}
}
