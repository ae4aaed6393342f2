package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The one source of truth of a run: every table, CSV and report is computed from it. Written after
 * every level, so a killed run keeps what it measured. {@code status} is {@code running} until the
 * run ends ({@code complete}, {@code failed}, {@code interrupted}).
 */
public record RunResult(
    String schema,
    Environment environment,
    JsonNode plan,
    RunStatus status,
    List<WorkloadResult> workloads,
    JsonNode analysis,
    @JsonInclude(JsonInclude.Include.NON_NULL) StudyRecord study,
    @JsonInclude(JsonInclude.Include.NON_NULL) MetricsExport metrics,
    @JsonInclude(JsonInclude.Include.NON_NULL) AgentRecord agent,
    @JsonInclude(JsonInclude.Include.NON_NULL) MergeRecord merge,
    @JsonInclude(JsonInclude.Include.NON_NULL) List<ThresholdVerdict> thresholds) {
  /**
   * What this version writes: /2 adds optional fields only (a staged level's timeline, a mix's
   * members, a run's metrics export, an agent's segment, a merge's agents, a run's threshold
   * verdicts), absent when unused; a file of /1 reads as one of /2 without them.
   */
  public static final String SCHEMA = "pkibench.run/2";

  /** What this version reads: every schema whose files it reads back exactly. */
  public static final List<String> READS = List.of("pkibench.run/1", SCHEMA);

  public RunResult {
    workloads = List.copyOf(workloads);
    thresholds = thresholds == null ? null : List.copyOf(thresholds);
  }

  public RunResult(
      String schema,
      Environment environment,
      JsonNode plan,
      RunStatus status,
      List<WorkloadResult> workloads,
      JsonNode analysis,
      StudyRecord study,
      MetricsExport metrics,
      AgentRecord agent,
      MergeRecord merge) {
    this(
        schema, environment, plan, status, workloads, analysis, study, metrics, agent, merge, null);
  }

  public RunResult(
      String schema,
      Environment environment,
      JsonNode plan,
      RunStatus status,
      List<WorkloadResult> workloads,
      JsonNode analysis) {
    this(schema, environment, plan, status, workloads, analysis, null);
  }

  public RunResult(
      String schema,
      Environment environment,
      JsonNode plan,
      RunStatus status,
      List<WorkloadResult> workloads,
      JsonNode analysis,
      StudyRecord study) {
    this(schema, environment, plan, status, workloads, analysis, study, null, null, null);
  }

  public static RunResult start(Environment environment, JsonNode plan) {
    return new RunResult(
        SCHEMA, environment, plan, RunStatus.RUNNING, List.of(), null, null, null, null, null);
  }

  /** {@code study}: set on a study's result (absent from a plain run's file). */
  public RunResult withStudy(StudyRecord newStudy) {
    return new RunResult(
        schema,
        environment,
        plan,
        status,
        workloads,
        analysis,
        newStudy,
        metrics,
        agent,
        merge,
        thresholds);
  }

  public RunResult withStatus(RunStatus newStatus) {
    return new RunResult(
        schema,
        environment,
        plan,
        newStatus,
        workloads,
        analysis,
        study,
        metrics,
        agent,
        merge,
        thresholds);
  }

  /**
   * {@code analysis}: the scaling and capacity conclusions (pkibench.analysis/2), recomputable from
   * the levels.
   */
  public RunResult withAnalysis(JsonNode newAnalysis) {
    return new RunResult(
        schema,
        environment,
        plan,
        status,
        workloads,
        newAnalysis,
        study,
        metrics,
        agent,
        merge,
        thresholds);
  }

  /**
   * {@code metrics}: how the live metrics reached their receiver ({@code run --metrics}; absent
   * without it).
   */
  public RunResult withMetrics(MetricsExport newMetrics) {
    return new RunResult(
        schema,
        environment,
        plan,
        status,
        workloads,
        analysis,
        study,
        newMetrics,
        agent,
        merge,
        thresholds);
  }

  /** {@code agent}: set on the result of one agent of a split plan ({@code --segment}). */
  public RunResult withAgent(AgentRecord newAgent) {
    return new RunResult(
        schema,
        environment,
        plan,
        status,
        workloads,
        analysis,
        study,
        metrics,
        newAgent,
        merge,
        thresholds);
  }

  /** {@code merge}: set on a result merged from several agents' ({@code pkibench merge}). */
  public RunResult withMerge(MergeRecord newMerge) {
    return new RunResult(
        schema,
        environment,
        plan,
        status,
        workloads,
        analysis,
        study,
        metrics,
        agent,
        newMerge,
        thresholds);
  }

  /**
   * {@code thresholds}: the verdicts of {@code run --threshold}, one per figure checked (absent
   * without a threshold).
   */
  public RunResult withThresholds(List<ThresholdVerdict> verdicts) {
    return new RunResult(
        schema,
        environment,
        plan,
        status,
        workloads,
        analysis,
        study,
        metrics,
        agent,
        merge,
        verdicts);
  }

  /** Replaces the entry of the same index, or appends when {@code index == workloads().size()}. */
  public RunResult withWorkload(int index, WorkloadResult workload) {
    List<WorkloadResult> list = new ArrayList<>(workloads);
    if (index == list.size()) list.add(workload);
    else list.set(index, workload);
    return new RunResult(
        schema,
        environment,
        plan,
        status,
        list,
        analysis,
        study,
        metrics,
        agent,
        merge,
        thresholds);
  }
}
