package io.pkibench.study;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pkibench.analysis.Analysis;
import io.pkibench.engine.ProgressListener;
import io.pkibench.engine.SharedBoundaries;
import io.pkibench.measure.IntervalLog;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Durations;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.PlanException;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.report.StudyTables;
import io.pkibench.results.Environment;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.StudyRecord;
import io.pkibench.results.WorkloadResult;
import io.pkibench.session.ForkedSeries;
import io.pkibench.session.ResultFile;
import io.pkibench.session.RunSession;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs a study into one result file: checks every step's plan with the catalog's validator before
 * any service starts, starts the services (each its own JVM), runs each step (its probe, the level
 * the probe chose, the hooks around them) appending every workload to the one result and its one
 * interval log, runs the post-run checks with the services still up, and stops the services.
 */
public final class StudyRunner {
  /**
   * How a step the service has no counterpart for is recorded as not measured, before its reason.
   */
  public static final String NOT_APPLICABLE = "n/a — ";

  private final WorkloadCatalog catalog;
  private final Options options;

  /**
   * {@code --agents N --local}: who measures each step's chosen level; null: this JVM, as always.
   */
  private final StepAgents agents;

  /**
   * {@code study --segment I/N}: this process is one agent of a study run from several machines;
   * null: the whole study.
   */
  private final StudySegment segment;

  private volatile RunSession current;
  private volatile boolean interrupted;

  /**
   * Where the result goes, the clock, progress and log lines, the environment and java command the
   * services are started with, how keys are opened, the test PKI, and how long a hung operation is
   * waited for; {@code verifySample}: each step that checks answers checks one in that many ({@code
   * --verify-sample}; 0: every one).
   */
  public record Options(
      Path resultFile,
      InstantSource clock,
      ProgressListener progress,
      Consumer<String> log,
      Map<String, String> env,
      List<String> javaCommand,
      RunSession.KeyOpener keys,
      Supplier<TestPki> pki,
      Duration hangGrace,
      int verifySample) {

    /** Every answer checked. */
    public Options(
        Path resultFile,
        InstantSource clock,
        ProgressListener progress,
        Consumer<String> log,
        Map<String, String> env,
        List<String> javaCommand,
        RunSession.KeyOpener keys,
        Supplier<TestPki> pki,
        Duration hangGrace) {
      this(resultFile, clock, progress, log, env, javaCommand, keys, pki, hangGrace, 0);
    }
  }

  /** {@code plan} checking one answer in {@code --verify-sample}'s N, when it checks answers. */
  private Plan sampled(Plan plan) {
    // A step that samples of its own (its checks would weigh on the CPU it measures) keeps its
    // sample when --verify-sample asks for more checks.
    return plan.verify() && options.verifySample() > plan.verifySample()
        ? plan.toBuilder().verifySample(options.verifySample()).build()
        : plan;
  }

  /** The study as its live page reads it. */
  private final StudyLive live = new StudyLive();

  public StudyRunner(WorkloadCatalog catalog, Options options) {
    this(catalog, options, null);
  }

  /** The running study's step, result so far and services' CPU, for a live page. */
  public StudyLive live() {
    return live;
  }

  /**
   * {@code agents}: each step's measured level split over these load generators, merged (null:
   * measured here).
   */
  public StudyRunner(WorkloadCatalog catalog, Options options, StepAgents agents) {
    this(catalog, options, agents, null);
  }

  /**
   * {@code segment}: this process runs one agent's share of every step, at the level given, probing
   * nothing (null: the whole study).
   */
  public StudyRunner(
      WorkloadCatalog catalog, Options options, StepAgents agents, StudySegment segment) {
    this.catalog = catalog;
    this.options = options;
    this.agents = agents;
    this.segment = segment;
  }

  /**
   * Stops after the operations in flight; every finished level is kept and the services are
   * stopped.
   */
  public void interrupt() {
    interrupted = true;
    RunSession s = current;
    if (s != null) s.interrupt();
  }

