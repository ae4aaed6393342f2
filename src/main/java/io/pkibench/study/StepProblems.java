package io.pkibench.study;

import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What is wrong with a study's steps, found before any of them runs ({@link StudyRunner} reports
 * every problem at once): the steps themselves, and whether they can be spread over agents ({@code
 * --agents}) or run as one agent of several ({@code --segment}).
 */
final class StepProblems {
  private StepProblems() {}

  /**
   * Every step's problems, named by step: each measures one workload, labels are unique, plans pass
   * the catalog's checks.
   */
  static List<String> of(WorkloadCatalog catalog, List<Step> steps) {
    List<String> problems = new ArrayList<>();
    Set<String> labels = new HashSet<>();
    if (steps.isEmpty()) problems.add("the study has no step to run");
    for (Step step : steps) {
      if (!labels.add(step.label()))
        problems.add(
            "step '"
                + step.label()
                + "' appears twice; step labels name the study's rows and must differ");
      if (step.plan() == null) continue; // not applicable: nothing to run
      List<Plan> plans =
          step.probe() == null ? List.of(step.plan()) : List.of(step.probe().plan(), step.plan());
      for (Plan plan : plans) {
        if (plan.workloads().size() != 1)
          problems.add(
              "step '"
                  + step.label()
                  + "': a step measures one workload, not "
                  + plan.workloads().size());
        for (String p : catalog.problems(plan)) problems.add("step '" + step.label() + "': " + p);
      }
    }
    return problems.stream().distinct().toList();
  }

  /**
   * Why a step cannot be split over agents: only one http workload against a service's URL, run in
   * this JVM's way (not forked, not a mix), can be given to separate {@code run} processes that
   * reach the one set of services by that URL.
   */
  static List<String> forAgents(String study, List<Step> steps) {
    List<String> problems = new ArrayList<>();
    for (Step step : steps) {
      if (step.plan() == null || step.plan().workloads().size() != 1) continue;
      WorkloadSpec w = step.plan().workloads().get(0);
      String why =
          w.mix() != null
              ? "it measures a mix, which an agent's command line cannot carry; leave out --mix"
              : !w.params().containsKey(ParamSpec.TARGET)
                  ? "its workload "
                      + w.name()
                      + " calls no service by URL (the agents reach the study's services"
                      + " only over the network); only http workloads against the services the study starts can be split, as in study restpki"
                  : step.forked() || !step.beforeEachLevel().isEmpty()
                      ? "it forks its series or restarts services before each level"
                      : !(step.plan().load() instanceof LoadModel.Closed)
                          ? "it is not a closed-loop level"
                          : null;
      if (why != null)
        problems.add(
            "--agents: study "
                + study
                + " cannot spread step '"
                + step.label()
                + "' over agents: "
                + why);
    }
    return problems.stream().distinct().toList();
  }

  /**
   * Why this study cannot be run as one agent of several ({@code --segment}): it would start
   * services here (an agent measures a service running elsewhere), a step calls no service by URL,
   * forks, restarts services or is not closed-loop, or the level given cannot be split so many
   * ways.
   */
  static List<String> forSegment(
      String study, List<Step> steps, int servicesStarted, StudySegment segment) {
    List<String> problems = new ArrayList<>();
    if (servicesStarted > 0) {
      problems.add(
          "--segment: study "
              + study
              + " would start its services here; an agent measures a service running elsewhere: give its URL,"
              + " e.g. --target https://signer:8443");
    }
    for (Step step : steps) {
      if (step.plan() == null || step.plan().workloads().size() != 1) continue;
      WorkloadSpec w = step.plan().workloads().get(0);
      String why =
          w.mix() == null && !w.params().containsKey(ParamSpec.TARGET)
              ? "its workload " + w.name() + " calls no service by URL"
              : step.forked() || !step.beforeEachLevel().isEmpty() || !step.beforeStep().isEmpty()
                  ? "it forks its series or restarts services"
                  : !(step.plan().load() instanceof LoadModel.Closed)
                      ? "it is not a closed-loop level"
                      : null;
      if (why != null)
        problems.add(
            "--segment: study "
                + study
                + " cannot spread step '"
                + step.label()
                + "' over agents: "
                + why);
    }
    problems.addAll(
        segment.segment().problems(new LoadModel.Closed(List.of(segment.concurrency()))).stream()
            .map(
                p ->
                    p.replace(
                        "the level of ",
                        "--concurrency " + segment.concurrency() + ": the level of "))
            .toList());
    return problems.stream().distinct().toList();
  }
}
