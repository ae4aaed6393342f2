package io.pkibench.analysis;

import io.pkibench.plan.LoadModel;
import io.pkibench.plan.MixSpec;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.Counts;
import io.pkibench.results.LatencyNanos;
import io.pkibench.results.LevelResult;
import io.pkibench.results.MemberLevel;
import io.pkibench.results.RunResult;
import io.pkibench.results.ThresholdVerdict;
import io.pkibench.results.Timeline;
import io.pkibench.results.WorkloadResult;
import io.pkibench.workload.api.Suggestions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A run's thresholds ({@code run --threshold}), checked after the run on its final result. As in
 * k6, a threshold holds over everything it covers: an unscoped one must hold for every workload the
 * run measured (a mix as a whole) at every level measured, each level's figure being the one the
 * run's table prints for it, i.e. from the sum of the level's measured iterations (latency
 * percentiles of their merged histogram, errors as failed over started, the mean throughput,
 * successes per CPU-second); a staged run is one level, its stages together, as k6 sees a test. A
 * scoped one ({@code sign.p99<5ms}) covers that workload or mix member, a stage-scoped one ({@code
 * stage2.p99<20ms}) the stage's own summary. Each level and stage gives its own verdict, so a sweep
 * shows where the limit broke.
 */
public record RunThresholds(List<RunThreshold> thresholds) {
  public static final String FLAG = "--threshold";

  public RunThresholds {
    thresholds = List.copyOf(thresholds);
  }

  public static RunThresholds none() {
    return new RunThresholds(List.of());
  }

  public boolean isEmpty() {
    return thresholds.isEmpty();
  }

