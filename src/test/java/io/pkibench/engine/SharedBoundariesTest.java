package io.pkibench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pkibench.plan.Iterations;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import org.junit.jupiter.api.Test;

/**
 * The shared timetable follows the plan, not the agent: each boundary is where every agent computes
 * it.
 */
@org.junit.jupiter.api.Timeout(10)
class SharedBoundariesTest {
  static final Instant START = Instant.parse("2026-12-01T10:00:00Z");

  /**
   * A clock stopped 20 s after the start: nothing waits, and each start's lateness shows where its
   * boundary was.
   */
  @Test
  void awaitStart_clockPastTheTimetable_boundariesFollowThePlan() throws Exception {
    SharedBoundaries b = new SharedBoundaries(InstantSource.fixed(START.plusSeconds(20)), START);
    SeriesSpec first =
        new SeriesSpec("sign", 4, 1, 1, Iterations.parse("1x2s"), Iterations.parse("1x3s"));
    SeriesSpec second =
        new SeriesSpec("sign", 8, 1, 1, Iterations.parse("1x2s"), Iterations.parse("1x3s"));
    b.awaitStart(first, true, 1, Duration.ofSeconds(2), () -> false); // at 0
    b.awaitStart(first, false, 1, Duration.ofSeconds(3), () -> false); // 0 + 2 s + 0.5 s
    b.awaitStart(
        second, true, 1, Duration.ofSeconds(2), () -> false); // 2.5 + 3 s + 5 s (a new series)
    assertEquals(3, b.lateStarts());
    assertEquals(20_000, b.latestMillis(), "the first boundary is the start");
    b = new SharedBoundaries(InstantSource.fixed(START.plusMillis(10_500 + 20)), START);
    b.awaitStart(first, true, 1, Duration.ofSeconds(2), () -> false);
    b.awaitStart(first, false, 1, Duration.ofSeconds(3), () -> false);
    b.awaitStart(second, true, 1, Duration.ofSeconds(2), () -> false);
    assertEquals(
        2, b.lateStarts(), "20 ms after the third boundary (10.5 s) is within the jitter allowed");
  }

  /** A clock before the boundary: the start waits for it, and is not late. */
  @Test
  void awaitStart_before_waitsUntilTheBoundary() throws Exception {
    Instant soon = Instant.now().plusMillis(300);
    SharedBoundaries b = new SharedBoundaries(InstantSource.system(), soon);
    SeriesSpec spec =
        new SeriesSpec("sign", 4, 1, 1, Iterations.parse("0x1s"), Iterations.parse("1x1s"));
    b.awaitStart(spec, false, 1, Duration.ofSeconds(1), () -> false);
    long early = soon.toEpochMilli() - System.currentTimeMillis();
    assertEquals(true, early <= 0, "returned " + early + " ms before the boundary");
    assertEquals(0, b.lateStarts());
  }
}
