package io.pkibench.engine;

import io.pkibench.measure.LatencyHistograms;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.HdrHistogram.SingleWriterRecorder;
import org.HdrHistogram.ValueRecorder;

/**
 * Where a series' workers record their latencies. A fixed-range histogram is about 240 KB and a
 * recorder holds two plus the controller's copy, so one recorder per worker cost 6 GB at 10,000
 * workers and a once-a-second merge of 7 GB of counts. Up to {@link #MAX_STRIPES} workers each
 * still get their own single-writer recorder (the cheapest to record into); past that, workers
 * share {@code MAX_STRIPES} multi-writer recorders, worker {@code i} on stripe {@code i mod
 * MAX_STRIPES}. Both kinds record without a lock or an allocation; memory and the merge stay
 * bounded whatever the worker count, and two workers on a stripe contend only when both run at that
 * instant (a machine runs as many at once as it has cores).
 */
final class LatencyStripes {
  static final int MAX_STRIPES = 64;
  private final ValueRecorder[] recorders;
  private final Histogram[] copies;

  LatencyStripes(int workers) {
    this(workers, MAX_STRIPES);
  }

  /** At most {@code maxStripes} recorders, shared past that many workers. */
  LatencyStripes(int workers, int maxStripes) {
    if (workers < 1) throw new IllegalArgumentException("workers must be at least 1: " + workers);
    int stripes = Math.min(workers, maxStripes);
    boolean shared = workers > maxStripes;
    recorders = new ValueRecorder[stripes];
    copies = new Histogram[stripes];
    for (int i = 0; i < stripes; i++) {
      recorders[i] =
          shared ? LatencyHistograms.newSharedRecorder() : LatencyHistograms.newRecorder();
    }
  }

  int stripes() {
    return recorders.length;
  }

  /** The recorder worker {@code id} writes to; the same one for the whole series. */
  ValueRecorder forWorker(int id) {
    return recorders[id % recorders.length];
  }

  /**
   * Adds everything recorded since the last call into {@code target}; the controller's thread only.
   */
  void drainInto(Histogram target) {
    for (int i = 0; i < recorders.length; i++) {
      copies[i] =
          switch (recorders[i]) {
            case SingleWriterRecorder single -> single.getIntervalHistogram(copies[i]);
            case Recorder multi -> multi.getIntervalHistogram(copies[i]);
            default ->
                throw new IllegalStateException("unexpected recorder " + recorders[i].getClass());
          };
      target.add(copies[i]);
    }
  }
}
