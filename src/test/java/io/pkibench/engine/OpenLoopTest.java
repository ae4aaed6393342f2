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
 * evenly from 0 to 200 ms over 200 of 2000 operations: p95 ≈ 100 ms, p99 ≈ 180 ms, p99.9 ≈ 198 ms.
 * A tool that times from the actual start sees one slow operation and a p99 of microseconds.
 */
class OpenLoopTest {
  private static final long STALL_MILLIS = 200;

  @Test
  void stallAtFixedRate_correctedPercentilesMatchTheoryAndUncorrectedShowTheGap() throws Exception {
    AtomicLong executed = new AtomicLong();
    Workload stalling =
        worker ->
            () -> {
              if (executed.incrementAndGet() == 1000) Thread.sleep(STALL_MILLIS);
            };
    SeriesSpec spec =
        new SeriesSpec(
            "stall",
            new LevelLoad.Open(1, 1000),
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

    assertEquals(2000, o.started(), 2, "the timetable offers 2000 starts in 2 s");
    assertEquals(o.started(), o.succeeded());
    // a fast worker catches up after the stall; a descheduled one may miss a start or two on a
    // loaded machine,
    // where an engine that gave up the backlog would miss the ~200 scheduled during the stall
    assertTrue(
        o.missedStarts() <= 5,
        "one fast worker catches up after the stall: missed " + o.missedStarts());
    Histogram corrected = o.latency();
    assertWithin(100e6, corrected.getValueAtPercentile(95), "p95");
    assertWithin(180e6, corrected.getValueAtPercentile(99), "p99");
    assertWithin(198e6, corrected.getValueAtPercentile(99.9), "p99.9");
    assertWithin(200e6, corrected.getMaxValue(), "max");

    Histogram uncorrected = o.uncorrected();
    assertTrue(
        uncorrected.getValueAtPercentile(99) < 1_000_000,
        "uncorrected p99 hides the stall: " + uncorrected.getValueAtPercentile(99));
    assertWithin(200e6, uncorrected.getMaxValue(), "the stalled operation itself");
    // ~199 are late because of the stall; timer slack on a busy VM makes others late by > 1 ms too
    // (451 seen with
    // both cores loaded). An engine that counted every start after the stall as late would reach
    // 1,000.
    assertTrue(
        o.lateStarts() >= 190 && o.lateStarts() < 1000,
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

  /**
   * Within 5% below the theory, and at most 50% above it: the machine can only add latency (a
   * worker thread descheduled for 45 ms on a machine loaded twenty-fold put p95 at 145 ms), while
   * an engine that did not correct would read microseconds and one that timed from the iteration's
   * start would read seconds.
   */
  private static void assertWithin(double expected, long actual, String what) {
    assertTrue(
        actual >= expected * 0.95 && actual <= expected * 1.5,
        what + ": expected " + expected / 1e6 + " ms (-5%, +50%), was " + actual / 1e6 + " ms");
  }
}
