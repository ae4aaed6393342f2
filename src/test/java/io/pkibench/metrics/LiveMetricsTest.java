package io.pkibench.metrics;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.engine.IntervalSample;
import io.pkibench.engine.MemberSample;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.measure.LatencyHistograms;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LevelLoad;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.junit.jupiter.api.Test;

class LiveMetricsTest {
  static final Iterations ONE = Iterations.parse("1x1s");

  static IntervalSample sample(
      SeriesSpec spec, boolean warmup, long succeeded, long failed, long... latenciesNanos) {
    Histogram h = LatencyHistograms.newHistogram();
    for (long l : latenciesNanos) h.recordValue(l);
    double target = spec.load() instanceof LevelLoad.Open o ? o.ratePerSecond() : Double.NaN;
    return new IntervalSample(
        spec,
        warmup,
        1,
        1_000,
        2_000,
        succeeded + failed,
        succeeded,
        failed,
        h,
        target,
        spec.concurrency(),
        -1,
        Double.NaN,
        0);
  }

  @Test
  void snapshot_intervalsOfOneSeries_addUpIntoCumulativeBucketsAndCounts() {
    LiveMetrics live = new LiveMetrics();
    SeriesSpec spec = new SeriesSpec("sign", new LevelLoad.Open(8, 400), 1, 1, ONE, ONE);
    // 40 µs and 50 µs fall in le=5e-05 (inclusive), 1 ms in le=0.001, 1.2 ms in le=0.0025, 40 s
    // past the last bound.
    live.interval(sample(spec, false, 3, 1, 40_000, 50_000, 1_000_000));
    live.interval(sample(spec, false, 2, 0, 1_200_000, 40_000_000_000L));
    List<SeriesFigures> figures = live.snapshot();
    assertEquals(1, figures.size());
    SeriesFigures f = figures.get(0);
    assertEquals(new SeriesKey("sign", "r400", "measure", null, null), f.key());
    assertEquals(5, f.succeeded());
    assertEquals(1, f.failed());
    long[] expected = new long[LatencyBuckets.count()];
    Arrays.fill(expected, 0, 4, 2); // 5e-05 .. 0.0005
    expected[4] = 3; // 0.001
    Arrays.fill(expected, 5, LatencyBuckets.count() - 1, 4); // 0.0025 .. 30
    expected[LatencyBuckets.count() - 1] = 5; // +Inf
    assertArrayEquals(expected, f.cumulativeBuckets());
    assertEquals(40.0023, f.latencySumSeconds(), 0.05, "sum within HdrHistogram's 3 digits");
    assertEquals(400.0, f.targetPerSecond());
    assertEquals(2.0, f.achievedPerSecond(), "the last interval's 2 successes over its second");
    assertEquals(8, f.activeWorkers());
    assertTrue(f.live());
    // A push later: the latencies since the last snapshot are added to the buckets once, the
    // earlier ones not again.
    live.interval(sample(spec, false, 1, 0, 1_000_000));
    SeriesFigures later = live.snapshot().get(0);
    assertEquals(6, later.latencyCount());
    assertEquals(4, later.cumulativeBuckets()[4], "le=0.001: 40 µs, 50 µs, 1 ms, and the new 1 ms");
    assertEquals(f.latencySumSeconds() + 0.001, later.latencySumSeconds(), 1e-5);
    assertEquals(
        later.latencyCount(),
        live.snapshot().get(0).latencyCount(),
        "a snapshot with nothing new adds nothing");
  }

