package io.pkibench.study;

import io.pkibench.plan.Plan;
import io.pkibench.results.LevelResult;
import java.util.ArrayList;
import java.util.List;

/**
 * One step of a study: a label (the original's name for it, e.g. "CAdES"), the plan it measures, an
 * optional probe whose levels choose the measured level (both kept in the result), hooks run before
 * the step and before each of its levels (restarting services), and whether each series of its plan
 * runs in a fresh JVM ({@code forked}, as JMH forks: JIT profile and heap start afresh), with
 * {@code forkJvmOptions} (then its probe is forked too: options such as security properties hold
 * for the whole step); or, for a row with nothing to measure, why ({@code notApplicableBecause});
 * or, instead of a probe, the step whose chosen level it measures at ({@code levelOf}, e.g. a type
 * measured again under a CPU limit, at the level it was sized at).
 */
public record Step(
    String label,
    Plan plan,
    Probe probe,
    List<StepHook> beforeStep,
    List<StepHook> beforeEachLevel,
    boolean forked,
    String notApplicableBecause,
    List<String> forkJvmOptions,
    String levelOf) {

  public Step {
    beforeStep = List.copyOf(beforeStep);
    beforeEachLevel = List.copyOf(beforeEachLevel);
    forkJvmOptions = List.copyOf(forkJvmOptions);
    if ((plan == null) != (notApplicableBecause != null))
      throw new IllegalArgumentException(label + ": a step has a plan, or says why it has none");
    if (probe != null && levelOf != null)
      throw new IllegalArgumentException(
          label + ": a step's level comes from its probe or from another step, not both");
  }

  public Step(
      String label,
      Plan plan,
      Probe probe,
      List<StepHook> beforeStep,
      List<StepHook> beforeEachLevel,
      boolean forked,
      String notApplicableBecause,
      List<String> forkJvmOptions) {
    this(
        label,
        plan,
        probe,
        beforeStep,
        beforeEachLevel,
        forked,
        notApplicableBecause,
        forkJvmOptions,
        null);
  }

  public Step(
      String label,
      Plan plan,
      Probe probe,
      List<StepHook> beforeStep,
      List<StepHook> beforeEachLevel) {
    this(label, plan, probe, beforeStep, beforeEachLevel, false, null, List.of());
  }

  public Step(
      String label,
      Plan plan,
      Probe probe,
      List<StepHook> beforeStep,
      List<StepHook> beforeEachLevel,
      boolean forked,
      String notApplicableBecause) {
    this(label, plan, probe, beforeStep, beforeEachLevel, forked, notApplicableBecause, List.of());
  }

  /**
   * A row the study's table keeps though nothing can be measured there: the service has no
   * counterpart of this transaction (DSS has no certificate login). Recorded as not measured, with
   * {@code why}.
   */
  public static Step notApplicable(String label, String why) {
    return new Step(label, null, null, List.of(), List.of(), false, why);
  }

  public static Step of(String label, Plan plan) {
    return new Step(label, plan, null, List.of(), List.of(), false, null);
  }

  /**
   * A sweep run first; {@code chooser} picks from its levels the one concurrency the step's plan
   * then measures.
   */
  public record Probe(Plan plan, LevelChooser chooser) {}

  /** Picks the level to measure from a probe's levels, and says why (recorded in the result). */
  @FunctionalInterface
  public interface LevelChooser {
    Choice choose(List<LevelResult> probed);

    record Choice(int concurrency, String because) {}
  }

  public Step probedBy(Plan probePlan, LevelChooser chooser) {
    return new Step(
        label,
        plan,
        new Probe(probePlan, chooser),
        beforeStep,
        beforeEachLevel,
        forked,
        notApplicableBecause,
        forkJvmOptions);
  }

  public Step before(StepHook hook) {
    List<StepHook> list = new ArrayList<>(beforeStep);
    list.add(hook);
    return new Step(
        label,
        plan,
        probe,
        list,
        beforeEachLevel,
        forked,
        notApplicableBecause,
        forkJvmOptions,
        levelOf);
  }

  public Step beforeEachLevel(StepHook hook) {
    List<StepHook> list = new ArrayList<>(beforeEachLevel);
    list.add(hook);
    return new Step(
        label,
        plan,
        probe,
        beforeStep,
        list,
        forked,
        notApplicableBecause,
        forkJvmOptions,
        levelOf);
  }

  /**
   * Each series of the measured plan in a fresh JVM of this program, as JMH forks (the probe, if
   * any, stays in this JVM).
   */
  public Step inForks() {
    return new Step(
        label,
        plan,
        probe,
        beforeStep,
        beforeEachLevel,
        true,
        notApplicableBecause,
        forkJvmOptions,
        levelOf);
  }

  /**
   * Probe and every series in fresh JVMs started with {@code jvmOptions} (e.g. {@code
   * -Djava.security.properties=FILE}): what the step's client needs and this JVM must not get.
   */
  public Step inForksWith(List<String> jvmOptions) {
    return new Step(
        label,
        plan,
        probe,
        beforeStep,
        beforeEachLevel,
        true,
        notApplicableBecause,
        jvmOptions,
        levelOf);
  }

  /**
   * Measured at the level step {@code label} (run before it) chose, or of a sweep its peak's,
   * probing nothing itself.
   */
  public Step atLevelOf(String label) {
    return new Step(
        this.label,
        plan,
        null,
        beforeStep,
        beforeEachLevel,
        forked,
        notApplicableBecause,
        forkJvmOptions,
        label);
  }

  /**
   * The step's plan measuring only {@code concurrency} workers: what a probe's choice turns it
   * into.
   */
  static Plan atConcurrency(Plan plan, int concurrency) {
    return plan.toBuilder().concurrency(List.of(concurrency)).build();
  }
}
