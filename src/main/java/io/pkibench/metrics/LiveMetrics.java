package io.pkibench.metrics;

import io.pkibench.engine.IntervalSample;
import io.pkibench.engine.MemberSample;
import io.pkibench.engine.ProgressListener;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.measure.LatencyHistograms;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LevelLoad;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * Adds up the engine's per-second intervals into running totals per series, for an exporter to
 * push. Called on the engine's controller thread, never a worker's: it only adds counts and
 * histograms (no I/O, a lock held for tens of microseconds, shared only with the snapshot a push
 * takes every few seconds, which sorts the latencies into buckets), so the measured path never
 * waits on a receiver.
 *
 * <p>A mix's operations are counted once, by member: its operations counter and duration histogram
 * are each member's (labelled {@code member}), while its rate and worker gauges, which belong to
 * the mix as a whole, are the mix's series without the label. A sum over members is then the mix's
 * total, as a sum over workloads is the run's.
 */
public final class LiveMetrics implements ProgressListener {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private final Map<SeriesKey, Totals> totals = new LinkedHashMap<>();
  private long intervals;

  /**
   * The controller's CPU spent in {@link #interval}, read by the thread itself around each call
   * (two reads a second).
   */
  private volatile long recordingCpuNanos;

  private static final class Totals {
    long succeeded, failed;

    /**
     * The latencies since the last snapshot, added up interval by interval (HdrHistogram's own
     * array addition, a few tens of microseconds a second) and sorted into the buckets once per
     * push: a push every few seconds steps through the value ranges once, where each second's
     * interval did it before (0.46 ms a second on the controller). Null until the series' first
     * interval, whose histogram it copies (and so its range and precision).
     */
    Histogram pending;

    final long[] buckets = new long[LatencyBuckets.count()];
    double sumNanos;
    long maxNanos;
    double target = Double.NaN, achieved;
    int workers;

    /**
     * The interval count when this series last had one: live when it moved since the previous
     * snapshot.
     */
    long lastInterval;

    /**
     * A mix member's series carries counts only; a mix's own, gauges only; any other workload's,
     * both.
     */
    boolean counters = true, gauges = true;
  }

  private long intervalsAtLastSnapshot;

  @Override
  public void interval(IntervalSample s) {
    long cpuBefore = THREADS.getCurrentThreadCpuTime();
    add(s);
    recordingCpuNanos +=
        THREADS.getCurrentThreadCpuTime() - cpuBefore; // one writer: the engine's controller
  }

  /**
   * CPU nanoseconds the per-second additions took so far, on whichever thread the engine called
   * them.
   */
  public long recordingCpuNanos() {
    return recordingCpuNanos;
  }

  private void add(IntervalSample s) {
    SeriesKey key = SeriesKey.of(s);
    double seconds = Math.max(1, s.endMillis() - s.startMillis()) / 1000.0;
    synchronized (this) {
      Totals t = totals.computeIfAbsent(key, k -> new Totals());
      ++intervals;
      if (s.members().isEmpty()) {
        count(t, s.succeeded(), s.failed(), s.latency());
      } else {
        t.counters = false;
        for (MemberSample m : s.members()) {
          Totals member = totals.computeIfAbsent(key.withMember(m.label()), k -> new Totals());
          member.gauges = false;
          count(member, m.succeeded(), m.failed(), m.latency());
        }
      }
      t.target = s.targetPerSecond();
      t.achieved = s.succeeded() / seconds;
      t.workers = s.activeWorkers();
      t.lastInterval = intervals;
    }
  }

  private void count(Totals t, long succeeded, long failed, Histogram latency) {
    t.succeeded += succeeded;
    t.failed += failed;
    if (t.pending == null) t.pending = latency.copy();
    else t.pending.add(latency);
    t.maxNanos = Math.max(t.maxNanos, latency.getTotalCount() == 0 ? 0 : latency.getMaxValue());
    t.lastInterval = intervals;
  }

  /**
   * Every series' totals now; a series is live when an interval came for it since the previous
   * snapshot. Called by the exporter's thread, which so pays for sorting the latencies since the
   * last one into their buckets.
   */
  public synchronized List<SeriesFigures> snapshot() {
    List<SeriesFigures> figures = figures(intervalsAtLastSnapshot, false);
    intervalsAtLastSnapshot = intervals;
    return figures;
  }