  /** Throws {@link PlanException} with every problem before anything starts. */
  public RunResult run(Study study, StudyOptions studyOptions, Environment environment)
      throws IOException, InterruptedException {
    List<String> problems = new ArrayList<>(study.problems(studyOptions));
    if (!problems.isEmpty()) throw new PlanException(problems);
    CpuSplit cpus = studyOptions.cpus();
    try (RunningServices services =
            RunningServices.plan(
                study.services(studyOptions),
                options.javaCommand(),
                options.env(),
                options.log(),
                cpus);
        ClientPinning pinned = ClientPinning.to(cpus)) {
      List<Step> steps = study.steps(studyOptions, services);
      problems.addAll(StepProblems.of(catalog, steps));
      if (agents != null) problems.addAll(StepProblems.forAgents(study.name(), steps));
      if (segment != null)
        problems.addAll(
            StepProblems.forSegment(study.name(), steps, services.records().size(), segment));
      if (!problems.isEmpty()) throw new PlanException(problems);

      List<String> notes = new ArrayList<>(study.notes(studyOptions));
      notes.add(cpus.describe());
      if (agents != null) {
        notes.add(
            "each step's chosen level measured by "
                + agents.count()
                + " agent processes on this machine, each a segment of its workers on one"
                + " shared start, their results merged (counts and histograms summed); the probe ran in the study's own process; each agent read the"
                + " services' CPU by pid over the same intervals, counted once; warm-ups of a fixed count, at least "
                + Durations.format(AgentWarmup.AGENT_WARMUP)
                + " (agents cannot stop one when steady together)");
      }
      if (segment != null) {
        notes.add(
            "each step measured at "
                + segment.concurrency()
                + " workers given by --concurrency (no probe), split over "
                + segment.segment().count()
                + " agents (--segment), each its share of the workers against the one service, their results added up by 'pkibench merge';"
                + " warm-ups of a fixed count, at least "
                + Durations.format(AgentWarmup.AGENT_WARMUP)
                + " (agents cannot stop one when steady together)");
      }
      if (studyOptions.quick() && studyOptions.quickIterationCap() != null) {
        notes.add(
            "every quick iteration cut to at most "
                + Durations.format(studyOptions.quickIterationCap())
                + " (a test's smoke run: the steps and checks of --quick, figures rougher still)");
      }
      options.log().accept(cpus.describe());
      StudyRecord record =
          new StudyRecord(
              StudyRecord.SCHEMA,
              study.name(),
              study.info().title(),
              study.info().unit(),
              study.info().published(),
              services.records(),
              List.of(),
              List.of(),
              notes,
              study.grid(studyOptions));
      ObjectNode planJson = StudyPlanJson.of(study, studyOptions, steps);
      // The agents of one split study ran one plan: the level they were given is part of it, their
      // segment is not.
      if (segment != null) planJson.put("concurrency", segment.concurrency());
      try (ResultFile file = ResultFile.create(options.resultFile(), environment, planJson)) {
        file.update(r -> r.withStudy(record));
        live.begin(services, file);
        if (segment != null) file.update(r -> r.withAgent(segment.agent()));
        try {
          services.startAll();
        } catch (IOException e) {
          file.update(
              r ->
                  r.withStatus(RunStatus.FAILED)
                      .withStudy(
                          r.study()
                              .withNote("not run: " + e.getMessage())
                              .withServices(services.records())));
          throw e;
        }
        file.update(r -> r.withStudy(r.study().withServices(services.records())));
        boolean outOfResources = false;
        for (Step step : steps) {
          if (interrupted) break;
          live.step(steps.indexOf(step) + 1, steps.size(), step.label());
          runStep(file, step, services, studyOptions);
          file.update(r -> r.withStudy(r.study().withServices(services.records())));
          // This JVM ran out of memory or stack: the step saved why; later steps would only fail
          // anywhere next.
          if (current != null && current.ranOutOfResources()) {
            outOfResources = true;
            file.update(
                r ->
                    r.withStudy(
                        r.study()
                            .withNote(
                                "stopped after step '"
                                    + step.label()
                                    + "': this JVM ran out of memory or stack (the step says which)")));
            break;
          }
        }
        // What was measured is compared even when a step failed or the study was interrupted: a
        // missing step is said so.
        List<StudyRecord.SizingCheck> sizing = study.sizingChecks(file.current(), studyOptions);
        if (!sizing.isEmpty()) file.update(r -> r.withStudy(r.study().withSizingChecks(sizing)));
        for (String finding : study.findings(file.current(), studyOptions))
          file.update(r -> r.withStudy(r.study().withNote(finding)));
        StudyRecord.Grid seen = study.gridAfterSteps(file.current(), studyOptions);
        if (seen != null) file.update(r -> r.withStudy(r.study().withGrid(seen)));
        if (!interrupted && !outOfResources) {
          List<StudyRecord.CheckRecord> checks = new ArrayList<>();
          for (PostCheck check : study.checks(studyOptions))
            checks.add(runCheck(check, file.current(), services));
          file.update(r -> r.withStudy(r.study().withChecks(checks)));
        }
        if (segment != null
            && segment.starts() instanceof SharedBoundaries shared
            && shared.startAt() != null) {
          file.update(
              r ->
                  r.withAgent(
                      segment
                          .agent()
                          .withTimetable(
                              shared.startAt(), shared.lateStarts(), shared.latestMillis())));
        }
        RunStatus status =
            interrupted
                ? RunStatus.INTERRUPTED
                : outOfResources ? RunStatus.FAILED : RunStatus.COMPLETE;
        return file.update(
            r ->
                r.withStatus(status)
                    .withAnalysis(
                        RunResultJson.mapper()
                            .valueToTree(Analysis.of(r, Analysis.Options.DEFAULT))));
      }
    }
  }

