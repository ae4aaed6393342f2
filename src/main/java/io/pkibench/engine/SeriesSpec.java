package io.pkibench.engine;

import io.pkibench.plan.Iterations;
import io.pkibench.plan.LevelLoad;
import io.pkibench.plan.Segment;
import io.pkibench.plan.Stages;

/**
 * One series of one level: {@code warmup} then {@code measure} iterations of {@code load} (closed
 * loop: workers back to back; open loop: workers on a fixed timetable). With {@code stages} (null
 * otherwise) the measured iteration follows them (a ramping timetable, or workers started and
 * parked as the target moves) and each warm-up iteration holds the first stage's target; {@code
 * load} is then the pool of workers. {@code segment}: the agent's share of stages that are the
 * whole plan's (its slots of the ramping timetable, its workers of each stage's target); {@code
 * load} is already its share of a fixed level.
 */
public record SeriesSpec(
    String workload,
    LevelLoad load,
    int series,
    int seriesCount,
    Iterations warmup,
    Iterations measure,
    Stages stages,
    Segment segment) {

  public SeriesSpec(
      String workload,
      LevelLoad load,
      int series,
      int seriesCount,
      Iterations warmup,
      Iterations measure,
      Stages stages) {
    this(workload, load, series, seriesCount, warmup, measure, stages, Segment.WHOLE);
  }

  public SeriesSpec(
      String workload,
      LevelLoad load,
      int series,
      int seriesCount,
      Iterations warmup,
      Iterations measure) {
    this(workload, load, series, seriesCount, warmup, measure, null);
  }

  /** A closed-loop series of {@code concurrency} workers. */
  public SeriesSpec(
      String workload,
      int concurrency,
      int series,
      int seriesCount,
      Iterations warmup,
      Iterations measure) {
    this(workload, new LevelLoad.Closed(concurrency), series, seriesCount, warmup, measure);
  }

  public int concurrency() {
    return load.workers();
  }

  /**
   * The interval-log tag of an iteration: no spaces or commas, which the .hlog format forbids in
   * tags.
   */
  public String tag(boolean warmupIteration, int index) {
    String level =
        stages != null
            ? "stages"
            : switch (load) {
              case LevelLoad.Closed c -> "c" + c.workers();
              case LevelLoad.Open o ->
                  "r"
                      + (o.ratePerSecond() == Math.rint(o.ratePerSecond())
                          ? Long.toString((long) o.ratePerSecond())
                          : Double.toString(o.ratePerSecond()));
            };
    return workload + "/" + level + "/s" + series + "/" + (warmupIteration ? "w" : "m") + index;
  }
}
