package io.pkibench.analysis;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Everything pkibench concludes from a result file: per workload a USL fit, a plain-language
 * verdict and its CPU capacity, plus the relative CPU cost of each workload against a baseline (as
 * IBM's table normalises to plain TCP). Computed from the file alone, so it can always be
 * recomputed.
 */
public record Analysis(
    String schema, List<WorkloadAnalysis> workloads, String baseline, List<CostRow> relativeCost) {
  /**
   * /2 adds the sizing's range (coresLow, coresHigh, iterations, pastMeasured) and a sweep's
   * selfCheck; verdict sentences reworded.
   */
  public static final String SCHEMA = "pkibench.analysis/2";

  /**
   * {@code selfCheck}: the sweep's lower-half fit set beside its upper half (closed-loop sweeps of
   * 6 steady levels or more), else absent.
   */
  public record WorkloadAnalysis(
      String name,
      Map<String, String> params,
      String keys,
      UslFit usl,
      ScalingVerdict verdict,
      Capacity capacity,
      @JsonInclude(JsonInclude.Include.NON_NULL) UslSelfCheck selfCheck) {
    public String label() {
      return Analysis.label(name, params);
    }
  }

  /** CPU time per operation at the workload's operating point, and that over the baseline's. */
  public record CostRow(String workload, Double cpuMicrosPerOp, Double relative) {}

  /** {@code targetRate} (ops/s) may be null; {@code baseline} null = the first workload. */
  public record Options(Double targetRate, double maxUtilisation, String baseline) {
    public static final Options DEFAULT = new Options(null, 0.7, null);
  }

  public static Analysis of(RunResult result, Options options) {
    List<WorkloadAnalysis> workloads = new ArrayList<>();
    for (WorkloadResult w : result.workloads()) {
      List<LevelPoint> points = LevelPoint.of(w.levels());
      // A level whose warm-up never settled measured the JIT as much as the service: shown,
      // flagged, not fitted.
      List<LevelPoint> steady = steadyPoints(w);
      boolean open = w.levels().stream().anyMatch(l -> l.openLoop() != null);
      // The USL models throughput over concurrency; an open-loop sweep varies the rate instead.
      List<String> leftOut = new ArrayList<>();
      for (var level : w.levels()) {
        Steadiness.neverSteadied(level)
            .ifPresent(
                why ->
                    leftOut.add(
                        (open ? "rate " : "concurrency ")
                            + TrimmedNumber.of(level.load(), 1)
                            + " ("
                            + why
                            + ")"));
      }
      UslFit.Attempt usl = open ? new UslFit.Attempt(null, null) : UslFit.attempt(steady);
      String noFitBecause = usl.noFitBecause();
      if (usl.fit() == null && steady.size() < 3 && points.size() >= 3) {
        noFitBecause =
            "it needs at least 3 steady levels; "
                + steady.size()
                + " of the "
                + points.size()
                + " measured were steady";
      }
      workloads.add(
          new WorkloadAnalysis(
              w.name(),
              w.params(),
              w.keys(),
              usl.fit(),
              ScalingVerdict.of(steady, usl.fit(), noFitBecause, leftOut, open),
              Capacity.of(points, w.levels(), options.targetRate(), options.maxUtilisation(), open),
              open ? null : UslSelfCheck.of(steady)));
    }
    WorkloadAnalysis base =
        workloads.stream()
            .filter(
                w ->
                    options.baseline() == null
                        || w.name().equals(options.baseline())
                        || w.label().equals(options.baseline()))
            .findFirst()
            .orElse(null);
    if (options.baseline() != null && base == null) {
      throw new IllegalArgumentException(
          "--baseline "
              + options.baseline()
              + ": no such workload in this result; it has "
              + workloads.stream().map(WorkloadAnalysis::label).collect(Collectors.joining(", ")));
    }
    Double baseCost = base == null ? null : microsPerOp(base);
    List<CostRow> costs = new ArrayList<>();
    for (WorkloadAnalysis w : workloads) {
      Double cost = microsPerOp(w);
      // The same workload through several key sources (a shoot-out): the source tells the rows
      // apart.
      boolean shared = workloads.stream().filter(o -> o.label().equals(w.label())).count() > 1;
      costs.add(
          new CostRow(
              shared ? w.label() + " · " + w.keys() : w.label(),
              cost,
              cost == null || baseCost == null || baseCost == 0 ? null : cost / baseCost));
    }
    return new Analysis(SCHEMA, workloads, base == null ? null : base.label(), costs);
  }

  /**
   * A workload's levels as every fit takes them: sorted by load, without those whose warm-up never
   * settled.
   */
  public static List<LevelPoint> steadyPoints(WorkloadResult w) {
    return LevelPoint.of(
        w.levels().stream().filter(l -> Steadiness.neverSteadied(l).isEmpty()).toList());
  }

  private static Double microsPerOp(WorkloadAnalysis w) {
    Double perCpu = w.capacity().opsPerCpuSecond();
    return perCpu == null || perCpu == 0 ? null : 1e6 / perCpu;
  }

  public static String label(String name, Map<String, String> params) {
    // Empty values (an unset optional parameter such as file=) say nothing, so they are left out.
    String shown =
        params.entrySet().stream()
            .filter(e -> !e.getValue().isEmpty())
            .sorted(Map.Entry.comparingByKey())
            .map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining(" "));
    return shown.isEmpty() ? name : name + " " + shown;
  }
}