  /**
   * Reads every expression, each bad one's problem added to {@code problems} (all reported at
   * once).
   */
  public static RunThresholds parse(List<String> written, List<String> problems) {
    List<RunThreshold> parsed = new ArrayList<>();
    for (String text : written) {
      try {
        parsed.add(RunThreshold.parse(FLAG, text));
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    return new RunThresholds(parsed);
  }

  /**
   * What the plan cannot give a figure for: an unknown workload or member, a stage it does not
   * have, a member's CPU or stage.
   */
  public List<String> problems(Plan plan) {
    List<String> problems = new ArrayList<>();
    Set<String> workloads = new LinkedHashSet<>();
    Set<String> members = new LinkedHashSet<>();
    for (WorkloadSpec w : plan.workloads()) {
      workloads.add(w.name());
      if (w.mix() != null) {
        for (MixSpec.Member m : w.mix().members()) {
          members.add(m.label());
          members.add(m.name());
        }
      }
    }
    Integer stages =
        plan.load() instanceof LoadModel.Staged staged ? staged.stages().stages().size() : null;
    for (RunThreshold t : thresholds) {
      String at = FLAG + " " + t.text() + ": ";
      boolean member =
          t.scope() != null && !workloads.contains(t.scope()) && members.contains(t.scope());
      if (t.scope() != null && !workloads.contains(t.scope()) && !members.contains(t.scope())) {
        List<String> known = new ArrayList<>(workloads);
        known.addAll(members);
        problems.add(
            at
                + "'"
                + t.scope()
                + "' is no workload or mix member of this run"
                + Suggestions.didYouMean(t.scope(), known)
                + " (it runs "
                + String.join(", ", known)
                + "); write one of them before the metric, or leave the scope out to limit every workload");
      }
      if (t.stage() != null && stages == null) {
        problems.add(
            at
                + "stage"
                + t.stage()
                + ": only a run with --stages has stages; leave 'stage"
                + t.stage()
                + ".' out to limit each level");
      } else if (t.stage() != null && t.stage() > stages) {
        problems.add(
            at
                + "stage"
                + t.stage()
                + ": the run has "
                + stages
                + " stage"
                + (stages == 1 ? "" : "s")
                + " (--stages); stages count from 1");
      }
      if (member && t.figure() == RunThreshold.Figure.CPU) {
        problems.add(
            at
                + "a mix member has no CPU of its own (one process serves every member at once); limit the mix's: write "
                + t.text().substring(t.scope().length() + 1));
      }
      if (member && t.stage() != null) {
        problems.add(
            at
                + "a mix member has no per-stage figures (its counts are kept per iteration, not per second); limit the mix's stage"
                + " (stage"
                + t.stage()
                + "."
                + t.figure().name
                + ") or the member over the run ("
                + t.scope()
                + "."
                + t.figure().name
                + ")");
      }
    }
    return problems;
  }

  /**
   * Every threshold checked on {@code result}: one verdict per level (or stage, or member's level)
   * it covers.
   */
  public List<ThresholdVerdict> evaluate(RunResult result) {
    List<ThresholdVerdict> verdicts = new ArrayList<>();
    for (RunThreshold t : thresholds) {
      int before = verdicts.size();
      for (WorkloadResult w : result.workloads()) {
        if (w.probe()) continue; // a study's probe chose the level; it is not a figure of the run
        if (t.scope() == null || w.name().equals(t.scope())) {
          if (w.levels().isEmpty())
            verdicts.add(
                missing(
                    t,
                    w,
                    null,
                    null,
                    "no level finished" + (w.failure() == null ? "" : ": " + w.failure())));
          for (LevelResult l : w.levels())
            verdicts.add(t.stage() == null ? check(t, w, l, null, Figures.of(l)) : stage(t, w, l));
        } else if (w.mix() != null) {
          for (MixSpec.Member m : w.mix().members()) {
            if (!m.label().equals(t.scope()) && !m.name().equals(t.scope())) continue;
            if (w.levels().isEmpty())
              verdicts.add(
                  missing(
                      t,
                      w,
                      null,
                      m.label(),
                      "no level finished" + (w.failure() == null ? "" : ": " + w.failure())));
            for (LevelResult l : w.levels()) {
              MemberLevel share =
                  l.members().stream()
                      .filter(x -> x.label().equals(m.label()))
                      .findFirst()
                      .orElse(null);
              verdicts.add(
                  share == null
                      ? missing(t, w, l, m.label(), "the member drew no operation")
                      : check(t, w, l, m.label(), Figures.of(share)));
            }
          }
        }
      }
      if (verdicts.size() == before) {
        verdicts.add(
            new ThresholdVerdict(
                t.text(),
                t.scope() == null ? "" : t.scope(),
                "",
                null,
                null,
                t.stage(),
                t.figure().name,
                null,
                t.limit(),
                t.figure().unit,
                false,
                "the result has no workload"
                    + (t.scope() == null ? "" : " or member '" + t.scope() + "'")));
      }
    }
    return verdicts;
  }

  /** True when every verdict passed (and there is at least one threshold). */
  public static boolean allPassed(List<ThresholdVerdict> verdicts) {
    return verdicts.stream().allMatch(ThresholdVerdict::passed);
  }

  private static ThresholdVerdict stage(RunThreshold t, WorkloadResult w, LevelResult l) {
    Timeline timeline = l.timeline();
    if (timeline == null || timeline.perStage().size() < t.stage())
      return missing(t, w, l, null, "the level has no stage " + t.stage());
    Timeline.StageSummary s = timeline.perStage().get(t.stage() - 1);
    return check(
        t,
        w,
        l,
        null,
        new Figures(s.counts(), s.achievedPerSecond(), s.latencyNanos(), s.opsPerCpuSecond()));
  }

  private static ThresholdVerdict check(
      RunThreshold t, WorkloadResult w, LevelResult l, String member, Figures f) {
    Double observed = null;
    String why = null;
    switch (t.figure()) {
      case ERRORS -> {
        if (f.counts().started() == 0) why = "no operation started";
        else observed = f.counts().failed() * 100.0 / f.counts().started();
      }
      case THROUGHPUT -> observed = f.throughput();
      case CPU -> {
        observed = f.opsPerCpuSecond();
        if (observed == null) why = "no CPU was measured";
      }
      default -> {
        if (f.latency() == null || f.latency().count() == 0) {
          why = "no operation succeeded, so there is no latency";
        } else {
          observed =
              (double)
                  switch (t.figure()) {
                    case P50 -> f.latency().p50();
                    case P90 -> f.latency().p90();
                    case P99 -> f.latency().p99();
                    case P999 -> f.latency().p999();
                    case MAX -> f.latency().max();
                    default -> Math.round(f.latency().mean());
                  };
        }
      }
    }
    boolean passed = observed != null && t.holds(observed);
    return new ThresholdVerdict(
        t.text(),
        w.name(),
        w.keys(),
        level(l),
        member,
        t.stage(),
        t.figure().name,
        observed,
        t.limit(),
        t.figure().unit,
        passed,
        why);
  }

  private static ThresholdVerdict missing(
      RunThreshold t, WorkloadResult w, LevelResult l, String member, String why) {
    return new ThresholdVerdict(
        t.text(),
        w.name(),
        w.keys(),
        l == null ? null : level(l),
        member,
        t.stage(),
        t.figure().name,
        null,
        t.limit(),
        t.figure().unit,
        false,
        why);
  }

  /** The level as its load reads: {@code 4 workers}, {@code 400/s}, or {@code stages}. */
  private static String level(LevelResult l) {
    if (l.timeline() != null) return "stages";
    if (l.openLoop() != null) return TrimmedNumber.of(l.openLoop().targetRate(), 2) + "/s";
    return l.concurrency() + (l.concurrency() == 1 ? " worker" : " workers");
  }

  /** The figures a threshold reads, from a level, a member's share of one, or a stage. */
  private record Figures(
      Counts counts, double throughput, LatencyNanos latency, Double opsPerCpuSecond) {
    static Figures of(LevelResult l) {
      return new Figures(
          l.counts(),
          l.throughput().mean(),
          l.latencyNanos(),
          l.cpu() == null ? null : l.cpu().opsPerCpuSecond());
    }

    static Figures of(MemberLevel m) {
      return new Figures(m.counts(), m.throughput().mean(), m.latencyNanos(), null);
    }
  }
}
