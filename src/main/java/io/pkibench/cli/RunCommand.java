package io.pkibench.cli;

import io.pkibench.pki.TestPki;
import io.pkibench.report.HtmlReport;
import io.pkibench.session.ResultFile;
import io.pkibench.workload.api.SocketBudget;
import io.pkibench.workload.api.SourceAddresses;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.analysis.Analysis;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.measure.CpuMeter;
import io.pkibench.plan.ConcurrencyList;
import io.pkibench.plan.Durations;
import io.pkibench.measure.IntervalLog;
import io.pkibench.session.ForkedSeries;
import java.util.function.Function;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.ThreadKind;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.report.TerminalTable;
import io.pkibench.results.Environment;
import io.pkibench.results.RunResult;
import io.pkibench.session.EnvironmentProbe;
import io.pkibench.session.RunSession;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {"Runs workloads at each concurrency level and writes the result file after every level."},
    footer = {"", "Examples:",
        "  pkibench run sign -p alg=rsa2048 --concurrency 1..8 --warmup 2x5s --measure 5x5s --out run.json",
        "  PKIBENCH_PKCS11_PIN=... pkibench run sign -p alg=ecdsa-p256 --keys pkcs11:softhsm.cfg --concurrency 1,2,4",
        "  pkibench run noop --concurrency 1,2 --warmup 1x1s --measure 3x1s",
        "  pkibench run http:cades --target https://127.0.0.1:8443 --concurrency 1..32   # against 'pkibench serve signer'",
        "  pkibench run sign -p alg=ecdsa-p256 --rates 1000,2000,4000 --concurrency 8   # open loop",
        "  pkibench run tls-handshake --target tls://HOST:PORT -p client=tls-client -p identities=per-worker --concurrency 64   # one client certificate per worker",
        "", "Exit codes: 0 done, 1 a workload could not run or stopped early, 2 bad flags (nothing run)."})