  @Test
  void snapshot_mixInterval_countsEachMemberUnderItsLabelAndKeepsTheGaugesOnTheMix() {
    LiveMetrics live = new LiveMetrics();
    SeriesSpec spec = new SeriesSpec("mix", new LevelLoad.Open(4, 100), 1, 1, ONE, ONE);
    Histogram sign = LatencyHistograms.newHistogram(),
        verify = LatencyHistograms.newHistogram(),
        all = LatencyHistograms.newHistogram();
    sign.recordValue(40_000);
    sign.recordValue(50_000);
    verify.recordValue(1_000_000);
    all.add(sign);
    all.add(verify);
    live.interval(
        new IntervalSample(
            spec,
            false,
            1,
            1_000,
            2_000,
            4,
            3,
            1,
            all,
            100,
            4,
            -1,
            Double.NaN,
            0,
            List.of(
                new MemberSample("sign", 2, 2, 0, sign),
                new MemberSample("verify", 2, 1, 1, verify))));
    List<SeriesFigures> figures = live.snapshot();
    assertEquals(3, figures.size(), figures.toString());
    SeriesFigures mix = figures.get(0), s = figures.get(1), v = figures.get(2);
    assertEquals(new SeriesKey("mix", "r100", "measure", null, null), mix.key());
    assertFalse(mix.counters(), "the mix's operations are its members': counted once");
    assertTrue(mix.gauges());
    assertEquals(3.0, mix.achievedPerSecond(), "the mix's rate is the mix's");
    assertEquals(new SeriesKey("mix", "r100", "measure", null, "sign"), s.key());
    assertEquals(
        List.of("workload", "mix", "level", "r100", "phase", "measure", "member", "sign"),
        s.key().labels());
    assertTrue(s.counters());
    assertFalse(s.gauges(), "a member has no rate or workers of its own to report");
    assertEquals(2, s.succeeded());
    assertEquals(0, s.failed());
    assertEquals(2, s.latencyCount());
    assertEquals("verify", v.key().member());
    assertEquals(1, v.succeeded());
    assertEquals(1, v.failed());
    assertEquals(1, v.latencyCount());
    assertEquals(
        mix.succeeded() + s.succeeded() + v.succeeded(),
        3,
        "the members' counts are the mix's, once");
  }

  @Test
  void snapshot_seriesWithoutIntervalSinceTheLast_isNoLongerLive() {
    LiveMetrics live = new LiveMetrics();
    SeriesSpec c1 = new SeriesSpec("noop", 1, 1, 1, ONE, ONE);
    SeriesSpec c2 = new SeriesSpec("noop", 2, 1, 1, ONE, ONE);
    live.interval(sample(c1, true, 1, 0, 1_000));
    live.interval(sample(c1, false, 1, 0, 1_000));
    assertEquals(List.of(true, true), live.snapshot().stream().map(SeriesFigures::live).toList());
    live.interval(sample(c2, false, 1, 0, 1_000));
    List<SeriesFigures> next = live.snapshot();
    assertEquals(
        List.of("c1/warmup", "c1/measure", "c2/measure"),
        next.stream().map(f -> f.key().level() + "/" + f.key().phase()).toList());
    assertEquals(List.of(false, false, true), next.stream().map(SeriesFigures::live).toList());
    assertTrue(Double.isNaN(next.get(2).targetPerSecond()), "closed loop: no target rate");
    assertFalse(live.snapshot().get(2).live(), "nothing new since");
    live.interval(
        sample(c1, false, 1, 0, 2_000_000)); // a series that went quiet has intervals again
    SeriesFigures again = live.snapshot().get(1);
    assertTrue(again.live());
    assertEquals(2, again.latencyCount(), "its earlier latency kept, the new one added");
    assertEquals(0.002001, again.latencySumSeconds(), 1e-5);
  }

  /**
   * A peek gives the series that moved since the last peek only (the dashboard keeps the others'),
   * by a mark of its own: the exporter's snapshot still gives every series, each live as seen from
   * its own last read.
   */
  @Test
  void peek_theSeriesMovedSinceTheLastPeekOnly_snapshotEvery() {
    LiveMetrics live = new LiveMetrics();
    SeriesSpec c1 = new SeriesSpec("noop", 1, 1, 1, ONE, ONE);
    SeriesSpec c2 = new SeriesSpec("noop", 2, 1, 1, ONE, ONE);
    live.interval(sample(c1, false, 1, 0, 1_000));
    live.interval(sample(c2, false, 1, 0, 1_000));
    assertEquals(2, live.peek().size());
    live.interval(sample(c1, false, 2, 0, 1_000, 2_000));
    List<SeriesFigures> moved = live.peek();
    assertEquals(List.of("c1"), moved.stream().map(f -> f.key().level()).toList());
    assertEquals(3, moved.get(0).succeeded(), "its totals, not the second's");
    assertEquals(List.of(), live.peek(), "nothing moved since");
    assertEquals(
        List.of(true, true),
        live.snapshot().stream().map(SeriesFigures::live).toList(),
        "the snapshot's own mark: both moved since it last read");
  }

