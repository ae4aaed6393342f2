package io.pkibench.results;

import java.util.List;

/**
 * What a study adds to its result ({@code pkibench.study/1}): which study, the unit its original
 * reported in, the published figures to set beside ours (with the hardware they came from), the
 * services it started (every pid each had, restarts included), each step's chosen level and why, and
 * the post-run checks with their outcome. The report reads the study from this alone.
 */
public record StudyRecord(
    String schema,
    String name,
    String title,
    Unit unit,
    Published published,
    List<ServiceRecord> services,
    List<StepRecord> steps,
    List<CheckRecord> checks,
    List<String> notes) {
  public static final String SCHEMA = "pkibench.study/1";

  public StudyRecord {
    services = List.copyOf(services);
    steps = List.copyOf(steps);
    checks = List.copyOf(checks);
    notes = List.copyOf(notes);
  }

  /** The original's throughput unit: {@code name} (e.g. ops/min) is ops/s × {@code perSecond}. */
  public record Unit(String name, double perSecond) {
    public static final Unit OPS_PER_SECOND = new Unit("ops/s", 1);
    public static final Unit OPS_PER_MINUTE = new Unit("ops/min", 60);
  }

  /** The figures the original published and the hardware it ran on; {@code figures} match steps by label. */
  public record Published(String source, String hardware, List<Figure> figures) {
    public Published {
      figures = List.copyOf(figures);
    }
  }

  /** {@code value} in the study's unit; {@code conditions} as the original states them, e.g. "40 threads". */
  public record Figure(String step, double value, String conditions) {}

  /** A service the study started as its own JVM: its command (no secret is ever on it) and every pid it had. */
  public record ServiceRecord(String name, List<String> command, int port, List<Long> pids) {
    public ServiceRecord {
      command = List.copyOf(command);
      pids = List.copyOf(pids);
    }
  }

  /**
   * One step: its label, the hooks run around it, when a probe chose its level the level and the reason,
   * and why it was not measured if it was not. {@code probeWorkload}/{@code measuredWorkload} index the
   * result's workloads (null when absent).
   */
  public record StepRecord(String label, List<String> hooks, Integer probeWorkload, Integer measuredWorkload, Integer chosenLevel,
      String chosenBecause, String notMeasuredBecause) {
    public StepRecord {
      hooks = List.copyOf(hooks);
    }

    public StepRecord(String label, List<String> hooks) {
      this(label, hooks, null, null, null, null, null);
    }

    public StepRecord probed(int workload) {
      return new StepRecord(label, hooks, workload, measuredWorkload, chosenLevel, chosenBecause, notMeasuredBecause);
    }

    public StepRecord chose(int level, String because) {
      return new StepRecord(label, hooks, probeWorkload, measuredWorkload, level, because, notMeasuredBecause);
    }

    public StepRecord measured(int workload) {
      return new StepRecord(label, hooks, probeWorkload, workload, chosenLevel, chosenBecause, notMeasuredBecause);
    }

    public StepRecord notMeasured(String why) {
      return new StepRecord(label, hooks, probeWorkload, measuredWorkload, chosenLevel, chosenBecause, why);
    }
  }

  /** A post-run check: passed or not, and what it found. A failed check fails the study. */
  public record CheckRecord(String name, boolean passed, String detail) {}

  public StudyRecord withServices(List<ServiceRecord> newServices) {
    return new StudyRecord(schema, name, title, unit, published, newServices, steps, checks, notes);
  }

  public StudyRecord withStep(StepRecord step) {
    List<StepRecord> list = new java.util.ArrayList<>(steps);
    list.removeIf(s -> s.label().equals(step.label()));
    list.add(step);
    return new StudyRecord(schema, name, title, unit, published, services, list, checks, notes);
  }

  public StudyRecord withChecks(List<CheckRecord> newChecks) {
    return new StudyRecord(schema, name, title, unit, published, services, steps, newChecks, notes);
  }

  public StudyRecord withNote(String note) {
    List<String> list = new java.util.ArrayList<>(notes);
    list.add(note);
    return new StudyRecord(schema, name, title, unit, published, services, steps, checks, list);
  }

  public boolean checksPassed() {
    return checks.stream().allMatch(CheckRecord::passed);
  }
}
