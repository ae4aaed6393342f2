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
   * verdicts), absent when unused; a file of /1 reads as one of /2 without them. /3 adds a level's
   * and an iteration's {@code verified} (answers checked against what was sent, and passed), absent
   * when nothing was checked: a file of /1 or /2 reads as one whose answers were not checked.
   */
  public static final String SCHEMA = "pkibench.run/3";

  /** What this version reads: every schema whose files it reads back exactly. */
  public static final List<String> READS = List.of("pkibench.run/1", "pkibench.run/2", SCHEMA);

  public RunResult {
    workloads = List.copyOf(workloads);
    thresholds = thresholds == null ? null : List.copyOf(thresholds);
  }

  public static RunResult start(Environment environment, JsonNode plan) {
    return builder()
        .schema(SCHEMA)
        .environment(environment)
        .plan(plan)
        .status(RunStatus.RUNNING)
        .build();
  }

  /** {@code study}: set on a study's result (absent from a plain run's file). */
  public RunResult withStudy(StudyRecord newStudy) {
    return toBuilder().study(newStudy).build();
  }

  public RunResult withStatus(RunStatus newStatus) {
    return toBuilder().status(newStatus).build();
  }

  /**
   * {@code analysis}: the scaling and capacity conclusions (pkibench.analysis/2), recomputable from
   * the levels.
   */
  public RunResult withAnalysis(JsonNode newAnalysis) {
    return toBuilder().analysis(newAnalysis).build();
  }

  /**
   * {@code metrics}: how the live metrics reached their receiver ({@code run --metrics}; absent
   * without it).
   */
  public RunResult withMetrics(MetricsExport newMetrics) {
    return toBuilder().metrics(newMetrics).build();
  }

  /** {@code agent}: set on the result of one agent of a split plan ({@code --segment}). */
  public RunResult withAgent(AgentRecord newAgent) {
    return toBuilder().agent(newAgent).build();
  }

  /** {@code merge}: set on a result merged from several agents' ({@code pkibench merge}). */
  public RunResult withMerge(MergeRecord newMerge) {
    return toBuilder().merge(newMerge).build();
  }

  /**
   * {@code thresholds}: the verdicts of {@code run --threshold}, one per figure checked (absent
   * without a threshold).
   */
  public RunResult withThresholds(List<ThresholdVerdict> verdicts) {
    return toBuilder().thresholds(verdicts).build();
  }

  /** Replaces the entry of the same index, or appends when {@code index == workloads().size()}. */
  public RunResult withWorkload(int index, WorkloadResult workload) {
    List<WorkloadResult> list = new ArrayList<>(workloads);
    if (index == list.size()) list.add(workload);
    else list.set(index, workload);
    return toBuilder().workloads(list).build();
  }

  /** A result built by naming its components: those not named are absent (no workloads). */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this result's components, to change some of them. */
  public Builder toBuilder() {
    return new Builder()
        .schema(schema)
        .environment(environment)
        .plan(plan)
        .status(status)
        .workloads(workloads)
        .analysis(analysis)
        .study(study)
        .metrics(metrics)
        .agent(agent)
        .merge(merge)
        .thresholds(thresholds);
  }

  /**
   * Names the components of a {@link RunResult}; {@link #build()} checks them as the record does.
   */
  public static final class Builder {
    private String schema;
    private Environment environment;
    private JsonNode plan;
    private RunStatus status;
    private List<WorkloadResult> workloads = List.of();
    private JsonNode analysis;
    private StudyRecord study;
    private MetricsExport metrics;
    private AgentRecord agent;
    private MergeRecord merge;
    private List<ThresholdVerdict> thresholds;

    private Builder() {}

    public Builder schema(String schema) {
      this.schema = schema;
      return this;
    }

    public Builder environment(Environment environment) {
      this.environment = environment;
      return this;
    }

    public Builder plan(JsonNode plan) {
      this.plan = plan;
      return this;
    }

    public Builder status(RunStatus status) {
      this.status = status;
      return this;
    }

    public Builder workloads(List<WorkloadResult> workloads) {
      this.workloads = workloads;
      return this;
    }

    public Builder analysis(JsonNode analysis) {
      this.analysis = analysis;
      return this;
    }

    public Builder study(StudyRecord study) {
      this.study = study;
      return this;
    }

    public Builder metrics(MetricsExport metrics) {
      this.metrics = metrics;
      return this;
    }

    public Builder agent(AgentRecord agent) {
      this.agent = agent;
      return this;
    }

    public Builder merge(MergeRecord merge) {
      this.merge = merge;
      return this;
    }

    public Builder thresholds(List<ThresholdVerdict> thresholds) {
      this.thresholds = thresholds;
      return this;
    }

    public RunResult build() {
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
          thresholds);
    }
  }
}
