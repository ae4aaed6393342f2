package io.pkibench.study;

import io.pkibench.results.RunResult;
import java.util.List;
import java.util.function.Predicate;

/**
 * A study with only the steps {@code keep} takes (a fault test runs the fault step alone: the other
 * steps are another test's), everything else its own: services, checks, notes, findings.
 */
record StepsOnly(Study study, Predicate<Step> keep) implements Study {
  @Override
  public StudyInfo info() {
    return study.info();
  }

  @Override
  public List<String> problems(StudyOptions options) {
    return study.problems(options);
  }

  @Override
  public List<ServiceSpec> services(StudyOptions options) {
    return study.services(options);
  }

  @Override
  public List<Step> steps(StudyOptions options, RunningServices services) {
    return study.steps(options, services).stream().filter(keep).toList();
  }

  @Override
  public List<PostCheck> checks(StudyOptions options) {
    return study.checks(options);
  }

  @Override
  public List<String> notes(StudyOptions options) {
    return study.notes(options);
  }

  @Override
  public List<String> findings(RunResult result, StudyOptions options) {
    return study.findings(result, options);
  }
}
