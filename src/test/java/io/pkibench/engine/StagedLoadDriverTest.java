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

/**
 * Stages as the engine runs them: a ramping timetable, and workers started and parked as the target
 * moves.
 */
@Timeout(60)
class StagedLoadDriverTest {
  private static final CpuMeter CPU = CpuMeter.of("jvm");

  /** Each measured interval, as the listener got it. */
  private static class Intervals implements ProgressListener {
    final List<IntervalSample> measured = new ArrayList<>();

    @Override
    public void interval(IntervalSample sample) {
      if (!sample.warmup()) measured.add(sample);
    }
  }

  private static IterationOutcome run(
      String stages, int pool, Workload workload, Intervals intervals) throws Exception {
    List<IterationOutcome> outcomes = run(stages, pool, "0x1s", workload, intervals);
    assertEquals(1, outcomes.size());
    return outcomes.get(0);
  }

  private static List<IterationOutcome> run(
      String stages, int pool, String warmup, Workload workload, ProgressListener intervals)
      throws Exception {
    Stages s = Stages.fromText(stages);
    LoadModel.Staged staged =
        new LoadModel.Staged(s, s.kind() == Stages.Kind.RATE ? pool : s.maxWorkers());
    SeriesSpec spec =
        new SeriesSpec(
            "staged",
            staged.level(),
            1,
            1,
            Iterations.parse(warmup),
            new Iterations(1, s.total()),
            s);
    LoadDriver driver =
        new LoadDriver(
            ThreadKind.VIRTUAL,
            intervals,
            IntervalLog.NONE,
            InstantSource.system(),
            Duration.ofSeconds(10));
    return driver.runSeries(spec, workload, CPU);
  }

  /**
   * A warm-up before stages holds the first stage's target from its first instant: 150/s for a
   * second, no ramp.
   */
  @Test
  void runSeries_warmupBeforeStages_holdsTheFirstTarget() throws Exception {
    List<IntervalSample> warm = new ArrayList<>();
    ProgressListener listener =
        new ProgressListener() {
          @Override
          public void interval(IntervalSample sample) {
            if (sample.warmup()) warm.add(sample);
          }
        };
    List<IterationOutcome> outcomes =
        run("1s:150/s,2s:0/s", 4, "1x1s", worker -> () -> {}, listener);
    assertEquals(2, outcomes.size());
    IterationOutcome warmup = outcomes.get(0);
    assertTrue(warmup.warmup());
    assertEquals(
        150,
        warmup.started() + warmup.missedStarts(),
        2,
        "a second at 150/s, not a ramp's 75: " + warmup);
    assertTrue(
        warm.stream()
            .allMatch(i -> i.targetPerSecond() > 140 || i.endMillis() - i.startMillis() < 500),
        warm.toString());
    assertEquals(
        226,
        outcomes.get(1).started() + outcomes.get(1).missedStarts(),
        3,
        "then the stages: 0 → 150/s over 1 s (75), down over 2 s (150)");
  }

  /**
   * Up to 200/s over 1 s, held 2 s, down to 0 over 1 s: each interval ends at a second or a stage's
   * boundary, and what started up to each interval's end is never ahead of what the timetable
   * offered by then (100 up, 500 after the hold), while the workers keep up with the whole: a
   * loaded machine can start an arrival late, never early, so the bound holds there too.
   */
  @Test
  void runSeries_rateRamp_eachIntervalsStartsFollowTheTarget() throws Exception {
    Intervals intervals = new Intervals();
    IterationOutcome o = run("1s:200/s,2s:200/s,1s:0/s", 8, worker -> () -> {}, intervals);
    long started = 0;
    double offered = 0;
    for (IntervalSample i : intervals.measured) {
      started += i.started();
      // the interval's target is the timetable's own mean over it: what it offered there
      offered += i.targetPerSecond() * (i.endMillis() - i.startMillis()) / 1000.0;
      assertTrue(
          started <= offered + 3,
          "at most the "
              + offered
              + " offered started by the end of stage "
              + i.stage()
              + "'s interval, not "
              + started
              + ": "
              + intervals.measured);
    }
    assertEquals(o.started(), started, "the intervals add up to the iteration");
    assertEquals(
        o.started() + o.missedStarts(),
        601,
        2,
        "every slot of the timetable made or counted missed: " + o);
    // An engine a ramp slowed (or one on the ramp's start rate throughout) would miss hundreds.
    assertTrue(o.missedStarts() <= 30, "the workers keep up with the timetable: " + o);
    assertTrue(
        intervals.measured.stream()
            .map(IntervalSample::stage)
            .distinct()
            .toList()
            .equals(List.of(0, 1, 2)),
        "each stage in turn");
  }

