package io.pkibench.study;

import io.pkibench.dashboard.StudyView;
import io.pkibench.measure.CpuMeter;
import io.pkibench.results.RunResult;
import io.pkibench.session.ResultFile;

/**
 * A running study as its live page reads it (another thread, once a second): the step under way of
 * how many, the result saved so far, and the services' CPU. The runner tells it what begins;
 * nothing here is on the measured path.
 */
public final class StudyLive implements StudyView {
  private volatile String step;
  private volatile ResultFile file;
  private volatile CpuMeter services;

  /** The study's services are planned and its result file open. */
  void begin(RunningServices running, ResultFile saved) {
    services = running.cpuMeter();
    file = saved;
  }

  /** Step {@code number} (1-based) of {@code of} begins. */
  void step(int number, int of, String label) {
    step = "step " + number + " of " + of + ": " + label;
  }

  @Override
  public String step() {
    return step;
  }

  @Override
  public RunResult soFar() {
    ResultFile f = file;
    return f == null ? null : f.current();
  }

  /**
   * The CPU of the study's services, whichever processes they are now (a restart followed); zero
   * before they are planned.
   */
  public CpuMeter servicesCpu() {
    return new CpuMeter() {
      @Override
      public long cpuNanos() {
        CpuMeter m = services;
        return m == null ? 0 : m.cpuNanos();
      }

      @Override
      public String describe() {
        return "the study's services";
      }
    };
  }
}
