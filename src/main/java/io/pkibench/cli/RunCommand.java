package io.pkibench.cli;

import io.pkibench.analysis.Analysis;
import io.pkibench.analysis.RunThresholds;
import io.pkibench.engine.ProgressListener;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.IntervalLog;
import io.pkibench.metrics.LiveMetrics;
import io.pkibench.metrics.MetricsExporter;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Durations;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.MixSpec;
import io.pkibench.plan.Plan;
import io.pkibench.plan.ThreadKind;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.report.HtmlReport;
import io.pkibench.report.TerminalTable;
import io.pkibench.results.CpuProfile;
import io.pkibench.results.Environment;
import io.pkibench.results.MetricsExport;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.ThresholdVerdict;
import io.pkibench.session.EnvironmentProbe;
import io.pkibench.session.ForkedSeries;
import io.pkibench.session.ResultFile;
import io.pkibench.session.RunProfiler;
import io.pkibench.session.RunSession;
import io.pkibench.study.ProfileSummary;
import io.pkibench.text.OutsideText;
import io.pkibench.workload.api.SocketBudget;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "Runs workloads at each concurrency level and writes the result file after every level."
    },
    footer = {
      "",
      "Examples:",
      "  pkibench run sign -p alg=rsa2048 --concurrency 1..8 --warmup 2x5s --measure 5x5s --out run.json",
      "  PKIBENCH_PKCS11_PIN=... pkibench run sign -p alg=ecdsa-p256 --keys pkcs11:softhsm.cfg --concurrency 1,2,4",
      "  pkibench run noop --concurrency 1,2 --warmup 1x1s --measure 3x1s",
      "  pkibench run http:cades --target https://127.0.0.1:8443 --concurrency 1..32   # against 'pkibench serve signer'",
      "  pkibench run sign -p alg=ecdsa-p256 --rates 1000,2000,4000 --concurrency 8   # open loop",
      "  pkibench run sign -p alg=ecdsa-p256 --stages 10s:400/s,30s:400/s,10s:0/s -o staged.json   # ramp up, hold, ramp down",
      "  pkibench report staged.json --html staged.html   # its time series per second, the stages marked",
      "  pkibench run sign -p alg=ecdsa-p256 --rates 400 --metrics prometheus-rw=http://127.0.0.1:9090/api/v1/write   # live, into Prometheus",
      "  pkibench run sign -p alg=ecdsa-p256 --rates 400 --metrics otlp=http://127.0.0.1:4318   # live, OpenTelemetry OTLP/HTTP",
      "  pkibench run --mix sign=7,verify=3 -p alg=ecdsa-p256 --rates 400 -o mix.json   # one traffic mix: 70%% sign, 30%% verify",
      "  pkibench run --scenario mix.yaml --rates 800   # the file's options (members, param, rates, measure...), --rates overriding it",
      "  pkibench run sign -p alg=ecdsa-p256 --concurrency 2 --profile --html run.html   # where the CPU went: top frames, .jfr kept",
      "  pkibench run http:cades --target https://signer:8443 --concurrency 64 --segment 2/4 --start-at 2026-12-01T10:00:00Z -o seg2.json"
          + "   # agent 2 of 4 ('pkibench merge' adds them up)",
      "  pkibench run sign -p alg=ecdsa-p256 --concurrency 8 --segment 1/2 --start-at $(date -u -d '+1 min' +%%FT%%TZ) -o seg1.json",
      "  pkibench run tsp --target http://127.0.0.1:18318/tsa --concurrency 8 --agents 4 --local -o all.json   # 4 agents here ('pkibench serve tsa'), merged",
      "  pkibench run tls-handshake --target tls://HOST:PORT -p client=tls-client -p identities=per-worker --concurrency 64   # one client certificate per worker",
      "  pkibench run sign -p alg=ecdsa-p256 --rates 400 --threshold 'p99<5ms' --threshold 'errors<1%%' --threshold 'throughput>=390/s'"
          + "   # pass/fail limits, k6-style: exit code 3 when one fails",
      "  pkibench run tls-rr --target tls://HOST:PORT -p identities=my-clients/ --concurrency 8   # worker i presents the i-th PEM pair (tls-hold, https-*, http:* too)",
      "  pkibench run http:auth --target https://127.0.0.1:8443 -p identities=per-worker --concurrency 16   # each worker logs in as itself",
      "  pkibench run sign --keys remote:127.0.0.1:9443,identities=per-worker --concurrency 16   # each worker its own client of the key server",
      "",
      "Exit codes: 0 done, 1 a workload could not run or stopped early (--agents: or an agent's share is missing), 2 bad flags or a service that failed the check before the run (nothing run),"
          + " 3 a --threshold failed (the run finished; the result's 'thresholds' say which),"
          + " 7 every operation of a level failed (the run ended there, its result written)."
    })