  /**
   * The totals of the series that moved since the last peek, for a second reader (the dashboard,
   * once a second, which keeps the others' from earlier peeks), whose own mark says what moved:
   * reading them does not end the gauges of a series for the exporter's next push.
   */
  public synchronized List<SeriesFigures> peek() {
    List<SeriesFigures> figures = figures(intervalsAtLastPeek, true);
    intervalsAtLastPeek = intervals;
    return figures;
  }

  private long intervalsAtLastPeek;

  /**
   * How often {@link #warmUp} runs the code: enough for C2, which takes a method after some
   * thousands of calls, not only C1 with its profiling.
   */
  public static final int WARM_UP_TIMES = 10_000;

  /**
   * Runs the per-second additions and a reading {@code times} over, before the run starts, on a
   * scratch instance fed made-up intervals of each shape a run gives (a closed and an open level, a
   * stage, a mix of two), {@code reader} reading it after each: code called once a second never
   * gets hot, and would run interpreted, about ten times slower, in the measured seconds (seen: a
   * series' key made in 50 µs, a second's latencies added in 50, a reading in 120). Compiled now,
   * it is compiled then. Touches no series of this run.
   */
  public static void warmUp(int times, Consumer<LiveMetrics> reader) {
    Histogram second = LatencyHistograms.newHistogram(); // the engine's intervals' shape
    SplittableRandom random = new SplittableRandom(1);
    for (int i = 0; i < 400; i++)
      second.recordValue((long) (1_000_000 * Math.exp(random.nextGaussian() * 0.5)));
    Iterations each = new Iterations(1, Duration.ofSeconds(1));
    List<SeriesSpec> specs =
        List.of(
            new SeriesSpec("warm-up", new LevelLoad.Closed(8), 0, 2, each, each),
            new SeriesSpec("warm-up", new LevelLoad.Open(8, 400, 0), 1, 2, each, each));
    SeriesSpec mixSpec = new SeriesSpec("warm-up-mix", new LevelLoad.Closed(8), 0, 1, each, each);
    List<MemberSample> mix =
        List.of(
            new MemberSample("a", 200, 200, 0, second), new MemberSample("b", 200, 199, 1, second));
    LiveMetrics scratch = new LiveMetrics();
    for (int i = 0; i < times; i++) {
      boolean mixed = i % 7 == 0; // a series is a mix's throughout, as in a run
      scratch.interval(
          new IntervalSample(
              mixed ? mixSpec : specs.get(i % 2),
              i % 3 == 0,
              i,
              i * 1000L,
              i * 1000L + 1000,
              400,
              399,
              1,
              second,
              400,
              8,
              i % 5 == 0 ? 0 : -1,
              Double.NaN,
              1_000_000,
              mixed ? mix : List.of()));
      reader.accept(scratch);
    }
  }

  /** Every series' totals, or with {@code movedOnly} the live ones'. */
  private List<SeriesFigures> figures(long intervalsAtLastRead, boolean movedOnly) {
    List<SeriesFigures> figures = new ArrayList<>(totals.size());
    for (Map.Entry<SeriesKey, Totals> e : totals.entrySet()) {
      Totals t = e.getValue();
      boolean live = t.lastInterval > intervalsAtLastRead;
      if (t.pending != null && t.pending.getTotalCount() > 0) {
        t.sumNanos += LatencyBuckets.addInto(t.pending, t.buckets);
        t.pending.reset();
      }
      // A series whose level, phase or stage has ended keeps its totals, not a histogram's few
      // hundred KB: a long study
      // or a staged mix has hundreds of them. Should it have intervals again, the next one is
      // copied afresh.
      if (!live) t.pending = null;
      if (movedOnly && !live) continue;
      long[] cumulative = new long[t.buckets.length];
      long running = 0;
      for (int i = 0; i < cumulative.length; i++) cumulative[i] = running += t.buckets[i];
      figures.add(
          new SeriesFigures(
              e.getKey(),
              t.succeeded,
              t.failed,
              cumulative,
              t.sumNanos / 1e9,
              t.maxNanos / 1e9,
              t.target,
              t.achieved,
              t.workers,
              live,
              t.counters,
              t.gauges));
    }
    return figures;
  }
}
