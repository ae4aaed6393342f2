package io.pkibench.cli;

import io.pkibench.analysis.Analysis;
import io.pkibench.engine.IterationStarts;
import io.pkibench.engine.ProgressListener;
import io.pkibench.engine.SharedBoundaries;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.measure.CpuAffinity;
import io.pkibench.metrics.LiveMetrics;
import io.pkibench.metrics.MetricsExporter;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.PlanException;
import io.pkibench.plan.Segment;
import io.pkibench.report.HtmlReport;
import io.pkibench.results.AgentRecord;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.session.EnvironmentProbe;
import io.pkibench.session.ForkedSeries;
import io.pkibench.session.RunProfiler;
import io.pkibench.study.CpuSplit;
import io.pkibench.study.Study;
import io.pkibench.study.StudyAfterSteps;
import io.pkibench.study.StudyOptions;
import io.pkibench.study.StudyRunner;
import io.pkibench.study.StudySegment;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * What every study subcommand does: check everything, run the study, print its table, write report
 * and samples.
 */
abstract class StudySubcommand implements Callable<Integer> {
  /** The longest iteration of a {@code --smoke} run. */
  static final Duration SMOKE_ITERATION = Duration.ofMillis(500);

  @ParentCommand StudyCommand study;
  @Spec CommandSpec spec;
  @Mixin StudySharedOptions shared = new StudySharedOptions();
  @Mixin MetricsOptions liveMetrics = new MetricsOptions();
  @Mixin DashboardOptions dashboard = new DashboardOptions();

  abstract Study study();

  /**
   * The service an agent of a split study ({@code --segment}) compares its clock with, or null when
   * the study names none.
   */
  URI clockReference() {
    return null;
  }

  /**
   * Removes what the run made for itself and the user did not ask to keep; called however the run
   * ends.
   */
  void cleanUp(CliContext ctx) {}

  @Override
  public Integer call() throws Exception {
    try {
      int code;
      try {
        code = run(OutFlag.human(study.parent.context, shared.out));
      } finally {
        dashboard.stop(study.parent.context.err()::println); // after the end, or when it threw
        interrupt.release(); // the summary is printed: a signal's hook may let the JVM exit
      }
      OutFlag.copyIfStdout(study.parent.context, shared.out, savedTo);
      return code;
    } finally {
      cleanUp(study.parent.context);
    }
  }

  /** Where the study's result is written, once known; -o - copies it to stdout at the end. */
  private Path savedTo;

  /** Ctrl-C: the study stops, saves, and prints its summary before the JVM exits. */
  private final InterruptHook interrupt = new InterruptHook();