  private void runStep(
      ResultFile file, Step step, RunningServices services, StudyOptions studyOptions)
      throws IOException, InterruptedException {
    List<String> hooks = new ArrayList<>();
    step.beforeStep().forEach(h -> hooks.add("before the step: " + h.describe()));
    step.beforeEachLevel().forEach(h -> hooks.add("before each level: " + h.describe()));
    StudyRecord.StepRecord record = new StudyRecord.StepRecord(step.label(), hooks);
    if (step.notApplicableBecause() != null) {
      notMeasured(file, record, NOT_APPLICABLE + step.notApplicableBecause());
      return;
    }
    for (StepHook hook : step.beforeStep()) {
      try {
        hook.run(services);
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        notMeasured(file, record, "'" + hook.describe() + "' failed: " + e.getMessage());
        return;
      }
    }
    Plan plan = sampled(step.plan());
    if (segment != null) {
      // One agent of several: the level is the coordinator's, the same for every agent; probing
      // here would choose this agent's own.
      if (step.probe() != null) {
        plan = Step.atConcurrency(plan, segment.concurrency());
        record =
            record.chose(
                segment.concurrency(),
                "given by --concurrency (each of "
                    + segment.segment().count()
                    + " agents its share)");
      }
      plan = AgentWarmup.fixed(plan);
    } else if (step.probe() != null) {
      // A step whose forks need JVM options this JVM lacks (the ssl study's legacy TLS) probes in
      // forks too.
      Optional<Integer> probeIndex =
          append(
              file,
              sampled(step.probe().plan()),
              step,
              services,
              WorkloadResult.Step.PROBE,
              step.forkJvmOptions().isEmpty() ? null : forks(studyOptions, step.forkJvmOptions()));
      if (probeIndex.isEmpty()) {
        notMeasured(file, record, "the study was interrupted");
        return;
      }
      record = record.probed(probeIndex.get());
      WorkloadResult probed = file.current().workloads().get(probeIndex.get());
      if (probed.levels().isEmpty()) {
        notMeasured(
            file,
            record,
            interrupted
                ? "the study was interrupted during the probe"
                : "the probe measured nothing"
                    + (probed.failure() == null ? "" : ": " + probed.failure()));
        return;
      }
      Step.LevelChooser.Choice choice = step.probe().chooser().choose(probed.levels());
      options
          .log()
          .accept(
              step.label() + ": " + choice.concurrency() + " workers (" + choice.because() + ")");
      record = record.chose(choice.concurrency(), choice.because());
      plan = Step.atConcurrency(plan, choice.concurrency());
    } else if (step.levelOf() != null) {
      Optional<Step.LevelChooser.Choice> level = MeasuredLevels.of(file.current(), step.levelOf());
      if (level.isEmpty()) {
        notMeasured(
            file,
            record,
            "it is measured at the level of step '" + step.levelOf() + "', which was not measured");
        return;
      }
      record = record.chose(level.get().concurrency(), level.get().because());
      plan = Step.atConcurrency(plan, level.get().concurrency());
    }
    Optional<Integer> measured;
    try {
      measured =
          agents != null
              ? byAgents(file, plan, step, services)
              : append(
                  file,
                  plan,
                  step,
                  services,
                  WorkloadResult.Step.MEASURE,
                  step.forked() ? forks(studyOptions, step.forkJvmOptions()) : null);
    } catch (StepAgents.Failed e) {
      // Kept as the step's failed workload too: the study's exit code says a step could not run.
      WorkloadSpec w = plan.workloads().get(0);
      int index = file.current().workloads().size();
      String cpu = plan.cpu();
      file.update(
          r ->
              r.withWorkload(
                  index,
                  WorkloadResult.builder(w.name())
                      .params(w.params())
                      .keys(w.keys())
                      .cpuMeter(cpu)
                      .failure(e.getMessage())
                      .step(new WorkloadResult.Step(step.label(), WorkloadResult.Step.MEASURE))
                      .build()));
      notMeasured(file, record, e.getMessage());
      return;
    }
    if (measured.isEmpty()) {
      notMeasured(file, record, "the study was interrupted");
      return;
    }
    record(file, record.measured(measured.get()));
    StudyTables.panel(
            step.label(),
            file.current().workloads().get(measured.get()),
            file.current().study().unit())
        .lines()
        .forEach(options.log());
  }

