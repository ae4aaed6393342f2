package io.pkibench.results;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The one source of truth of a run: every table, CSV and report is computed from it. Written after
 * every level, so a killed run keeps what it measured. {@code status} is {@code running} until the
 * run ends ({@code complete}, {@code failed}, {@code interrupted}).
 */
public record RunResult(
    String schema, Environment environment, JsonNode plan, RunStatus status, List<WorkloadResult> workloads, JsonNode analysis,
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) StudyRecord study,
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL) MetricsExport metrics) {
  /** What this version writes: /2 adds optional fields only (a staged level's timeline, a run's metrics export), absent when unused. */
  public static final String SCHEMA = "pkibench.run/2";
  /** What this version reads: every schema whose files it reads back exactly. */
  public static final List<String> READS = List.of("pkibench.run/1", SCHEMA);

  public RunResult {
    workloads = List.copyOf(workloads);
  }

  public RunResult(String schema, Environment environment, JsonNode plan, RunStatus status, List<WorkloadResult> workloads, JsonNode analysis) {
    this(schema, environment, plan, status, workloads, analysis, null);
  }

  public RunResult(
      String schema, Environment environment, JsonNode plan, RunStatus status, List<WorkloadResult> workloads, JsonNode analysis, StudyRecord study) {
    this(schema, environment, plan, status, workloads, analysis, study, null);
  }

  public static RunResult start(Environment environment, JsonNode plan) {
    return new RunResult(SCHEMA, environment, plan, RunStatus.RUNNING, List.of(), null, null, null);
  }

  /** {@code study}: set on a study's result (absent from a plain run's file). */
  public RunResult withStudy(StudyRecord newStudy) {
    return new RunResult(schema, environment, plan, status, workloads, analysis, newStudy, metrics);
  }

  public RunResult withStatus(RunStatus newStatus) {
    return new RunResult(schema, environment, plan, newStatus, workloads, analysis, study, metrics);
  }

  /** {@code analysis}: the scaling and capacity conclusions (pkibench.analysis/1), recomputable from the levels. */
  public RunResult withAnalysis(JsonNode newAnalysis) {
    return new RunResult(schema, environment, plan, status, workloads, newAnalysis, study, metrics);
  }

  /** {@code metrics}: how the live metrics reached their receiver ({@code run --metrics}; absent without it). */
  public RunResult withMetrics(MetricsExport newMetrics) {
    return new RunResult(schema, environment, plan, status, workloads, analysis, study, newMetrics);
  }

  /** Replaces the entry of the same index, or appends when {@code index == workloads().size()}. */
  public RunResult withWorkload(int index, WorkloadResult workload) {
    List<WorkloadResult> list = new ArrayList<>(workloads);
    if (index == list.size()) list.add(workload);
    else list.set(index, workload);
    return new RunResult(schema, environment, plan, status, list, analysis, study, metrics);
  }
}
