package io.pkibench.study;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pkibench.plan.Durations;
import io.pkibench.results.RunResultJson;
import java.util.List;

/** A study's plan as its result file records it, before anything runs. */
final class StudyPlanJson {
  private StudyPlanJson() {}

  /**
   * The result's plan block: the study, its options (no secret is among them) and every step's
   * plans and hooks.
   */
  static ObjectNode of(Study study, StudyOptions o, List<Step> steps) {
    var mapper = RunResultJson.mapper();
    ObjectNode plan = mapper.createObjectNode();
    plan.put("study", study.name());
    plan.put("quick", o.quick());
    plan.put("duration", Durations.format(o.duration()));
    if (o.quickIterationCap() != null)
      plan.put("quickIterationCap", Durations.format(o.quickIterationCap()));
    plan.put("keys", o.keys());
    ArrayNode list = plan.putArray("steps");
    for (Step s : steps) {
      ObjectNode node = list.addObject();
      node.put("label", s.label());
      if (s.plan() == null) {
        node.put("notApplicable", s.notApplicableBecause());
        continue;
      }
      if (s.probe() != null) node.set("probe", mapper.valueToTree(s.probe().plan()));
      node.set("plan", mapper.valueToTree(s.plan()));
      if (s.probe() != null) node.put("measures", "the one concurrency the probe chooses");
      if (s.levelOf() != null)
        node.put("measures", "the level step '" + s.levelOf() + "' was measured at");
      if (s.forked()) node.put("forked", "each series in a fresh JVM");
      node.set(
          "beforeStep",
          mapper.valueToTree(s.beforeStep().stream().map(StepHook::describe).toList()));
      node.set(
          "beforeEachLevel",
          mapper.valueToTree(s.beforeEachLevel().stream().map(StepHook::describe).toList()));
    }
    return plan;
  }
}
