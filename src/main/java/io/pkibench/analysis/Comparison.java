package io.pkibench.analysis;

import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.Throughput;
import io.pkibench.results.WorkloadResult;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A new run against a base run, per workload and level, noise-aware: each metric's 99.9% interval
 * over the measured iterations of both runs; a change whose intervals overlap is reported as noise,
 * never as a regression. A threshold fails only on a change beyond its limit and outside the noise.
 */
public record Comparison(String schema, List<Row> rows, List<String> unmatched, List<Threshold> thresholds, boolean passed) {
  public static final String SCHEMA = "pkibench.compare/1";

  /** {@code verdict}: "noise", "better", "worse", or "FAIL" (worse beyond a threshold). */
  public record Row(String workload, double load, Metric metric, double base, double current, double deltaPercent,
      Boolean overlap, Threshold threshold, String verdict) {}

  public static Comparison of(RunResult base, RunResult current, List<Threshold> thresholds) {
    Set<Metric> metrics = new LinkedHashSet<>(List.of(Metric.THROUGHPUT, Metric.P99));
    for (Threshold t : thresholds) metrics.add(t.metric());
    List<Row> rows = new ArrayList<>();
    List<String> unmatched = new ArrayList<>();
    for (WorkloadResult b : base.workloads()) {
      WorkloadResult c = current.workloads().stream().filter(w -> key(w).equals(key(b))).findFirst().orElse(null);
      if (c == null) {
        unmatched.add(key(b) + ": only in the base run");
        continue;
      }
      for (LevelResult bl : b.levels()) {
        LevelResult cl = c.levels().stream().filter(l -> l.load() == bl.load()).findFirst().orElse(null);
        if (cl == null) {
          unmatched.add(key(b) + " at " + bl.load() + ": only in the base run");
          continue;
        }
        for (Metric m : metrics) {
          Double bv = m.of(bl), cv = m.of(cl);
          if (bv == null || cv == null || bv == 0) continue;
          Threshold t = thresholds.stream().filter(x -> x.metric() == m).findFirst().orElse(null);
          rows.add(row(key(b), bl.load(), m, bl, cl, bv, cv, t));
        }
      }
    }
    for (WorkloadResult c : current.workloads()) {
      if (base.workloads().stream().noneMatch(w -> key(w).equals(key(c)))) unmatched.add(key(c) + ": only in the new run");
    }
    boolean passed = rows.stream().noneMatch(r -> r.verdict().equals("FAIL"));
    return new Comparison(SCHEMA, rows, unmatched, List.copyOf(thresholds), passed);
  }

  private static Row row(String workload, double load, Metric m, LevelResult bl, LevelResult cl, double bv, double cv, Threshold t) {
    double delta = (cv - bv) / bv * 100;
    Throughput bi = Throughput.of(m.perIteration(bl));
    Throughput ci = Throughput.of(m.perIteration(cl));
    Boolean overlap = bi.ci999() == null || ci.ci999() == null ? null
        : bi.mean() - bi.ci999() <= ci.mean() + ci.ci999() && ci.mean() - ci.ci999() <= bi.mean() + bi.ci999();
    boolean worse = m.higherIsBetter() ? cv < bv : cv > bv;
    String verdict;
    if (Boolean.TRUE.equals(overlap)) verdict = "noise";
    else verdict = delta == 0 ? "noise" : worse ? "worse" : "better";
    if (t != null && !t.holds(delta) && !Boolean.TRUE.equals(overlap)) verdict = "FAIL";
    return new Row(workload, load, m, bv, cv, delta, overlap, t, verdict);
  }

  /** What matches a workload across two runs; a study's entries by step (their targets' ports change from run to run). */
  static String key(WorkloadResult w) {
    if (w.step() != null) return w.step().label() + " (" + w.step().role() + ", " + w.name() + ") @" + w.keys();
    return Analysis.label(w.name(), w.params()) + " @" + w.keys();
  }
}