final class RunCommand implements Callable<Integer> {
  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Parameters(
      arity = "0..*",
      paramLabel = "WORKLOAD",
      description = "workload names; 'pkibench list' shows them (or --mix)")
  List<String> workloads = new ArrayList<>();

  @Option(
      names = "--mix",
      paramLabel = "NAME=WEIGHT,...",
      description =
          "run workloads as one traffic mix, each operation drawing its member by weight (open loop: by arrival; closed loop: by"
              + " operation), e.g. sign=7,verify=3; shared -p parameters go to every member that takes them")
  String mix;

  @Option(
      names = "--scenario",
      paramLabel = "FILE.yaml",
      description =
          "run's options from a YAML file (keys: the long options without dashes, and 'members', the mix's list of name, weight,"
              + " params); flags given here win over the file's")
  Path scenario;

  /** The mix a scenario file lists, empty without one. */
  private List<MixSpec.Member> scenarioMembers = List.of();

  @Option(
      names = "--seed",
      defaultValue = "1",
      paramLabel = "N",
      description =
          "seed of the mix's draws: the same seed draws the same members (default: ${DEFAULT-VALUE})")
  long seed;

  @Option(
      names = {"-p", "--param"},
      paramLabel = "NAME=VALUE",
      description = "a workload parameter, e.g. -p alg=ecdsa-p256 -p size=4k")
  Map<String, String> params = new LinkedHashMap<>();

  @Option(
      names = "--target",
      paramLabel = "URL",
      description =
          "the service the http:* workloads call, e.g. https://127.0.0.1:8443 ('pkibench serve signer')")
  String target;

  @Option(
      names = "--keys",
      defaultValue = "software",
      paramLabel = "SOURCE",
      description =
          "where keys live: software[:accp|jdk|bc] (test PKI), pkcs11:CONFIG[,remote=unix:path=SOCKET] (a token,"
              + " local or behind p11-kit server), remote:HOST:PORT[=WEIGHT],… (built-in key servers) or"
              + " openbao:URL[,URL…],token-file=F (OpenBao transit);"
              + " several, comma-separated, run each workload once per source and compare them (default: ${DEFAULT-VALUE})")
  String keys;

  @Option(
      names = "--concurrency",
      paramLabel = "LIST",
      description =
          "worker counts: 1,2,4 or a doubling range 1..64 (default: 1,2,4); with --rate, the one number of workers serving the timetable (default: 64)")
  String concurrency;

  @Option(
      names = {"--rate", "--rates"},
      paramLabel = "RATES",
      description =
          "open loop: operations per second on a fixed timetable, e.g. 500/s or 100,200,400; latency counts from each scheduled start")
  String rates;

  @Option(
      names = "--stages",
      paramLabel = "D:T,...",
      description =
          "ramp, hold, ramp down instead of levels: each stage moves the target linearly from the previous one (0 at the start) to T"
              + " over D; T a rate (10s:400/s, open loop, --concurrency the workers serving it) or a number of workers (10s:64, closed loop);"
              + " the stages are the measurement, a per-second time series and per-stage summaries are recorded; --warmup, if given, holds the"
              + " first stage's target before them")
  String stages;

