package io.pkibench.report;

import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.results.WorkloadResult;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * One measured step of a study: its label, its measured entry, and the probe's entry if a probe
 * chose the level.
 */
public record StudyRow(
    String label, WorkloadResult measured, WorkloadResult probe, StudyRecord.StepRecord step) {

  /** The study's rows in step order. */
  public static List<StudyRow> of(RunResult result) {
    List<StudyRow> rows = new ArrayList<>();
    for (StudyRecord.StepRecord s : result.study().steps()) {
      WorkloadResult measured =
          s.measuredWorkload() == null ? null : result.workloads().get(s.measuredWorkload());
      WorkloadResult probe =
          s.probeWorkload() == null ? null : result.workloads().get(s.probeWorkload());
      rows.add(new StudyRow(s.label(), measured, probe, s));
    }
    return rows;
  }

  /**
   * The measured level; for a step that sweeps several, its peak (the highest throughput), the
   * sweep being in the run's own tables.
   */
  public Optional<LevelResult> level() {
    if (measured == null || measured.levels().isEmpty()) return Optional.empty();
    return measured.levels().stream().max(Comparator.comparingDouble(l -> l.throughput().mean()));
  }

  boolean swept() {
    return measured != null && measured.levels().size() > 1;
  }

  /** Whether this step's CPU was the client's own JVM's ({@code cpu jvm}), not its services'. */
  boolean chargesClient() {
    return measured != null && "jvm".equals(measured.cpuMeter());
  }
}