  /**
   * The step's chosen level measured by the agents, their merged workload appended as this step's
   * measure: the services' CPU read by each agent over the same shared intervals and counted once
   * by the merge, and each level's utilisation recomputed against the services' cores (the merge
   * knows only the host's). A level of fewer workers than agents is split over as many agents as it
   * has workers. Empty when interrupted.
   */
  private Optional<Integer> byAgents(
      ResultFile file, Plan plan, Step step, RunningServices services)
      throws IOException, InterruptedException {
    if (interrupted) return Optional.empty();
    int workers = ((LoadModel.Closed) plan.load()).concurrency().get(0);
    int used = Math.min(agents.count(), workers);
    if (used < agents.count())
      options
          .log()
          .accept(
              step.label()
                  + ": "
                  + workers
                  + " workers, so "
                  + used
                  + " of the "
                  + agents.count()
                  + " agents");
    Plan split = AgentWarmup.fixed(plan);
    String cpu = services.cpuMeter(plan.cpu()).describe();
    RunResult merged =
        agents.measure(step.label().replaceAll("[^A-Za-z0-9-]+", "_"), split, used, cpu);
    int cores = services.serviceCores();
    WorkloadResult one = merged.workloads().get(0);
    WorkloadResult recounted =
        WorkloadResult.builder(one.name())
            .params(one.params())
            .keys(one.keys())
            .cpuMeter(one.cpuMeter())
            .levels(
                one.levels().stream()
                    .map(
                        l ->
                            LevelResult.of(
                                l.concurrency(), null, l.iterations(), l.cpu().meter(), cores))
                    .toList())
            .failure(one.failure())
            .step(new WorkloadResult.Step(step.label(), WorkloadResult.Step.MEASURE))
            .build();
    int index = file.current().workloads().size();
    file.update(r -> r.withWorkload(index, recounted));
    return Optional.of(index);
  }