  /**
   * Up to 8 workers over 2 s, held 1 s, down to 2 over 2 s: at each interval's end as many workers
   * run as the target asks, and the workers that ran an operation in a second are among those the
   * target let run in it (at most 4 while it rose to 4, all 8 held, at most 5 while it fell from
   * 5): parked workers run nothing, however fast or slow the machine.
   */
  @Test
  void runSeries_workerStages_activeWorkersFollowTheTarget() throws Exception {
    java.util.Set<Integer> ran = java.util.concurrent.ConcurrentHashMap.newKeySet();
    List<java.util.Set<Integer>> ranPerInterval = new ArrayList<>();
    Intervals intervals =
        new Intervals() {
          @Override
          public void interval(IntervalSample sample) {
            super.interval(sample);
            java.util.Set<Integer> these = new java.util.TreeSet<>(ran);
            ran.removeAll(these);
            ranPerInterval.add(these);
          }
        };
    IterationOutcome o =
        run(
            "2s:8,1s:8,2s:2",
            0,
            worker ->
                () -> {
                  ran.add(worker);
                  Thread.sleep(5);
                },
            intervals);
    int checked = 0;
    long from = intervals.measured.get(0).startMillis();
    for (IntervalSample i : intervals.measured.subList(0, intervals.measured.size() - 1)) {
      // A tick a few ms late on a loaded machine lands past the 5 s iteration's end, when every
      // worker has already stopped.
      if (i.endMillis() - from >= 5000) continue;
      // A loaded machine wakes a worker late and parks one late, so the active count may lag the
      // target, never lead it: at most the target while it rises or holds, at least it (less the
      // rounding of a worker between two) while it falls.
      String at =
          "at " + (i.endMillis() - from) + " ms, stage " + i.stage() + ": " + intervals.measured;
      if (i.stage() == 2)
        assertTrue(i.activeWorkers() >= i.targetWorkers() - 1, "not parked early " + at);
      else assertTrue(i.activeWorkers() <= i.targetWorkers() + 1, "not woken early " + at);
      checked++;
    }
    assertTrue(checked >= 4, intervals.measured.toString());
    // The target each interval reports is the timetable's at the interval's end: 4, 8, 8, 5 when
    // the ticks come on the second, other values on the same ramp when a loaded machine makes a
    // tick late. Read against the stages at the tick's time (to the millisecond: ±1 worker).
    Stages timetable = Stages.fromText("2s:8,1s:8,2s:2");
    for (IntervalSample i : intervals.measured.subList(0, 4)) {
      long atNanos = Math.min((i.endMillis() - from) * 1_000_000, 5_000_000_000L - 1);
      assertEquals(
          Math.round(timetable.targetAt(atNanos)),
          i.targetWorkers(),
          1,
          "the target at " + (i.endMillis() - from) + " ms: " + intervals.measured);
    }
    // Exact at the edges would ask a loaded machine to wake a worker within the 125 ms before the
    // second ends: the workers that must have run, and none that the target kept parked.
    // Which workers the target let run is read at the interval's edges as they fell (a late tick
    // makes the first interval longer): worker k runs only once the target reaches k + 0.5, so
    // while it rises to the first interval's end (its listener a little after: 200 ms allowed)
    // and while it falls from the fifth interval's start.
    IntervalSample first = intervals.measured.get(0), fifth = intervals.measured.get(4);
    double risenTo = timetable.targetAt((first.endMillis() - from + 200) * 1_000_000);
    double fellFrom = timetable.targetAt((fifth.startMillis() - from) * 1_000_000);
    assertTrue(
        ranPerInterval.get(0).stream().allMatch(k -> k + 0.5 <= risenTo)
            && ranPerInterval.get(0).containsAll(java.util.Set.of(0, 1, 2)),
        "rising to " + risenTo + ": " + ranPerInterval);
    assertEquals(8, ranPerInterval.get(2).size(), "held at 8: " + ranPerInterval);
    assertTrue(
        ranPerInterval.get(4).stream().allMatch(k -> k + 0.5 <= fellFrom)
            && ranPerInterval.get(4).containsAll(java.util.Set.of(0, 1, 2)),
        "falling from " + fellFrom + " to 2: " + ranPerInterval);
    assertEquals(
        0,
        intervals.measured.get(intervals.measured.size() - 1).activeWorkers(),
        "all parked at the end");
    assertEquals(o.started(), intervals.measured.stream().mapToLong(IntervalSample::started).sum());
  }
}
