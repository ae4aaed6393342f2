package io.pkibench.engine;

import java.util.List;

/**
 * Receives progress as the engine runs; called from the engine's controller thread, never from
 * workers.
 */
public interface ProgressListener {
  ProgressListener NONE = new ProgressListener() {};

  default void tick(ProgressSnapshot snapshot) {}

  default void iterationFinished(SeriesSpec spec, IterationOutcome outcome) {}

  /**
   * Once a second during an iteration (on stages, also at each stage's boundary), and once at its
   * end, what the workers did since the last call (time series, live metrics). Called before {@link
   * #iterationFinished} for the iteration's last interval.
   */
  default void interval(IntervalSample sample) {}

  /**
   * Every listener given, each told everything in the order given (the console, a time series, a
   * metrics exporter).
   */
  static ProgressListener all(List<ProgressListener> listeners) {
    List<ProgressListener> each = List.copyOf(listeners);
    return new ProgressListener() {
      @Override
      public void tick(ProgressSnapshot snapshot) {
        for (ProgressListener l : each) l.tick(snapshot);
      }

      @Override
      public void iterationFinished(SeriesSpec spec, IterationOutcome outcome) {
        for (ProgressListener l : each) l.iterationFinished(spec, outcome);
      }

      @Override
      public void interval(IntervalSample sample) {
        for (ProgressListener l : each) l.interval(sample);
      }
    };
  }
}