  private Integer run(CliContext ctx) throws Exception {
    Study chosen = study();
    FlagProblems problems = new FlagProblems();
    Duration each =
        shared.duration == null
            ? chosen.info().defaultDuration()
            : problems.duration("--duration", shared.duration, null);
    Duration grace = problems.duration("--hang-grace", shared.hangGrace, null);
    String keyProblem = KeySources.problem(shared.keys);
    if (keyProblem != null) problems.add(keyProblem);
    if (shared.pinFile != null) {
      problems.addAll(
          FileFlags.readable(
              "--pin-file",
              shared.pinFile,
              ctx.resolve(shared.pinFile),
              "the PKCS#11 PIN on its first line"));
    }
    if (shared.verifySample != null && shared.verifySample < 1)
      problems.add(
          "--verify-sample: "
              + shared.verifySample
              + " is below 1; give N to check one answer in N, e.g. --verify-sample 10 (default: every one)");
    if (OutFlag.file(ctx, shared.out) != null)
      problems.addAll(FileFlags.writable("--out", shared.out, ctx.resolve(shared.out)));
    if (shared.html != null)
      problems.addAll(FileFlags.writable("--html", shared.html, ctx.resolve(shared.html)));
    CpuSplit cpus = CpuSplit.shared();
    try {
      cpus = CpuSplit.parse(shared.serviceCpus, CpuAffinity.ofThisProcess());
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    Path pkiDir = ctx.pkiDir(shared.pki);
    StudyOptions asked =
        new StudyOptions(
            shared.quick || shared.smoke,
            each,
            shared.keys,
            pkiDir,
            shared.pinFile == null ? null : ctx.resolve(shared.pinFile),
            cpus);
    StudyOptions options =
        shared.smoke ? asked.withQuickIterationsOfAtMost(SMOKE_ITERATION) : asked;
    if (shared.agents != null && !shared.local)
      problems.add(
          "--agents "
              + shared.agents
              + ": a study starts only --local agents, e.g. --agents 4 --local");
    if (shared.local && shared.agents == null)
      problems.add("--local: say how many agents, e.g. --agents 4 --local");
    if (shared.agents != null
        && (shared.agents < 1 || shared.agents > AgentOptions.MAX_LOCAL_AGENTS)) {
      problems.add("--agents: give 1 to " + AgentOptions.MAX_LOCAL_AGENTS + " agents");
    }
    if (shared.agents != null && shared.profile)
      problems.add("--profile with --agents: the agents' JVMs are not profiled; leave one out");
    Segment segment = segment(problems, ctx);
    if (segment != null)
      cpus = CpuSplit.shared(); // no service here to give cores to: the agent has the machine
    liveMetrics.check(problems, false);
    dashboard.check(
        problems,
        shared.agents == null
            ? null
            : "--dashboard with --agents: the agents' figures do not reach this JVM; leave out one of them");
    if (liveMetrics.metrics != null && shared.agents != null) {
      problems.add(
          "--metrics with --agents: the agents measure in JVMs of their own, whose per-second figures do not reach this one; leave out one of them");
    }
    if (each != null)
      problems.addAll(chosen.problems(options)); // the study's own, in the same list
    problems.throwIfAny(spec.commandLine());
    // Each PKCS#11 token opened and logged in to once before any service starts: a wrong PIN is
    // bad input (exit 2), not a study whose every step fails.
    List<String> tokens = TokenCheck.problems(ctx, shared.keys, shared.pinFile);
    if (!tokens.isEmpty())
      throw new ParameterException(spec.commandLine(), String.join("\n", tokens));

    Path resultFile =
        ctx.resolve(
            OutFlag.file(ctx, shared.out) == null ? Path.of(chosen.name() + ".json") : shared.out);
    savedTo = resultFile;
    ConsoleProgress progress = new ConsoleProgress(ctx.err(), ctx.terminal(), false);
    RunProfiler profiler = shared.profile ? ProfileFlag.forStudy(resultFile, progress::line) : null;
    // --metrics: each step's levels pushed live, the step named in the workload label (its
    // interval tag, step.role/workload).
    LiveMetrics live = dashboard.listener(liveMetrics.listener());
    ProgressListener followers = MetricsOptions.with(progress, live);
    var opener = KeyOpeners.of(ctx, pkiDir, shared.pinFile, progress::line);
    // The services read the test PKI the study made; make it before any of them starts.
    TestPki pki = TestPki.openOrInit(pkiDir, ctx.clock(), progress::line);
    StudyRunner runner =
        new StudyRunner(
            WorkloadCatalog.builtIn(),
            new StudyRunner.Options(
                resultFile,
                ctx.clock(),
                profiler == null ? followers : profiler.watching(followers),
                progress::line,
                ctx.env(),
                profiler == null
                    ? ForkedSeries.thisJvm()
                    : ProfileFlag.serviceJava(ForkedSeries.thisJvm(), profiler),
                opener,
                () -> pki,
                grace,
                shared.verifySample == null ? 0 : shared.verifySample),
            shared.agents == null
                ? null
                : new StudyAgents(
                    ctx,
                    shared.agents,
                    resultFile,
                    pkiDir,
                    shared.pinFile == null ? null : ctx.resolve(shared.pinFile),
                    shared.hangGrace,
                    progress::line),
            segment == null ? null : agentShare(segment, ctx, pkiDir));
    String commandLine =
        "pkibench " + String.join(" ", spec.commandLine().getParseResult().originalArgs());

    progress.line("result file: " + resultFile);
    MetricsExporter exporter =
        liveMetrics.start(
            live,
            resultFile.getFileName().toString().replaceFirst("\\.json$", ""),
            ctx.clock(),
            runner.live().servicesCpu(),
            progress::line);
    // the services' CPU and the study's step and table, read from the runner as it goes
    dashboard.start(
        live,
        resultFile.getFileName().toString().replaceFirst("\\.json$", ""),
        ctx.clock(),
        runner.live().servicesCpu(),
        null,
        runner.live(),
        progress::line);
    var afterSteps =
        new StudyAfterSteps(
            new StudyAfterSteps.Outputs(
                resultFile,
                shared.html == null ? null : ctx.resolve(shared.html),
                shared.samples == null ? null : ctx.resolve(shared.samples)),
            new StudyAfterSteps.Pieces(profiler, exporter, pki, opener, shared.keys, ctx.clock()),
            ctx.out(),
            progress::line);
    StudyAfterSteps.Outcome outcome;
    try {
      outcome =
          afterSteps.run(
              chosen,
              // Ctrl-C: stop after the operations in flight, keep every finished level, stop the
              // services.
              () ->
                  interrupt.around(
                      runner::interrupt,
                      Duration.ofSeconds(30),
                      () ->
                          runner.run(
                              chosen,
                              options,
                              EnvironmentProbe.capture(
                                  commandLine, ctx.clock(), KeyOpeners.providersBeyondInstalled())),
                      saved -> InterruptHook.sayWhereSaved(ctx, resultFile, saved)),
              progress::done);
    } catch (PlanException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    dashboard.freeze(finalPage(resultFile));
    return switch (outcome) {
      case DONE -> ExitCodes.OK;
      case RUN_FAILED -> ExitCodes.RUN_FAILED;
      case CHECK_FAILED -> ExitCodes.CHECK_FAILED;
    };
  }

  /**
   * The page --html saved, or the same report made from the result file without --html; null when
   * neither can be read (the page then stays as it last was).
   */
  private String finalPage(Path resultFile) {
    try {
      if (shared.html != null && Files.isRegularFile(ctx().resolve(shared.html)))
        return Files.readString(ctx().resolve(shared.html));
      RunResult result = RunResultJson.read(resultFile);
      return HtmlReport.render(result, Analysis.of(result, Analysis.Options.DEFAULT));
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private CliContext ctx() {
    return study.parent.context;
  }

  /**
   * {@code --segment}'s share, or null without it; its problems (and those of the flags that go
   * with it) added to {@code problems}.
   */
  private Segment segment(FlagProblems problems, CliContext ctx) {
    Segment segment = null;
    if (shared.segment != null) {
      try {
        segment = Segment.parse(shared.segment);
      } catch (IllegalArgumentException e) {
        problems.add("--segment: " + e.getMessage());
      }
      if (shared.concurrency == null)
        problems.add(
            "--segment: give the level every agent splits, the same on each, e.g. --concurrency 16");
      if (shared.agents != null)
        problems.add(
            "--agents and --segment: --agents gives each local agent its segment; leave out --segment");
    } else {
      if (shared.concurrency != null)
        problems.add("--concurrency: only with --segment I/N (a study probes its own levels)");
      if (shared.startAt != null || shared.startIn != null)
        problems.add(
            "--start-at/--start-in: only with --segment I/N, to start the agents together");
    }
    if (shared.concurrency != null)
      problems.require(
          shared.concurrency >= 1, "--concurrency", shared.concurrency, "give 1 or more workers");
    problems.addAll(AgentOptions.startProblems(shared.startAt, shared.startIn, ctx.clock()));
    return segment;
  }

  /**
   * This agent's share of the study: its segment, the one timetable of every step, its record with
   * its host and clock.
   */
  private StudySegment agentShare(Segment segment, CliContext ctx, Path pkiDir) {
    Instant at = AgentOptions.startAt(shared.startAt, shared.startIn, ctx.clock());
    URI reference = clockReference();
    AgentRecord record =
        new AgentRecord(
            segment,
            AgentOptions.host(),
            at,
            AgentOptions.clockAgainst(
                reference, ctx.clock(), () -> AgentOptions.testPkiTrust(pkiDir)),
            null,
            null);
    return new StudySegment(
        segment,
        shared.concurrency,
        at == null ? IterationStarts.NOW : new SharedBoundaries(ctx.clock(), at),
        record);
  }
}
