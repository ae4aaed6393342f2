package io.pkibench.measure;

import org.HdrHistogram.Histogram;

/**
 * Where interval histograms go as they are taken (an {@code .hlog} file), so a run can be replayed
 * and merged.
 */
public interface IntervalLog extends AutoCloseable {
  IntervalLog NONE = (tag, interval) -> {};

  /**
   * {@code interval} carries its own start and end timestamps; {@code tag} names workload, level
   * and iteration.
   */
  void write(String tag, Histogram interval);

  @Override
  default void close() {}
}
