package io.pkibench.analysis;

import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A new run against a base run, per workload, level and metric, by a two-sample test on the
 * measured iterations: {@link ChangeInterval} (Welch's t) gives the interval of the change at the
 * stated confidence, and each row ends in one of three outcomes — a change beyond the noise ({@code
 * better}, {@code worse}, or {@code FAIL} when worse beyond a threshold), no change beyond the
 * noise ({@code same}), or {@code inconclusive}: the interval spans both no change and a change of
 * the threshold's size, with how many iterations a side would tell them apart.
 *
 * <p>Workloads are matched by {@link WorkloadIdentity} (a study's step by its label, key-server
 * nodes by order and weight, services by name), never by the ports a run happened to get. A
 * workload or level in one run only is listed in {@code unmatched} and makes the comparison
 * incomplete ({@code complete} false): a change there cannot be seen, so a gate must not pass on
 * it.
 */
public record Comparison(
    String schema,
    double confidence,
    List<Row> rows,
    List<String> unmatched,
    List<Threshold> thresholds,
    boolean passed,
    boolean conclusive,
    boolean complete) {
  public static final String SCHEMA = "pkibench.compare/2";

  /**
   * Per row: one row in a hundred would report a change that is not there; a CI gate compares tens
   * of rows.
   */
  public static final double DEFAULT_CONFIDENCE = 0.99;

  /**
   * The size of change a row without a threshold is asked about: its interval must rule out ±5% to
   * be called {@code same}; wider, it is {@code inconclusive} rather than a claim of no change.
   */
  public static final double UNTHRESHOLDED_SIZE_PERCENT = 5;

  public enum Verdict {
    better,
    worse,
    same,
    inconclusive,
    FAIL
  }

  /**
   * One metric at one level: both means, the change in percent of the base and its interval ({@code
   * changeLowPercent}..{@code changeHighPercent}, null with fewer than two iterations a side), the
   * iterations each side measured and, when inconclusive, how many a side would tell ({@code
   * iterationsNeeded}, null when no count would: too few to estimate, or a limit of 0%).
   */
  public record Row(
      String workload,
      double load,
      Metric metric,
      double base,
      double current,
      double deltaPercent,
      Double changeLowPercent,
      Double changeHighPercent,
      int baseIterations,
      int newIterations,
      Threshold threshold,
      Verdict verdict,
      Integer iterationsNeeded) {}

  public static Comparison of(RunResult base, RunResult current, List<Threshold> thresholds) {
    return of(base, current, thresholds, DEFAULT_CONFIDENCE);
  }

  public static Comparison of(
      RunResult base, RunResult current, List<Threshold> thresholds, double confidence) {
    if (!(confidence > 0.5 && confidence < 1))
      throw new IllegalArgumentException(
          "confidence must lie between 0.5 and 1, got " + confidence);
    Set<Metric> metrics = new LinkedHashSet<>(List.of(Metric.THROUGHPUT, Metric.P99));
    for (Threshold t : thresholds) metrics.add(t.metric());
    List<Row> rows = new ArrayList<>();
    List<String> unmatched = new ArrayList<>();
    for (WorkloadResult b : base.workloads()) {
      String key = key(base, b);
      WorkloadResult c =
          current.workloads().stream()
              .filter(w -> key(current, w).equals(key))
              .findFirst()
              .orElse(null);
      if (c == null) {
        unmatched.add(key + ": only in the base run");
        continue;
      }
      for (LevelResult bl : b.levels()) {
        LevelResult cl = c.levels().stream().filter(l -> sameLevel(l, bl)).findFirst().orElse(null);
        if (cl == null) {
          unmatched.add(
              key
                  + " at "
                  + TrimmedNumber.of(bl.load(), 4)
                  + ": only in the base run"
                  + otherLevels("new", c));
          continue;
        }
        for (Metric m : metrics) {
          Double bv = m.of(bl), cv = m.of(cl);
          if (bv == null || cv == null || bv == 0) continue;
          Threshold t = thresholds.stream().filter(x -> x.metric() == m).findFirst().orElse(null);
          rows.add(
              row(
                  key,
                  bl.load(),
                  m,
                  bv,
                  cv,
                  m.perIteration(bl),
                  m.perIteration(cl),
                  t,
                  confidence));
        }
        stageRows(key, bl, cl, metrics, thresholds, confidence, rows, unmatched);
      }
      for (LevelResult cl : c.levels()) {
        if (b.levels().stream().noneMatch(l -> sameLevel(l, cl))) {
          unmatched.add(
              key
                  + " at "
                  + TrimmedNumber.of(cl.load(), 4)
                  + ": only in the new run"
                  + otherLevels("base", b));
        }
      }
    }
    for (WorkloadResult c : current.workloads()) {
      String key = key(current, c);
      if (base.workloads().stream().noneMatch(w -> key(base, w).equals(key)))
        unmatched.add(key + ": only in the new run");
    }
    boolean passed = rows.stream().noneMatch(r -> r.verdict() == Verdict.FAIL);
    boolean conclusive =
        rows.stream().noneMatch(r -> r.threshold() != null && r.verdict() == Verdict.inconclusive);
    return new Comparison(
        SCHEMA,
        confidence,
        rows,
        unmatched,
        List.copyOf(thresholds),
        passed,
        conclusive,
        unmatched.isEmpty());
  }

  /**
   * Levels at the same load, or two staged levels (a workload has one): their stages are then
   * matched one by one.
   */
  private static boolean sameLevel(LevelResult a, LevelResult b) {
    return a.load() == b.load() || (a.timeline() != null && b.timeline() != null);
  }

  /** What marks a row of one stage: its workload reads {@code KEY · stage N (→ TARGET)}. */
  public static final String STAGE = " · stage ";

  /**
   * Staged levels stage by stage, matched by index and target ({@code stage 2 (→ 400/s)}): a row
   * per metric whose samples are the stage's seconds; a stage in one run only is unmatched, as a
   * level is.
   */
  private static void stageRows(
      String key,
      LevelResult bl,
      LevelResult cl,
      Set<Metric> metrics,
      List<Threshold> thresholds,
      double confidence,
      List<Row> rows,
      List<String> unmatched) {
    if (bl.timeline() == null && cl.timeline() == null) return;
    if (bl.timeline() == null || cl.timeline() == null) {
      unmatched.add(
          key
              + " at "
              + TrimmedNumber.of(bl.load(), 4)
              + ": stages in the "
              + (bl.timeline() == null ? "new" : "base")
              + " run only");
      return;
    }
    var baseStages = bl.timeline().perStage();
    var newStages = cl.timeline().perStage();
    for (var bs : baseStages) {
      var cs =
          newStages.stream().filter(s -> s.label().equals(bs.label())).findFirst().orElse(null);
      if (cs == null) {
        unmatched.add(
            key
                + " · "
                + bs.label()
                + ": only in the base run (the new run's stages: "
                + cl.timeline().stages()
                + ")");
        continue;
      }
      for (Metric m : metrics) {
        Double bv = StageMetrics.of(m, bs), cv = StageMetrics.of(m, cs);
        if (bv == null || cv == null || bv == 0) continue;
        Threshold t = thresholds.stream().filter(x -> x.metric() == m).findFirst().orElse(null);
        rows.add(
            row(
                key + " · " + bs.label(),
                bl.load(),
                m,
                bv,
                cv,
                StageMetrics.perSecond(m, bl.timeline(), bs.stage()),
                StageMetrics.perSecond(m, cl.timeline(), cs.stage()),
                t,
                confidence));
      }
    }
    for (var cs : newStages) {
      if (baseStages.stream().noneMatch(s -> s.label().equals(cs.label()))) {
        unmatched.add(
            key
                + " · "
                + cs.label()
                + ": only in the new run (the base run's stages: "
                + bl.timeline().stages()
                + ")");
      }
    }
  }

  private static Row row(
      String workload,
      double load,
      Metric m,
      double bv,
      double cv,
      double[] baseSamples,
      double[] newSamples,
      Threshold t,
      double confidence) {
    double delta = (cv - bv) / bv * 100;
    ChangeInterval change = ChangeInterval.welch(baseSamples, newSamples, confidence);
    // Worsening in percent: positive is worse whichever way the metric is better.
    double sign = m.higherIsBetter() ? -1 : 1;
    double sizePercent = t != null ? Math.abs(t.allowedPercent()) : UNTHRESHOLDED_SIZE_PERCENT;
    Verdict verdict;
    Integer needed = null;
    if (change == null) {
      verdict = delta == 0 && t == null ? Verdict.same : Verdict.inconclusive;
    } else {
      double worseLow = Math.min(sign * change.lowPercent(), sign * change.highPercent());
      double worseHigh = Math.max(sign * change.lowPercent(), sign * change.highPercent());
      if (worseLow > 0) verdict = t != null && !t.holds(delta) ? Verdict.FAIL : Verdict.worse;
      else if (worseHigh < 0) verdict = Verdict.better;
      else if (worseHigh < sizePercent && (t != null || worseLow > -sizePercent))
        verdict = Verdict.same;
      else verdict = Verdict.inconclusive;
      if (verdict == Verdict.inconclusive) needed = change.iterationsToResolve(sizePercent);
    }
    return new Row(
        workload,
        load,
        m,
        bv,
        cv,
        delta,
        change == null ? null : change.lowPercent(),
        change == null ? null : change.highPercent(),
        baseSamples.length,
        newSamples.length,
        t,
        verdict,
        needed);
  }

  /** What matches a workload across two runs: its role, not its ports. */
  static String key(RunResult run, WorkloadResult w) {
    return WorkloadIdentity.of(run, w).text();
  }

  /**
   * Where the other run measured the same workload instead, e.g. a probe that chose another level.
   */
  private static String otherLevels(String run, WorkloadResult other) {
    return " (the "
        + run
        + " run measured it at "
        + String.join(
            ", ", other.levels().stream().map(l -> TrimmedNumber.of(l.load(), 4)).toList())
        + ")";
  }
}
