package io.pkibench.dashboard;

import io.pkibench.metrics.LatencyBuckets;
import io.pkibench.metrics.MetricsSnapshot;
import io.pkibench.metrics.SeriesFigures;
import io.pkibench.metrics.SeriesKey;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the dashboard shows, made from the running totals {@code LiveMetrics} hands out each second:
 * the differences between two snapshots are that second's throughput, errors, latency quantiles and
 * CPU; each series' totals are a row of the table (a level, a stage, a study's step). Bounded: the
 * last {@link #MAX_POINTS} seconds, and the rows a run has (a handful per level).
 */
public final class LiveHistory {
  /** An hour of seconds; a longer run shows its last hour as it goes (the result keeps it all). */
  static final int MAX_POINTS = 3600;

  /** One second of the run, every series summed. NaN where the second had no operation. */
  public record Point(
      double atSeconds,
      double opsPerSecond,
      double errorsPerSecond,
      double p50Millis,
      double p99Millis,
      double clientCpuCores,
      double serviceCpuCores) {}

  /** One series' totals so far: its rate over the seconds it ran, its latency quantiles. */
  public record Row(
      SeriesKey key,
      long succeeded,
      long failed,
      double opsPerSecond,
      double p50Millis,
      double p99Millis,
      boolean live) {

    /** The level's number: workers ({@code c8}) or operations per second ({@code r400}). */
    public double levelNumber() {
      try {
        return Double.parseDouble(key.level().substring(1));
      } catch (RuntimeException e) {
        return Double.NaN;
      }
    }
  }

  /**
   * Everything at one moment; {@code sequence} counts the snapshots read, {@code plannedSeconds} is
   * NaN when the run's length is not known up front (a study, a run until steady).
   */
  public record View(
      String runId,
      long sequence,
      double elapsedSeconds,
      double plannedSeconds,
      List<Point> points,
      List<Row> rows) {

    /** The series an interval came for in the last second: what runs now. */
    public List<Row> current() {
      return rows.stream().filter(Row::live).toList();
    }
  }

  private record Seen(long firstAtMillis, long lastGrewAtMillis, long succeeded) {}

  private final String runId;
  private final double plannedSeconds;
  private final ArrayDeque<Point> points = new ArrayDeque<>();
  private final Map<SeriesKey, Seen> seen = new LinkedHashMap<>();
  private MetricsSnapshot previous;
  private long startedAtMillis = -1;
  private long sequence;
  private View view;

  public LiveHistory(String runId, double plannedSeconds) {
    this.runId = runId;
    this.plannedSeconds = plannedSeconds;
    this.view = new View(runId, 0, 0, plannedSeconds, List.of(), List.of());
  }

  /** Takes one snapshot; called by the dashboard's reading thread only. */
  public void add(MetricsSnapshot now) {
    if (startedAtMillis < 0) startedAtMillis = now.atMillis();
    List<SeriesFigures> counted = now.series().stream().filter(SeriesFigures::counters).toList();
    List<Row> rows = new ArrayList<>(counted.size());
    for (SeriesFigures f : counted) {
      long before = previous == null ? now.atMillis() : previous.atMillis();
      Seen s = seen.get(f.key());
      if (s == null) s = new Seen(before, now.atMillis(), f.succeeded());
      else if (f.succeeded() != s.succeeded())
        s = new Seen(s.firstAtMillis, now.atMillis(), f.succeeded());
      seen.put(f.key(), s);
      double seconds = (s.lastGrewAtMillis - s.firstAtMillis) / 1000.0;
      rows.add(
          new Row(
              f.key(),
              f.succeeded(),
              f.failed(),
              seconds > 0 ? f.succeeded() / seconds : Double.NaN,
              quantileMillis(f.cumulativeBuckets(), 0.50),
              quantileMillis(f.cumulativeBuckets(), 0.99),
              f.live()));
    }
    if (previous != null && now.atMillis() > previous.atMillis()) {
      points.addLast(second(previous, now));
      if (points.size() > MAX_POINTS) points.removeFirst();
    }
    previous = now;
    sequence++;
    View next =
        new View(
            runId,
            sequence,
            (now.atMillis() - startedAtMillis) / 1000.0,
            plannedSeconds,
            List.copyOf(points),
            List.copyOf(rows));
    synchronized (this) {
      view = next;
    }
  }

  /** The latest view; any thread. */
  public synchronized View view() {
    return view;
  }

  private Point second(MetricsSnapshot before, MetricsSnapshot now) {
    double seconds = (now.atMillis() - before.atMillis()) / 1000.0;
    long succeeded = 0, failed = 0;
    long[] buckets = new long[LatencyBuckets.count()];
    Map<SeriesKey, SeriesFigures> earlier = new LinkedHashMap<>();
    for (SeriesFigures f : before.series()) earlier.put(f.key(), f);
    for (SeriesFigures f : now.series()) {
      if (!f.counters()) continue;
      SeriesFigures e = earlier.get(f.key());
      succeeded += f.succeeded() - (e == null ? 0 : e.succeeded());
      failed += f.failed() - (e == null ? 0 : e.failed());
      for (int i = 0; i < buckets.length; i++)
        buckets[i] += f.cumulativeBuckets()[i] - (e == null ? 0 : e.cumulativeBuckets()[i]);
    }
    return new Point(
        (now.atMillis() - startedAtMillis) / 1000.0,
        succeeded / seconds,
        failed / seconds,
        quantileMillis(buckets, 0.50),
        quantileMillis(buckets, 0.99),
        (now.clientCpuSeconds() - before.clientCpuSeconds()) / seconds,
        (now.serviceCpuSeconds() - before.serviceCpuSeconds()) / seconds);
  }

  /**
   * The quantile {@code q} of cumulative bucket counts, interpolated linearly inside its bucket as
   * Prometheus' histogram_quantile does (so within a bucket's width, at most 2.5 times its floor:
   * the exact percentiles are the result file's); NaN without a count.
   */
  private static final List<Double> BOUNDS_SECONDS = LatencyBuckets.boundsSeconds();

  static double quantileMillis(long[] cumulative, double q) {
    long total = cumulative[cumulative.length - 1];
    if (total <= 0) return Double.NaN;
    List<Double> bounds = BOUNDS_SECONDS;
    double rank = q * total;
    for (int i = 0; i < cumulative.length; i++) {
      if (cumulative[i] >= rank) {
        if (i >= bounds.size()) return bounds.get(bounds.size() - 1) * 1e3; // past the last bound
        double lower = i == 0 ? 0 : bounds.get(i - 1), upper = bounds.get(i);
        long below = i == 0 ? 0 : cumulative[i - 1];
        long in = cumulative[i] - below;
        double fraction = in == 0 ? 1 : (rank - below) / in;
        return (lower + (upper - lower) * fraction) * 1e3;
      }
    }
    return Double.NaN;
  }
}