final class RunCommand implements Callable<Integer> {
  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "WORKLOAD", description = "workload names; 'pkibench list' shows them")
  List<String> workloads;

  @Option(names = {"-p", "--param"}, paramLabel = "NAME=VALUE", description = "a workload parameter, e.g. -p alg=ecdsa-p256 -p size=4k")
  Map<String, String> params = new LinkedHashMap<>();

  @Option(names = "--target", paramLabel = "URL", description = "the service the http:* workloads call, e.g. https://127.0.0.1:8443 ('pkibench serve signer')")
  String target;

  @Option(names = "--keys", defaultValue = "software", paramLabel = "SOURCE",
      description = "where keys live: software[:accp|jdk|bc] (test PKI), pkcs11:CONFIG or remote:HOST:PORT[=WEIGHT],…;"
          + " several, comma-separated, run each workload once per source and compare them (default: ${DEFAULT-VALUE})")
  String keys;

  @Option(names = "--concurrency", paramLabel = "LIST",
      description = "worker counts: 1,2,4 or a doubling range 1..64 (default: 1,2,4); with --rate, the one number of workers serving the timetable (default: 64)")
  String concurrency;

  @Option(names = {"--rate", "--rates"}, paramLabel = "RATES",
      description = "open loop: operations per second on a fixed timetable, e.g. 500/s or 100,200,400; latency counts from each scheduled start")
  String rates;

  @Option(names = "--source-addresses", paramLabel = "RANGE|LIST",
      description = "local addresses the socket workloads' connections leave from, round-robin, e.g. 127.0.0.1-127.0.0.16 (each brings its own"
          + " ephemeral ports; default: auto, spread over 127.0.0.0/8 once a loopback run needs more connections than one address has ports)")
  String sourceAddresses;

  @picocli.CommandLine.Mixin
  SizingOptions sizing = new SizingOptions();

  @Option(names = "--warmup", defaultValue = "2x5s", converter = Converters.ToIterations.class, paramLabel = "NxDURATION",
      description = "discarded iterations per series (default: ${DEFAULT-VALUE}); 2..10x5s: at least 2, more up to 10 until the cost per operation"
          + " stops moving; 0x1s for none")
  Iterations warmup;

  @Option(names = "--measure", defaultValue = "5x5s", converter = Converters.ToIterations.class, paramLabel = "NxDURATION",
      description = "measured iterations per series (default: ${DEFAULT-VALUE})")
  Iterations measure;

  @Option(names = "--series", defaultValue = "1", description = "repeat each level N times, each with fresh workload state (default: ${DEFAULT-VALUE})")
  int series;

  @Option(names = "--fork", description = "run each series in a fresh JVM (JIT, heap and provider state start afresh, as JMH forks)")
  boolean fork;

  @Option(names = "--virtual-threads", description = "run workers on virtual threads (for very high concurrency)")
  boolean virtualThreads;

  @Option(names = "--verify", description = "each operation checks its own output with an independent provider")
  boolean verify;

  @Option(names = "--cpu", defaultValue = "jvm", paramLabel = "METER",
      description = "whose CPU to count: jvm (this process), host, or pid:N (default: ${DEFAULT-VALUE})")
  String cpu;

  @Option(names = {"-o", "--out"}, paramLabel = "FILE", description = "result file (default: results/WORKLOAD-TIME.json); FILE.hlog is written beside it")
  Path out;

  @Option(names = "--html", paramLabel = "FILE.html", description = "also write the HTML report there when the run ends")
  Path htmlReport;

  @Option(names = "--pki", paramLabel = "DIR", description = "test PKI directory (default: $PKIBENCH_PKI or ~/.pkibench/pki; created on first use)")
  Path pki;

  @Option(names = "--pin-file", paramLabel = "FILE", description = "file holding the PKCS#11 PIN (else $" + KeySources.PIN_ENV + ")")
  Path pinFile;

  @Option(names = "--hang-grace", defaultValue = "60s", paramLabel = "DURATION",
      description = "how long after an iteration's end an operation may still run before the level is abandoned (default: ${DEFAULT-VALUE})")
  String hangGrace;

  @Option(names = "--quiet", description = "no live progress, only the final table")
  boolean quiet;

  @Override
  public Integer call() throws Exception {
    CliContext ctx = parent.context;
    WorkloadCatalog catalog = WorkloadCatalog.builtIn();
    Plan plan = validatedPlan(catalog);
    // More connections than the process may open would fail worker by worker with "Too many open files": refused here.
    List<String> sockets = catalog.socketProblems(plan, SocketBudget.ofThisProcess());
    if (!sockets.isEmpty()) throw new ParameterException(spec.commandLine(), String.join("\n", sockets));
    // Outside services are asked once, before anything starts: a wrong address stops the run here, named.
    List<String> unreachable = catalog.unreachable(plan);
    if (!unreachable.isEmpty()) throw new ParameterException(spec.commandLine(), String.join("\n", unreachable));
    CpuMeter meter = CpuMeter.of(cpu);
    Path resultFile = out != null ? ctx.resolve(out) : defaultOut(ctx);
    Path pkiDir = ctx.pkiDir(pki);
    ConsoleProgress progress = new ConsoleProgress(ctx.err(), ctx.terminal() && !quiet, quiet);
    Function<IntervalLog, ForkedSeries> forking = null;
    if (fork) {
      // The child is told the directory this JVM checked (or defaulted); its parent made now, so the child may create the PKI in it.
      java.nio.file.Files.createDirectories(pkiDir.toAbsolutePath().getParent());
      List<String> childOptions = new ArrayList<>(List.of("--pki", pkiDir.toString()));
      if (pinFile != null) childOptions.addAll(List.of("--pin-file", ctx.resolve(pinFile).toString()));
      Path scratch = resultFile.toAbsolutePath().getParent();
      forking = hlog -> new ForkedSeries(ForkedSeries.thisJvm(), childOptions, ctx.env(), scratch, hlog, progress::line);
    }
    Analysis.Options analysisOptions = sizing.analysis(null);
    RunSession session = new RunSession(plan, catalog, KeyOpeners.of(ctx, pkiDir, pinFile, progress::line),
        new RunSession.Options(meter, ctx.clock(), progress, progress::line, Durations.parse(hangGrace), forking,
            result -> Analysis.of(result, analysisOptions), () -> TestPki.openOrInit(pkiDir, ctx.clock(), progress::line), RunSession.BeforeLevel.NONE, ctx.env()));
    Environment environment = EnvironmentProbe.capture(commandLine(), ctx.clock(), KeyOpeners.providersBeyondInstalled());

    progress.line("result file: " + resultFile + " (interval histograms: " + ResultFile.hlogFileFor(resultFile).getFileName() + ")");
    // Ctrl-C: stop after the operations in flight and let the session write what it has.
    RunResult result;
    try {
      result = InterruptHook.around(session::interrupt, java.time.Duration.ofSeconds(10), () -> session.run(environment, resultFile),
          saved -> InterruptHook.sayWhereSaved(ctx, resultFile, saved));
    } catch (VirtualMachineError fatal) {
      // The session usually records this itself; when even that ran out of memory, its workers are garbage by now.
      result = RunSession.recordOutOfResources(resultFile, plan, fatal);
      var workloads = result.workloads();
      progress.line(workloads.isEmpty() ? "stopped: " + fatal
          : workloads.get(workloads.size() - 1).name() + ": stopped: " + workloads.get(workloads.size() - 1).failure());
    }
    progress.done();
    Analysis analysis = Analysis.of(result, sizing.analysis(null));
    ctx.out().print(TerminalTable.render(result, analysis));
    if (htmlReport != null) {
      Path target = ctx.resolve(htmlReport);
      HtmlReport.write(target, result, analysis);
      ctx.out().println("report " + target);
    }
    ctx.out().println();
    ctx.out().println("saved " + resultFile + "; 'pkibench report " + resultFile + "' prints it again");
    boolean anyFailed = result.workloads().stream().anyMatch(w -> w.failure() != null);
    return anyFailed ? ExitCodes.RUN_FAILED : ExitCodes.OK;
  }

  /** Every problem with the flags at once, each naming the flag and the fix. */
  private Plan validatedPlan(WorkloadCatalog catalog) {
    List<String> problems = new ArrayList<>();
    LoadModel load = null;
    try {
      if (rates == null) {
        load = new LoadModel.Closed(ConcurrencyList.parse(concurrency == null ? "1,2,4" : concurrency));
      } else {
        int workers = 64;
        if (concurrency != null) {
          List<Integer> given = ConcurrencyList.parse(concurrency);
          if (given.size() != 1) throw new IllegalArgumentException("with --rate give one number of workers, e.g. --concurrency 32");
          workers = given.get(0);
        }
        try {
          load = new LoadModel.Open(ConcurrencyList.parseRates(rates), workers);
        } catch (IllegalArgumentException e) {
          problems.add("--rate: " + e.getMessage());
        }
      }
    } catch (IllegalArgumentException e) {
      problems.add("--concurrency: " + e.getMessage());
    }
    sizing.check(problems);
    List<WorkloadSpec> specs = new ArrayList<>();
    for (String name : workloads) {
      Map<String, String> workloadParams = new LinkedHashMap<>(params);
      boolean remote = catalog.find(name).map(f -> f.params().stream().anyMatch(p -> p.name().equals(ParamSpec.TARGET))).orElse(false);
      if (remote && target != null) workloadParams.putIfAbsent(ParamSpec.TARGET, target);
      boolean sockets = catalog.find(name).map(f -> f.params().stream().anyMatch(p -> p.name().equals(SourceAddresses.PARAM))).orElse(false);
      if (sockets && sourceAddresses != null) {
        if (params.containsKey(SourceAddresses.PARAM) && !params.get(SourceAddresses.PARAM).equals(sourceAddresses)) {
          problems.add("--source-addresses " + sourceAddresses + " and -p " + SourceAddresses.PARAM + "=" + params.get(SourceAddresses.PARAM)
              + ": give the addresses once");
        }
        workloadParams.put(SourceAddresses.PARAM, sourceAddresses);
      }
      // A workload that uses no key runs once whatever --keys lists.
      boolean usesKeys = catalog.find(name).map(WorkloadFactory::usesKeys).orElse(true);
      List<String> sources = usesKeys ? KeySources.split(keys) : List.of(KeySources.split(keys).get(0));
      for (String source : sources) specs.add(new WorkloadSpec(name, workloadParams, source));
    }
    if (sourceAddresses != null) {
      boolean any = workloads.stream().anyMatch(n -> catalog.find(n).map(f -> f.params().stream().anyMatch(p -> p.name().equals(SourceAddresses.PARAM)))
          .orElse(false));
      if (!any) problems.add("--source-addresses " + sourceAddresses + ": none of " + String.join(", ", workloads) + " opens connections"
          + " (tls-rr, tls-acrr, tls-stream, tls-hold and https-* do); leave it out");
    }
    // The catalog's checks of each workload, reported even when the load flags are wrong too.
    // A workload's check of the addresses names its -p; given as --source-addresses, the flag the user typed is named, once.
    for (WorkloadSpec s : specs) {
      for (String problem : catalog.problems(s)) {
        String named = sourceAddresses == null ? problem : problem.replace("-p " + SourceAddresses.PARAM, "--source-addresses");
        if (!problems.contains(named)) problems.add(named);
      }
    }
    CliContext ctx = parent.context;
    if (pinFile != null) problems.addAll(FileFlags.readable("--pin-file", pinFile, ctx.resolve(pinFile), "the PKCS#11 PIN on its first line"));
    if (out != null) problems.addAll(FileFlags.writable("--out", out, ctx.resolve(out)));
    try {
      CpuMeter.of(cpu);
    } catch (IllegalArgumentException e) {
      problems.add("--cpu: " + e.getMessage());
    }
    try {
      Durations.parse(hangGrace);
    } catch (IllegalArgumentException e) {
      problems.add("--hang-grace: " + e.getMessage());
    }
    if (load != null) {
      Plan plan = Plan.of(specs).load(load).warmup(warmup).measure(measure).series(series)
          .threads(virtualThreads ? ThreadKind.VIRTUAL : ThreadKind.PLATFORM).verify(verify).cpu(cpu).build();
      problems.addAll(plan.problems());
      if (problems.isEmpty()) return plan;
    }
    throw new ParameterException(spec.commandLine(), String.join("\n", problems));
  }

  /** What a signal's stop says, the JVM exiting right after: whether the result holds every finished level. */
  private Path defaultOut(CliContext ctx) {
    String time = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(ctx.clock().instant());
    return ctx.resolve(Path.of("results", String.join("+", workloads) + "-" + time + ".json"));
  }

  private String commandLine() {
    return "pkibench " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
  }


}