  @Option(
      names = "--source-addresses",
      paramLabel = "RANGE|LIST",
      description =
          "local addresses the socket workloads' connections leave from, round-robin, e.g. 127.0.0.1-127.0.0.16 (each brings its own"
              + " ephemeral ports; default: auto, spread over 127.0.0.0/8 once a loopback run needs more connections than one address has ports)")
  String sourceAddresses;

  @picocli.CommandLine.Mixin SizingOptions sizing = new SizingOptions();

  @picocli.CommandLine.Mixin MetricsOptions liveMetrics = new MetricsOptions();
  @picocli.CommandLine.Mixin DashboardOptions dashboard = new DashboardOptions();
  @picocli.CommandLine.Mixin AgentOptions agents = new AgentOptions();

  @Option(
      names = "--warmup",
      defaultValue = "2x5s",
      converter = Converters.ToIterations.class,
      paramLabel = "NxDURATION",
      description =
          "discarded iterations per series (default: ${DEFAULT-VALUE}); 2..10x5s: at least 2, more up to 10 until the cost per operation"
              + " stops moving; 0x1s for none")
  Iterations warmup;

  @Option(
      names = "--measure",
      defaultValue = "5x5s",
      converter = Converters.ToIterations.class,
      paramLabel = "NxDURATION",
      description = "measured iterations per series (default: ${DEFAULT-VALUE})")
  Iterations measure;

  @Option(
      names = "--duration",
      paramLabel = "DURATION",
      description =
          "measured time per level in one iteration, as study's --duration: --duration 30s is --measure 1x30s")
  String duration;

  @Option(
      names = "--series",
      defaultValue = "1",
      description =
          "repeat each level N times, each with fresh workload state (default: ${DEFAULT-VALUE})")
  int series;

  @Option(
      names = "--fork",
      description =
          "run each series in a fresh JVM (JIT, heap and provider state start afresh, as JMH forks)")
  boolean fork;

  @Option(
      names = "--virtual-threads",
      description = "run workers on virtual threads (for very high concurrency)")
  boolean virtualThreads;

  @Option(
      names = "--verify",
      description = "each operation checks its own output with an independent provider")
  boolean verify;

  @Option(
      names = "--verify-sample",
      paramLabel = "N",
      description =
          "with --verify, check one answer in N (default: every one), where checking each would load the client;"
              + " the result counts the checked ones as verified")
  int verifySample;

  @Option(
      names = "--cpu",
      defaultValue = "jvm",
      paramLabel = "METER",
      description =
          "whose CPU to count: jvm (this process), host, or pid:N (default: ${DEFAULT-VALUE})")
  String cpu;

  @Option(
      names = {"-o", "--out"},
      paramLabel = "FILE",
      description =
          "result file (default: results/WORKLOAD-TIME.json); FILE.hlog is written beside it; '-': the JSON to stdout"
              + " (and the default file), everything else to stderr")
  Path out;

  @Option(
      names = "--html",
      paramLabel = "FILE.html",
      description = "also write the HTML report there when the run ends")
  Path htmlReport;

  @Option(
      names = "--pki",
      paramLabel = "DIR",
      description =
          "test PKI directory (default: $PKIBENCH_PKI or ~/.pkibench/pki; created on first use)")
  Path pki;

  @Option(
      names = "--pin-file",
      paramLabel = "FILE",
      description = "file holding the PKCS#11 PIN (else $" + KeySources.PIN_ENV + ")")
  Path pinFile;

  @Option(
      names = "--hang-grace",
      defaultValue = "60s",
      paramLabel = "DURATION",
      description =
          "how long after an iteration's end an operation may still run before the level is abandoned (default: ${DEFAULT-VALUE})")
  String hangGrace;

  @Option(
      names = {RunThresholds.FLAG, "--thresholds"},
      split = ",",
      paramLabel = "EXPR",
      description =
          "a pass/fail limit on the run's own figures, checked at every level measured, as k6's thresholds: p99<50ms, p50<=2ms,"
              + " max<1s, mean<5ms, errors<1%%, throughput>=1000/s, cpu>=500/s (ops per CPU-second); scoped: sign.p99<5ms or p99{workload:sign}<5ms (a workload or"
              + " mix member), stage2.p99<20ms (--stages); repeatable; any failing exits with 3")
  List<String> thresholds = new ArrayList<>();

