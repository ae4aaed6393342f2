package io.pkibench.metrics;

import io.pkibench.engine.IntervalSample;
import io.pkibench.engine.ProgressListener;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Adds up the engine's per-second intervals into running totals per series, for an exporter to push. Called on the
 * engine's controller thread, never a worker's: it only adds counts and buckets (no I/O, a lock held for microseconds,
 * shared only with the snapshot a push takes every few seconds), so the measured path never waits on a receiver.
 */
public final class LiveMetrics implements ProgressListener {
  private final Map<SeriesKey, Totals> totals = new LinkedHashMap<>();
  private long intervals;

  private static final class Totals {
    long succeeded, failed;
    final long[] buckets = new long[LatencyBuckets.count()];
    double sumNanos;
    long maxNanos;
    double target = Double.NaN, achieved;
    int workers;
    /** The interval count when this series last had one: live when it moved since the previous snapshot. */
    long lastInterval;
  }

  private long intervalsAtLastSnapshot;

  @Override
  public void interval(IntervalSample s) {
    SeriesKey key = SeriesKey.of(s);
    double seconds = Math.max(1, s.endMillis() - s.startMillis()) / 1000.0;
    synchronized (this) {
      Totals t = totals.computeIfAbsent(key, k -> new Totals());
      t.succeeded += s.succeeded();
      t.failed += s.failed();
      t.sumNanos += LatencyBuckets.addInto(s.latency(), t.buckets);
      t.maxNanos = Math.max(t.maxNanos, s.latency().getTotalCount() == 0 ? 0 : s.latency().getMaxValue());
      t.target = s.targetPerSecond();
      t.achieved = s.succeeded() / seconds;
      t.workers = s.activeWorkers();
      t.lastInterval = ++intervals;
    }
  }

  /** Every series' totals now; a series is live when an interval came for it since the previous snapshot. */
  public synchronized List<SeriesFigures> snapshot() {
    List<SeriesFigures> figures = new ArrayList<>(totals.size());
    for (Map.Entry<SeriesKey, Totals> e : totals.entrySet()) {
      Totals t = e.getValue();
      long[] cumulative = new long[t.buckets.length];
      long running = 0;
      for (int i = 0; i < cumulative.length; i++) cumulative[i] = running += t.buckets[i];
      figures.add(new SeriesFigures(e.getKey(), t.succeeded, t.failed, cumulative, t.sumNanos / 1e9, t.maxNanos / 1e9,
          t.target, t.achieved, t.workers, t.lastInterval > intervalsAtLastSnapshot));
    }
    intervalsAtLastSnapshot = intervals;
    return figures;
  }
}
