package io.pkibench.engine;

import io.pkibench.plan.Iterations;

/** One series of one level: {@code warmup} then {@code measure} iterations at {@code concurrency} workers. */
public record SeriesSpec(
    String workload, int concurrency, int series, int seriesCount, Iterations warmup, Iterations measure) {

  /** The interval-log tag of an iteration: no spaces or commas, which the .hlog format forbids in tags. */
  public String tag(boolean warmupIteration, int index) {
    return workload + "/c" + concurrency + "/s" + series + "/" + (warmupIteration ? "w" : "m") + index;
  }
}
