package io.pkibench.plan;

import java.util.ArrayList;
import java.util.List;

/**
 * How stages sit in a plan: they replace the levels and the measured iterations (the stages, end to
 * end, are the one measured iteration), run once (a timeline is one run; repeat the run to repeat
 * it), and a warm-up, when asked for, holds the first stage's target before the stages start.
 */
final class StagedPlan {
  private StagedPlan() {}

  static List<String> problems(Plan plan, LoadModel.Staged staged) {
    List<String> problems = new ArrayList<>();
    Stages stages = staged.stages();
    if (stages.kind() == Stages.Kind.RATE) {
      problems.addAll(
          Plan.workerProblems(
              "--concurrency (with --stages of rates, the workers serving the timetable)",
              staged.workers(),
              plan.threads()));
    } else {
      problems.addAll(
          Plan.workerProblems(
              "--stages (its highest number of workers)", stages.maxWorkers(), plan.threads()));
      if (staged.workers() != stages.maxWorkers()) {
        problems.add(
            "--concurrency: with --stages of workers the stages give the worker counts; leave --concurrency out");
      }
    }
    if (plan.measure().count() != 1 || !plan.measure().each().equals(stages.total())) {
      problems.add(
          "--measure: with --stages the stages are the measurement ("
              + stages
              + "); leave --measure out");
    }
    if (plan.series() != 1)
      problems.add(
          "--series: a staged run is one timeline; leave --series out and repeat the run to repeat it");
    if (plan.warmup().upTo() > 0 && stages.stages().get(0).target() == 0) {
      problems.add(
          "--warmup: with --stages the warm-up holds the first stage's target, which is 0 here; leave --warmup out"
              + " (the first stages are the ramp) or start with a stage that has a target");
    }
    return problems;
  }
}