  /** The thresholds read and checked against the plan before anything runs. */
  private RunThresholds limits = RunThresholds.none();

  @Option(names = "--quiet", description = "no live progress, only the final table")
  boolean quiet;

  @Option(names = "--profile", description = ProfileFlag.DESCRIPTION)
  boolean profile;

  /** Where this run's result is written, once known; -o - copies it to stdout at the end. */
  private Path savedTo;

  /** Ctrl-C: the run stops, saves, and prints its summary before the JVM exits. */
  private final InterruptHook interrupt = new InterruptHook();

  @Override
  public Integer call() throws Exception {
    int code;
    try {
      code = measure();
    } finally {
      dashboard.stop(parent.context.err()::println); // after the end, or when the run threw
      interrupt.release(); // the summary is printed: a signal's hook may let the JVM exit
    }
    OutFlag.copyIfStdout(parent.context, out, savedTo);
    return code;
  }

  private Integer measure() throws Exception {
    CliContext ctx = OutFlag.human(parent.context, out);
    WorkloadCatalog catalog = WorkloadCatalog.builtIn();
    if (scenario != null) {
      try {
        scenarioMembers = ScenarioFile.apply(ctx.resolve(scenario), scenario.toString(), spec);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage());
      }
    }
    Plan plan = validatedPlan(catalog);
    // More connections than the process may open would fail worker by worker with "Too many open
    // files": refused here.
    List<String> sockets = catalog.socketProblems(plan, SocketBudget.ofThisProcess());
    if (!sockets.isEmpty())
      throw new ParameterException(spec.commandLine(), String.join("\n", sockets));
    List<String> tokens = TokenCheck.problems(ctx, keys, pinFile);
    if (!tokens.isEmpty())
      throw new ParameterException(spec.commandLine(), String.join("\n", tokens));
    CpuMeter meter = CpuMeter.of(cpu);
    Path resultFile = OutFlag.file(ctx, out) != null ? ctx.resolve(out) : defaultOut(ctx);
    savedTo = resultFile;
    if (agents.localAgents()) {
      return LocalAgents.run(
          ctx,
          spec.commandLine().getParseResult().originalArgs(),
          agents.agents,
          agents.startAt(ctx.clock()),
          agents.allowMissing,
          resultFile,
          htmlReport == null ? null : ctx.resolve(htmlReport),
          limits,
          ctx.err()::println);
    }
    Path pkiDir = ctx.pkiDir(pki);
    ConsoleProgress progress = new ConsoleProgress(ctx.err(), ctx.terminal() && !quiet, quiet);
    Function<IntervalLog, ForkedSeries> forking = null;
    if (fork) {
      // The child is told the directory this JVM checked (or defaulted); its parent made now, so
      // the child may create the PKI in it.
      Files.createDirectories(pkiDir.toAbsolutePath().getParent());
      List<String> childOptions = new ArrayList<>(List.of("--pki", pkiDir.toString()));
      if (pinFile != null)
        childOptions.addAll(List.of("--pin-file", ctx.resolve(pinFile).toString()));
      Path scratch = resultFile.toAbsolutePath().getParent();
      forking =
          hlog ->
              new ForkedSeries(
                  ForkedSeries.thisJvm(), childOptions, ctx.env(), scratch, hlog, progress::line);
    }
    Analysis.Options analysisOptions = sizing.analysis(null);
    LiveMetrics live = dashboard.listener(liveMetrics.listener());
    ProgressListener followers = MetricsOptions.with(progress, live);
    RunProfiler profiler = profile ? ProfileFlag.forRun(resultFile, cpu, progress::line) : null;
    RunSession session =
        new RunSession(
            plan,
            catalog,
            KeyOpeners.of(ctx, pkiDir, pinFile, progress::line),
            new RunSession.Options(
                meter,
                ctx.clock(),
                profiler == null ? followers : profiler.watching(followers),
                progress::line,
                Durations.parse(hangGrace),
                forking,
                result -> Analysis.of(result, analysisOptions),
                () -> TestPki.openOrInit(pkiDir, ctx.clock(), progress::line),
                RunSession.BeforeLevel.NONE,
                ctx.env()));
    agents.configure(
        session,
        ctx.clock(),
        AgentOptions.clockReference(plan),
        () -> AgentOptions.testPkiTrust(pkiDir));
    // Outside services are asked one real operation each before anything is measured: a wrong
    // address, a service down or a
    // certificate not trusted stops the run here, named. An agent of --agents N --local asks for
    // itself, each its own.
    List<String> unanswered = session.checkServices();
    if (!unanswered.isEmpty())
      throw new ParameterException(spec.commandLine(), String.join("\n", unanswered));
    Environment environment =
        EnvironmentProbe.capture(commandLine(), ctx.clock(), KeyOpeners.providersBeyondInstalled());

