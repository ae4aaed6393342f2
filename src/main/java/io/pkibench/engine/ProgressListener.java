package io.pkibench.engine;

/** Receives progress as the engine runs; called from the engine's controller thread, never from workers. */
public interface ProgressListener {
  ProgressListener NONE = new ProgressListener() {};

  default void tick(ProgressSnapshot snapshot) {}

  default void iterationFinished(SeriesSpec spec, IterationOutcome outcome) {}
}
