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
    // Counts and orders, not windows: a loaded machine can start an arrival late (even past the
    // iteration's end, then counted missed), never early. So the timetable offers 5 (made or
    // missed), and arrival i starts no earlier than it is due, 100 + 200 × i ms after the start.
    assertEquals(
        5,
        o.started() + o.missedStarts(),
        "half of the 10 arrivals offered, the count following the offset: " + o);
    assertTrue(o.started() >= 1, "arrivals started: " + o);
    assertEquals(o.started(), startedAtNanos.size(), "each start ran the operation once");
    List<Long> sorted = new ArrayList<>(startedAtNanos);
    Collections.sort(sorted);
    // The i-th earliest start is no earlier than slot i's time: every slot k starts at or after its
    // time and the times rise with k. An agent on agent 1's times (0, 200, …) or on the whole
    // timetable's (every 100 ms) starts one too early.
    for (int i = 0; i < sorted.size(); i++) {
      long afterMillis = (sorted.get(i) - before) / 1_000_000;
      assertTrue(
          afterMillis >= 100 + 200L * i,
          "arrival "
              + i
              + " started "
              + afterMillis
              + " ms in, before its time "
              + (100 + 200 * i));
    }
  }
}