  /**
   * The warm-up runs the reader after each made-up interval, on one scratch instance, and feeds it
   * every shape a run gives, so that none of their code is left interpreted: a closed and an open
   * level, warm-up and measure, a stage, a mix's members. Its totals add up as a run's do.
   */
  @Test
  void warmUp_readsAScratchInstanceAfterEachInterval_fedEveryShapeARunGives() {
    List<LiveMetrics> read = new ArrayList<>();
    LiveMetrics.warmUp(70, read::add);
    assertEquals(70, read.size());
    assertEquals(1, read.stream().distinct().count(), "one scratch instance");
    List<SeriesFigures> figures = read.get(0).snapshot(); // every series: each peek took the moved
    Set<String> shapes = new TreeSet<>();
    for (SeriesFigures f : figures) {
      SeriesKey k = f.key();
      shapes.add(k.level().substring(0, 1) + "/" + k.phase());
      if (k.stage() != null) shapes.add("stage");
      if (k.member() != null) shapes.add("member " + k.member());
    }
    assertEquals(
        Set.of("c/measure", "c/warmup", "r/measure", "r/warmup", "stage", "member a", "member b"),
        shapes);
    long succeeded = 0;
    for (SeriesFigures f : figures) if (f.counters()) succeeded += f.succeeded();
    // 70 intervals: 10 of them mixes (their 200 + 199 by member), the rest 399 each
    assertEquals(60 * 399 + 10 * 399, succeeded);
  }

  /**
   * The per-second addition against HdrHistogram's own recorded-values iterator (the way it was
   * done before, and the library's reading of its counts): the same buckets and the same sum for
   * latencies spread from 1 ns to 60 s, values at and beside the bounds included, and nothing for
   * an empty interval.
   */
  @Test
  void addInto_latenciesFromNanosecondsToAMinute_sameBucketsAndSumAsHdrHistogramsIterator() {
    Random random = new Random(7);
    Histogram h = LatencyHistograms.newHistogram();
    for (int i = 0; i < 20_000; i++)
      h.recordValue((long) Math.pow(10, random.nextDouble() * 10.8)); // 1 ns … 63 s
    for (long bound : LatencyBuckets.BOUNDS_NANOS) {
      h.recordValue(bound);
      h.recordValue(bound + 1);
      h.recordValue(bound - 1);
    }
    h.recordValueWithCount(1, 5);
    long[] expected = new long[LatencyBuckets.count()];
    double expectedSum = 0;
    for (HistogramIterationValue v : h.recordedValues()) {
      long lowest = h.lowestEquivalentValue(v.getValueIteratedTo());
      int b = 0;
      while (b < LatencyBuckets.BOUNDS_NANOS.length && lowest > LatencyBuckets.BOUNDS_NANOS[b]) b++;
      expected[b] += v.getCountAtValueIteratedTo();
      expectedSum +=
          (double) h.medianEquivalentValue(v.getValueIteratedTo()) * v.getCountAtValueIteratedTo();
    }
    long[] buckets = new long[LatencyBuckets.count()];
    double sum = LatencyBuckets.addInto(h, buckets);
    assertArrayEquals(expected, buckets);
    assertEquals(h.getTotalCount(), Arrays.stream(buckets).sum());
    assertEquals(expectedSum, sum, expectedSum * 1e-12);
    long[] none = new long[LatencyBuckets.count()];
    assertEquals(0, LatencyBuckets.addInto(LatencyHistograms.newHistogram(), none));
    assertArrayEquals(new long[LatencyBuckets.count()], none);
  }
}
