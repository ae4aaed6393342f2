package io.pkibench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.IntervalLog;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LevelLoad;
import io.pkibench.plan.ThreadKind;
import io.pkibench.workload.api.Workload;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The coordinated-omission validation: at 1000 ops/s for 2 s, one operation stalls 200 ms at t ≈ 1
 * s. The ~200 operations scheduled during the stall wait for it, so corrected latencies spread
 * evenly from 0 to 200 ms over 200 of 2000 operations (p95 ≈ 100 ms, p99 ≈ 180 ms on a quiet
 * machine). A tool that times from the actual start sees one slow operation and a p99 of
 * microseconds.
 *
 * <p>Asserted by counts and orders that a loaded machine cannot upset (it can only add latency and
 * lateness, never take them away), against the stall as the operation itself measured it: the
 * arrivals due in the stall's first half each wait at least half of it, counted in the corrected
 * histogram and not in the uncorrected one.
 */
class OpenLoopTest {
  private static final long STALL_MILLIS = 200;
  private static final double RATE_PER_SECOND = 1000;

  @Test
  void stallAtFixedRate_correctedPercentilesMatchTheoryAndUncorrectedShowTheGap() throws Exception {
    AtomicLong executed = new AtomicLong();
    AtomicLong stallNanos = new AtomicLong();
    Workload stalling =
        worker ->
            () -> {
              if (executed.incrementAndGet() == 1000) {
                long from = System.nanoTime();
                Thread.sleep(STALL_MILLIS);
                stallNanos.set(System.nanoTime() - from);
              }
            };
    SeriesSpec spec =
        new SeriesSpec(
            "stall",
            new LevelLoad.Open(1, RATE_PER_SECOND),
            1,
            1,
            Iterations.parse("0x1s"),
            Iterations.parse("1x2s"));
    LoadDriver driver =
        new LoadDriver(
            ThreadKind.PLATFORM,
            ProgressListener.NONE,
            IntervalLog.NONE,
            InstantSource.system(),
            Duration.ofSeconds(10));
    List<IterationOutcome> outcomes = driver.runSeries(spec, stalling, CpuMeter.of("jvm"));
    IterationOutcome o = outcomes.get(0);

    assertEquals(
        2000,
        o.started() + o.missedStarts(),
        1,
        "the timetable offers 2000 starts in 2 s, each made or counted missed");
    assertEquals(o.started(), o.succeeded());
    long stall = stallNanos.get();
    assertTrue(stall >= STALL_MILLIS * 1_000_000, "the 1000th operation stalled: " + stall);
    // The arrivals due in the stall's first half start after it ends: each waits at least half of
    // it. They are ~100 at 1000/s; an engine that gave up the backlog never starts them.
    long dueInFirstHalf = (long) (RATE_PER_SECOND * stall / 2e9) - 1;
    assertTrue(
        o.missedStarts() < dueInFirstHalf,
        "one fast worker catches up after the stall: missed " + o.missedStarts());
    Histogram corrected = o.latency();
    long waitedHalf = corrected.getCountBetweenValues(stall / 2, corrected.getMaxValue());
    assertTrue(
        waitedHalf >= dueInFirstHalf,
        "corrected: at least "
            + dueInFirstHalf
            + " operations timed from when they were due wait half the stall; "
            + waitedHalf);
    assertTrue(corrected.getMaxValue() >= stall, "corrected max covers the stall");
    // Timed from when they were due, most operations are on time: an engine that timed from the
    // iteration's start would put the median at a second.
    assertTrue(
        corrected.getValueAtPercentile(50) < stall / 2,
        "corrected median " + corrected.getValueAtPercentile(50) / 1e6 + " ms");

    Histogram uncorrected = o.uncorrected();
    long uncorrectedWaitedHalf =
        uncorrected.getCountBetweenValues(stall / 2, uncorrected.getMaxValue());
    assertTrue(
        uncorrectedWaitedHalf < dueInFirstHalf / 4,
        "uncorrected hides the stall's queue: "
            + uncorrectedWaitedHalf
            + " operations at half the stall or more");
    assertTrue(uncorrected.getMaxValue() >= stall, "the stalled operation itself");
    // The ~199 due during the stall start more than 1 ms late; a loaded machine makes more late.
    assertTrue(
        o.lateStarts() >= 2 * dueInFirstHalf - 2,
        "operations scheduled during the stall start late: " + o.lateStarts());
  }

  @Test
  void overload_stopsAtTheDeadlineAndCountsMissedStarts() throws Exception {
    // 2000/s offered to one worker whose operations take 2 ms: it can start about 500/s.
    Workload slow = worker -> () -> Thread.sleep(2);
    SeriesSpec spec =
        new SeriesSpec(
            "slow",
            new LevelLoad.Open(1, 2000),
            1,
            1,
            Iterations.parse("0x1s"),
            Iterations.parse("1x1s"));
    LoadDriver driver =
        new LoadDriver(
            ThreadKind.PLATFORM,
            ProgressListener.NONE,
            IntervalLog.NONE,
            InstantSource.system(),
            Duration.ofSeconds(10));
    IterationOutcome o = driver.runSeries(spec, slow, CpuMeter.of("jvm")).get(0);
    // the backlog does not stretch the iteration: what was offered in its second is made or counted
    // missed, not served late
    assertEquals(
        2000,
        o.started() + o.missedStarts(),
        1,
        "every offered start is either made or counted as missed");
    assertTrue(o.missedStarts() > 1000, "most starts could not be made: " + o.missedStarts());
    assertTrue(
        o.latency().getMaxValue() > 500_000_000L,
        "corrected latency shows the growing queue: " + o.latency().getMaxValue() / 1e6 + " ms");
  }
}
