package io.pkibench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.IntervalLog;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LevelLoad;
import io.pkibench.plan.Segment;
import io.pkibench.plan.ThreadKind;
import io.pkibench.workload.api.Workload;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An agent's share of an open-loop level, as the engine runs it: its arrivals start where the
 * segment puts them.
 */
@org.junit.jupiter.api.Timeout(30)
class SegmentedTimetableTest {

  /**
   * Agent 2 of 2 at 10/s: 5 arrivals in the second, at 100, 300, 500, 700 and 900 ms (agent 1 has
   * 0, 200, …).
   */
  @Test
  void runSeries_secondOfTwoAgents_startsItsArrivalsBetweenTheFirstAgents() throws Exception {
    List<Long> startedAtNanos = Collections.synchronizedList(new ArrayList<>());
    Workload recording = worker -> () -> startedAtNanos.add(System.nanoTime());
    LevelLoad share = new Segment(2, 2).share(new LevelLoad.Open(2, 10));
    SeriesSpec spec =
        new SeriesSpec("seg", share, 1, 1, Iterations.parse("0x1s"), Iterations.parse("1x1s"));
    long before = System.nanoTime();
    IterationOutcome o =
        new LoadDriver(
                ThreadKind.PLATFORM,
                ProgressListener.NONE,
                IntervalLog.NONE,
                InstantSource.system(),
                Duration.ofSeconds(5))
            .runSeries(spec, recording, CpuMeter.of("jvm"))
            .get(0);
    assertEquals(5, o.started(), "half of the 10 arrivals");
    assertEquals(0, o.missedStarts(), "the offered count follows the offset: 5, not 10");
    List<Long> sorted = new ArrayList<>(startedAtNanos);
    Collections.sort(sorted);
    // The iteration's start is not observable from here, but the gaps are: 200 ms apart, and the
    // first 100 ms in.
    for (int i = 1; i < sorted.size(); i++) {
      long gapMillis = (sorted.get(i) - sorted.get(i - 1)) / 1_000_000;
      assertTrue(
          gapMillis >= 190 && gapMillis <= 260,
          "arrival " + i + " " + gapMillis + " ms after the last");
    }
    assertTrue(
        (sorted.get(0) - before) / 1_000_000 >= 100,
        "the first arrival is due 100 ms after the start, not at it");
  }
}
