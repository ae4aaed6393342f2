package io.pkibench.engine;

import io.pkibench.plan.Iterations;

/**
 * One series of one level: {@code warmup} then {@code measure} iterations at {@code concurrency}
 * workers; with {@code ratePerSecond} > 0 the workers start operations on a fixed timetable (open
 * loop) instead of back to back.
 */
public record SeriesSpec(
    String workload, int concurrency, int series, int seriesCount, Iterations warmup, Iterations measure, double ratePerSecond) {

  /** A closed-loop series. */
  public SeriesSpec(String workload, int concurrency, int series, int seriesCount, Iterations warmup, Iterations measure) {
    this(workload, concurrency, series, seriesCount, warmup, measure, 0);
  }

  /** The interval-log tag of an iteration: no spaces or commas, which the .hlog format forbids in tags. */
  public String tag(boolean warmupIteration, int index) {
    String level = ratePerSecond > 0 ? "r" + (ratePerSecond == Math.rint(ratePerSecond) ? Long.toString((long) ratePerSecond) : Double.toString(ratePerSecond)) : "c" + concurrency;
    return workload + "/" + level + "/s" + series + "/" + (warmupIteration ? "w" : "m") + index;
  }
}
