package io.pkibench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.IntervalLog;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Stages;
import io.pkibench.plan.ThreadKind;
import io.pkibench.workload.api.Workload;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Stages as the engine runs them: a ramping timetable, and workers started and parked as the target moves. */
@Timeout(60)
class StagedLoadDriverTest {
  private static final CpuMeter CPU = CpuMeter.of("jvm");

  /** Each measured interval, as the listener got it. */
  private static final class Intervals implements ProgressListener {
    final List<IntervalSample> measured = new ArrayList<>();

    @Override
    public void interval(IntervalSample sample) {
      if (!sample.warmup()) measured.add(sample);
    }
  }

  private static IterationOutcome run(String stages, int pool, Workload workload, Intervals intervals) throws Exception {
    Stages s = Stages.fromText(stages);
    LoadModel.Staged staged = new LoadModel.Staged(s, s.kind() == Stages.Kind.RATE ? pool : s.maxWorkers());
    SeriesSpec spec = new SeriesSpec("staged", staged.level(), 1, 1, Iterations.parse("0x1s"), new Iterations(1, s.total()), s);
    LoadDriver driver = new LoadDriver(ThreadKind.VIRTUAL, intervals, IntervalLog.NONE, InstantSource.system(), Duration.ofSeconds(10));
    List<IterationOutcome> outcomes = driver.runSeries(spec, workload, CPU);
    assertEquals(1, outcomes.size());
    return outcomes.get(0);
  }

  /**
   * Up to 200/s over 1 s, held 2 s, down to 0 over 1 s: each interval ends at a second or a stage's boundary, and
   * what started in it follows the timetable's own mean over it (100/s up, 200/s held, 100/s down).
   */
  @Test
  void runSeries_rateRamp_eachIntervalsStartsFollowTheTarget() throws Exception {
    Intervals intervals = new Intervals();
    IterationOutcome o = run("1s:200/s,2s:200/s,1s:0/s", 8, worker -> () -> {}, intervals);
    long started = 0;
    long[] perStage = new long[3];
    for (IntervalSample i : intervals.measured) {
      started += i.started();
      perStage[i.stage()] += i.started();
      double seconds = (i.endMillis() - i.startMillis()) / 1000.0;
      if (seconds < 0.5) continue; // the last, after the end: what was in flight
      double achieved = i.started() / seconds;
      assertTrue(Math.abs(achieved - i.targetPerSecond()) <= 0.1 * i.targetPerSecond() + 10,
          "stage " + i.stage() + ": " + achieved + "/s started against " + i.targetPerSecond() + "/s asked, in " + intervals.measured);
    }
    assertEquals(o.started(), started, "the intervals add up to the iteration");
    assertEquals(o.started() + o.missedStarts(), 601, 2, "every slot of the timetable made or counted missed: " + o);
    assertEquals(100, perStage[0], 10, "ramp up");
    assertEquals(400, perStage[1], 10, "hold");
    assertEquals(100, perStage[2], 10, "ramp down");
    assertTrue(intervals.measured.stream().map(IntervalSample::stage).distinct().toList().equals(List.of(0, 1, 2)), "each stage in turn");
  }

  /**
   * Up to 8 workers over 2 s, held 1 s, down to 2 over 2 s: at each interval's end as many workers run as the
   * target asks, and each worker's 5 ms operations make the ops of a held second about four times those of the first
   * (2 worker-seconds while 0 → 4, then 8).
   */
  @Test
  void runSeries_workerStages_activeWorkersFollowTheTarget() throws Exception {
    Intervals intervals = new Intervals();
    IterationOutcome o = run("2s:8,1s:8,2s:2", 0, worker -> () -> Thread.sleep(5), intervals);
    int checked = 0;
    for (IntervalSample i : intervals.measured.subList(0, intervals.measured.size() - 1)) {
      assertEquals(i.targetWorkers(), i.activeWorkers(), 1, "at " + (i.endMillis() - intervals.measured.get(0).startMillis()) + " ms: " + intervals.measured);
      checked++;
    }
    assertTrue(checked >= 4, intervals.measured.toString());
    assertEquals(List.of(4.0, 8.0, 8.0, 5.0), intervals.measured.subList(0, 4).stream().map(IntervalSample::targetWorkers).toList());
    double first = intervals.measured.get(0).succeeded();
    double held = intervals.measured.get(2).succeeded();
    assertTrue(held / first > 3 && held / first < 5, "held " + held + " against ramping " + first);
    assertEquals(0, intervals.measured.get(intervals.measured.size() - 1).activeWorkers(), "all parked at the end");
    assertEquals(o.started(), intervals.measured.stream().mapToLong(IntervalSample::started).sum());
  }
}