    progress.line(
        "result file: "
            + resultFile
            + " (interval histograms: "
            + ResultFile.hlogFileFor(resultFile).getFileName()
            + ")");
    // Ctrl-C: stop after the operations in flight and let the session write what it has.
    RunResult result;
    String runId = resultFile.getFileName().toString().replaceFirst("\\.json$", "");
    MetricsExporter exporter = liveMetrics.start(live, runId, ctx.clock(), meter, progress::line);
    dashboard.start(live, runId, ctx.clock(), meter, plan, null, progress::line);
    MetricsExport pushed;
    if (profiler != null) profiler.start();
    try {
      result =
          interrupt.around(
              session::interrupt,
              Duration.ofSeconds(10),
              () -> session.run(environment, resultFile),
              saved -> InterruptHook.sayWhereSaved(ctx, resultFile, saved));
    } catch (VirtualMachineError fatal) {
      // The session usually records this itself; when even that ran out of memory, its workers are
      // garbage by now.
      result = RunSession.recordOutOfResources(resultFile, plan, fatal);
      var workloads = result.workloads();
      progress.line(
          workloads.isEmpty()
              ? "stopped: " + fatal
              : workloads.get(workloads.size() - 1).name()
                  + ": stopped: "
                  + OutsideText.forTerminal(workloads.get(workloads.size() - 1).failure()));
    } catch (Exception e) {
      if (profiler != null) profiler.abandon(); // a jcmd recording would go on in the service's JVM
      throw e;
    } finally {
      // The last push follows the run's last interval (and the pushing thread stops even when the
      // run threw).
      pushed = MetricsOptions.finish(exporter, progress::line);
    }
    if (pushed != null) {
      result = result.withMetrics(pushed);
      RunResultJson.write(result, resultFile);
    }
    List<ThresholdVerdict> verdicts = limits.isEmpty() ? null : limits.evaluate(result);
    if (verdicts != null) {
      result = result.withThresholds(verdicts);
      RunResultJson.write(result, resultFile);
    }
    progress.done();
    CpuProfile cpuProfile = profiler == null ? null : profiler.finish();
    Analysis analysis = Analysis.of(result, sizing.analysis(null));
    ctx.out().print(TerminalTable.render(result, analysis));
    if (cpuProfile != null)
      ProfileSummary.print(ctx.out(), cpuProfile, CpuProfile.fileFor(resultFile));
    if (htmlReport != null) {
      Path target = ctx.resolve(htmlReport);
      HtmlReport.write(target, result, analysis, cpuProfile);
      ctx.out().println("report " + target);
    }
    dashboard.freeze(HtmlReport.render(result, analysis, cpuProfile)); // what --html saves
    ctx.out().println();
    ctx.out()
        .println("saved " + resultFile + "; 'pkibench report " + resultFile + "' prints it again");
    // Said last, where it is read: a table of failures is no measurement.
    List<String> allFailed = RunVerdict.everyOperationFailed(result);
    allFailed.forEach(ctx.err()::println);
    if (!allFailed.isEmpty()) return ExitCodes.EVERY_OPERATION_FAILED;
    boolean anyFailed = result.workloads().stream().anyMatch(w -> w.failure() != null);
    // A workload that could not run says more than the limits its missing figures failed.
    if (anyFailed) return ExitCodes.RUN_FAILED;
    return verdicts == null || RunThresholds.allPassed(verdicts)
        ? ExitCodes.OK
        : ExitCodes.THRESHOLD_FAILED;
  }

  /** Every problem with the flags at once, each naming the flag and the fix. */
  private Plan validatedPlan(WorkloadCatalog catalog) {
    FlagProblems problems = new FlagProblems();
    if (duration != null) {
      if (spec.commandLine().getParseResult().hasMatchedOption("--measure"))
        problems.add("--duration and --measure: --duration D is --measure 1xD; give one of them");
      else if (stages != null)
        problems.add(
            "--duration and --stages: the stages are the measurement; leave --duration out");
      Duration each = problems.duration("--duration", duration, null);
      if (each != null) measure = new Iterations(1, each);
    }
    var parsed = spec.commandLine().getParseResult();
    LoadFlags.Read read =
        LoadFlags.read(
            stages,
            concurrency,
            rates,
            fork,
            parsed.hasMatchedOption("--measure"),
            parsed.hasMatchedOption("--warmup"),
            warmup,
            measure,
            problems);
    LoadModel load = read.load();
    warmup = read.warmup();
    measure = read.measure();
    sizing.check(problems.sink());
    limits = RunThresholds.parse(thresholds, problems.sink());
    List<WorkloadSpec> specs =
        new RunWorkloads(
                workloads,
                mix,
                scenarioMembers,
                scenario,
                seed,
                params,
                target,
                sourceAddresses,
                keys)
            .specs(catalog, problems.sink());
    CliContext ctx = parent.context;
    if (pinFile != null)
      problems.addAll(
          FileFlags.readable(
              "--pin-file", pinFile, ctx.resolve(pinFile), "the PKCS#11 PIN on its first line"));
    if (OutFlag.file(ctx, out) != null)
      problems.addAll(FileFlags.writable("--out", out, ctx.resolve(out)));
    problems.addAll(PkiFlag.manifestProblems(ctx, pki));
    liveMetrics.check(problems, fork);
    dashboard.check(
        problems,
        fork || agents.localAgents()
            ? "--dashboard with --fork or --agents: the figures of other JVMs do not reach this one; leave out one of them"
            : null);
    try {
      CpuMeter.of(cpu);
    } catch (IllegalArgumentException e) {
      problems.add("--cpu: " + e.getMessage());
    }
    if (profile) problems.addAll(ProfileFlag.problems(cpu, fork));
    problems.duration("--hang-grace", hangGrace, null);
    if (load != null) {
      Plan plan =
          Plan.of(specs)
              .load(load)
              .warmup(warmup)
              .measure(measure)
              .series(series)
              .threads(virtualThreads ? ThreadKind.VIRTUAL : ThreadKind.PLATFORM)
              .verify(verify)
              .verifySample(verifySample)
              .cpu(cpu)
              .build();
      problems.addAll(plan.problems());
      agents.check(problems.sink(), plan, fork, ctx.clock());
      problems.addAll(limits.problems(plan));
      if (!limits.isEmpty() && agents.startSignal != null) {
        // an agent of --agents N --local: the parent checks them on the merged result
        limits = RunThresholds.none();
      } else if (!limits.isEmpty() && agents.segment != null) {
        problems.add(
            RunThresholds.FLAG
                + " and --segment: an agent measures only its share of the load, so its figures are not the run's;"
                + " give the thresholds to 'pkibench merge' (or run with --agents N --local, which checks them on the merged result)");
      }
      if (problems.isEmpty()) return plan;
    }
    throw new ParameterException(spec.commandLine(), String.join("\n", problems.list()));
  }

  /** Where a run without --out saves its result: results/WORKLOADS-TIME.json. */
  private Path defaultOut(CliContext ctx) {
    String time =
        DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
            .withZone(ZoneOffset.UTC)
            .format(ctx.clock().instant());
    return ctx.resolve(
        Path.of(
            "results",
            (workloads.isEmpty() ? "mix" : String.join("+", workloads)) + "-" + time + ".json"));
  }

  private String commandLine() {
    return "pkibench " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
  }
}
