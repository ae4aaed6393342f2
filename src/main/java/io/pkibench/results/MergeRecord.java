package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.pkibench.plan.Segment;
import java.util.List;

/**
 * How a merged result was made ({@code pkibench merge}): each agent's file and its own section (its
 * segment, host, clock and figures per level, as it measured them), and the shares that are absent
 * ({@code --allow-missing}), each saying which segment and where. Absent from every other file.
 */
public record MergeRecord(
    int agents,
    List<AgentSection> sections,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<String> absent) {
  public MergeRecord {
    sections = List.copyOf(sections);
    absent = absent == null ? List.of() : List.copyOf(absent);
  }

  /** One agent's result file as it was merged. */
  public record AgentSection(
      String file, Segment segment, AgentRecord agent, RunStatus status, List<AgentLevel> levels) {
    public AgentSection {
      levels = List.copyOf(levels);
    }
  }

  /**
   * One level of one workload as this agent measured it: its share of the workers (or rate) and its
   * figures.
   */
  public record AgentLevel(
      int workload,
      String name,
      int concurrency,
      @JsonInclude(JsonInclude.Include.NON_NULL) Double targetRate,
      Counts counts,
      double throughputOpsPerSecond,
      LatencyNanos latencyNanos,
      Cpu cpu) {}
}