  /**
   * Runs {@code plan}'s one workload into the file as this step's {@code role}; empty when an
   * interrupt came first.
   */
  private Optional<Integer> append(
      ResultFile file,
      Plan plan,
      Step step,
      RunningServices services,
      String role,
      Function<IntervalLog, ForkedSeries> forks)
      throws IOException, InterruptedException {
    return session(plan, step, services, forks)
        .appendTo(file, new WorkloadResult.Step(step.label(), role))
        .stream()
        .findFirst();
  }

  private void notMeasured(ResultFile file, StudyRecord.StepRecord record, String why)
      throws IOException {
    options.log().accept(record.label() + ": not measured: " + why);
    record(file, record.notMeasured(why));
  }

  private static void record(ResultFile file, StudyRecord.StepRecord record) throws IOException {
    file.update(r -> r.withStudy(r.study().withStep(record)));
  }

  /**
   * Fresh JVMs of this program for a forked step's series: told the study's test PKI and PIN file
   * (never the PIN), writing their scratch files beside the result, and started on the client's
   * cores (they inherit this JVM's).
   */
  private Function<IntervalLog, ForkedSeries> forks(
      StudyOptions studyOptions, List<String> jvmOptions) {
    List<String> java = new ArrayList<>(options.javaCommand().subList(0, 1));
    java.addAll(jvmOptions);
    java.addAll(options.javaCommand().subList(1, options.javaCommand().size()));
    List<String> childOptions = new ArrayList<>(List.of("--pki", studyOptions.pkiDir().toString()));
    if (studyOptions.pinFile() != null)
      childOptions.addAll(List.of("--pin-file", studyOptions.pinFile().toString()));
    Path scratch = options.resultFile().toAbsolutePath().getParent();
    return hlog ->
        new ForkedSeries(java, childOptions, options.env(), scratch, hlog, options.log());
  }

  private RunSession session(
      Plan plan, Step step, RunningServices services, Function<IntervalLog, ForkedSeries> forks) {
    RunSession.BeforeLevel beforeLevel =
        step.beforeEachLevel().isEmpty()
            ? RunSession.BeforeLevel.NONE
            : workers -> {
              for (StepHook hook : step.beforeEachLevel()) hook.run(services);
            };
    RunSession session =
        new RunSession(
            plan,
            catalog,
            options.keys(),
            new RunSession.Options(
                services.cpuMeter(plan.cpu()),
                options.clock(),
                options.progress(),
                options.log(),
                options.hangGrace(),
                forks,
                result -> Analysis.of(result, Analysis.Options.DEFAULT),
                options.pki(),
                beforeLevel,
                options.env()));
    if (segment != null)
      session.asAgent(
          segment.segment(), segment.starts(), null); // the agent's record is the study file's
    current = session;
    if (interrupted) session.interrupt();
    return session;
  }

  private StudyRecord.CheckRecord runCheck(
      PostCheck check, RunResult result, RunningServices services) throws InterruptedException {
    PostCheck.Outcome outcome;
    try {
      outcome = check.check(result, services);
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      outcome =
          PostCheck.Outcome.fail(
              "the check itself failed: "
                  + (e.getMessage() == null ? e.toString() : e.getMessage()));
    }
    options
        .log()
        .accept(
            "check "
                + check.name()
                + ": "
                + (outcome.passed() ? "passed" : "FAILED")
                + " — "
                + outcome.detail());
    return new StudyRecord.CheckRecord(check.name(), outcome.passed(), outcome.detail());
  }
}
