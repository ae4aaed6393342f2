package io.pkibench.cli;

import io.pkibench.engine.IterationStarts;
import io.pkibench.engine.ProgressListener;
import io.pkibench.engine.SharedBoundaries;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.measure.CpuAffinity;
import io.pkibench.measure.JvmCpuMeter;
import io.pkibench.metrics.LiveMetrics;
import io.pkibench.metrics.MetricsExporter;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.MixSpec;
import io.pkibench.plan.PlanException;
import io.pkibench.plan.Segment;
import io.pkibench.results.AgentRecord;
import io.pkibench.session.EnvironmentProbe;
import io.pkibench.session.ForkedSeries;
import io.pkibench.session.RunProfiler;
import io.pkibench.study.CheckSizing;
import io.pkibench.study.CpuQuota;
import io.pkibench.study.CpuSplit;
import io.pkibench.study.PecStudy;
import io.pkibench.study.PixStudy;
import io.pkibench.study.PqcStudy;
import io.pkibench.study.RestPkiStudy;
import io.pkibench.study.RsfnStudy;
import io.pkibench.study.SslStudy;
import io.pkibench.study.Study;
import io.pkibench.study.StudyAfterSteps;
import io.pkibench.study.StudyCatalog;
import io.pkibench.study.StudyOptions;
import io.pkibench.study.StudyRunner;
import io.pkibench.study.StudySegment;
import io.pkibench.workload.catalog.WorkloadCatalog;
import io.pkibench.workload.pec.PauseRange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "study",
    mixinStandardHelpOptions = true,
    description =
        "Reruns a published capacity study on this machine (STUDIES.md) into one result file, with its own table and report.",
    subcommands = {
      StudyCommand.RestPki.class,
      StudyCommand.Pix.class,
      StudyCommand.Rsfn.class,
      StudyCommand.Pec.class,
      StudyCommand.Ssl.class,
      StudyCommand.Pqc.class
    },
    footer = {
      "",
      "Example:",
      "  pkibench study restpki --quick",
      "",
      "Exit codes: 0 done, 1 a step could not run or stopped early, 2 bad flags (nothing started), 4 a post-run check failed."
    })
final class StudyCommand implements Runnable {
  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(),
        "name a study: "
            + String.join(", ", StudyCatalog.builtIn().names())
            + " (pkibench study --help)");
  }

  /** The longest iteration of a {@code --smoke} run. */
  static final Duration SMOKE_ITERATION = Duration.ofMillis(500);

  /** The options every study takes. */
  static final class SharedOptions {
    @Option(
        names = "--quick",
        description =
            "short probes and a short measurement: rough figures of a barely warmed service, not sizing figures")
    boolean quick;

    @Option(
        names = "--smoke",
        description =
            "--quick with every iteration cut to at most half a second: the quickest proof that the study"
                + " runs and its checks pass here (the test suite's run), figures rougher still")
    boolean smoke;

    @Option(
        names = "--duration",
        paramLabel = "DURATION",
        description =
            "measured time per step (default: the study's, e.g. restpki 5m as its original, ssl 30s)")
    String duration;

    @Option(
        names = {"-o", "--out"},
        paramLabel = "FILE",
        description =
            "the one result file, every step in it (default: STUDY.json); FILE.hlog beside it")
    Path out;

    @Option(names = "--html", paramLabel = "FILE.html", description = "also write the HTML report")
    Path html;

    @Option(
        names = "--save-samples",
        paramLabel = "DIR",
        description =
            "write the study's artifacts, with VERIFY.md and a verify.sh that checks each with an independent tool")
    Path samples;

    @Option(
        names = "--keys",
        defaultValue = "software",
        paramLabel = "SOURCE",
        description = "where the client and service keys live (default: ${DEFAULT-VALUE})")
    String keys;

    @Option(
        names = "--pki",
        paramLabel = "DIR",
        description = "test PKI directory (default: $PKIBENCH_PKI or ~/.pkibench/pki)")
    Path pki;

    @Option(
        names = "--pin-file",
        paramLabel = "FILE",
        description = "file holding the PKCS#11 PIN (else $" + KeySources.PIN_ENV + ")")
    Path pinFile;

    @Option(
        names = "--service-cpus",
        defaultValue = "auto",
        paramLabel = "LIST|auto|shared",
        description =
            "the cores the study's services run on (taskset), the client on the rest, each service's CPU measured against its own"
                + " cores, e.g. 0 or 0-3; auto (default): the first half of the cores; shared: no split")
    String serviceCpus;

    @Option(names = "--hang-grace", defaultValue = "60s", paramLabel = "DURATION", hidden = true)
    String hangGrace;

    @Option(names = "--profile", description = ProfileFlag.DESCRIPTION)
    boolean profile;

    @Option(
        names = "--agents",
        paramLabel = "N",
        description =
            "with --local: each step's chosen level run by N agent processes here, each its"
                + " share of the workers on one shared start, against the one set of services; the results merged per step (restpki)")
    Integer agents;

    @Option(
        names = "--local",
        description = "with --agents: the agents are processes on this machine")
    boolean local;

    @Option(
        names = "--segment",
        paramLabel = "I/N",
        description =
            "run as agent I of N of a study against a service running elsewhere (restpki: --target URL): no service started, no probe;"
                + " each step at --concurrency, this agent its share of the workers; 'pkibench merge' adds the N agents' results into the study's")
    String segment;

    @Option(
        names = "--concurrency",
        paramLabel = "N",
        description =
            "with --segment: the level every step is measured at, split over the agents (the coordinator's choice, the same on every agent)")
    Integer concurrency;

    @Option(
        names = "--start-at",
        paramLabel = "TIME",
        description =
            "with --segment: start the first warm-up at this UTC time (e.g. 2026-12-01T10:00:00Z), every step's iterations on one timetable all agents share")
    String startAt;

    @Option(
        names = "--start-in",
        paramLabel = "DURATION",
        description = "with --segment: as --start-at, that long from now (e.g. 30s)")
    String startIn;
  }

  /**
   * {@code --check-sizing} and where its cgroup goes, for the studies that size a service they
   * start (restpki, pix).
   */
  static final class CheckSizingOptions {
    @Option(
        names = "--check-sizing",
        description =
            "after the other steps, each sized step measured again with the services' CPU limited by a cgroup cpu quota (as root, or in a"
                + " delegated cgroup) to 0.5 core, the capacity at 1 core predicted from that, then measured at 1 core: predicted, measured and the miss")
    boolean checkSizing;

    @Option(
        names = "--cgroup-root",
        paramLabel = "DIR",
        description =
            "with --check-sizing: the cgroup the study makes its group under, v1's cpu controller or a v2 cgroup with cpu"
                + " (default: /sys/fs/cgroup/cpu, else /sys/fs/cgroup)")
    Path cgroupRoot;

    /** The check asked for, or null; a misplaced --cgroup-root added to {@code problems}. */
    CheckSizing checkSizing(List<String> problems, CliContext ctx) {
      if (cgroupRoot != null && !checkSizing)
        problems.add(
            "--cgroup-root: only with --check-sizing, which limits the services' CPU there");
      if (!checkSizing) return null;
      return new CheckSizing(
          cgroupRoot == null ? CpuQuota.DEFAULT_ROOTS : List.of(ctx.resolve(cgroupRoot)));
    }
  }

  /**
   * What every study subcommand does: check everything, run the study, print its table, write
   * report and samples.
   */
  abstract static class StudyRun implements Callable<Integer> {
    @ParentCommand StudyCommand study;
    @Spec CommandSpec spec;
    @Mixin SharedOptions shared = new SharedOptions();
    @Mixin MetricsOptions liveMetrics = new MetricsOptions();

    abstract Study study();

    /**
     * The service an agent of a split study ({@code --segment}) compares its clock with, or null
     * when the study names none.
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
        return run(study.parent.context);
      } finally {
        cleanUp(study.parent.context);
      }
    }

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
      if (shared.out != null)
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
      if (liveMetrics.metrics != null && shared.agents != null) {
        problems.add(
            "--metrics with --agents: the agents measure in JVMs of their own, whose per-second figures do not reach this one; leave out one of them");
      }
      if (each != null)
        problems.addAll(chosen.problems(options)); // the study's own, in the same list
      problems.throwIfAny(spec.commandLine());

      Path resultFile =
          ctx.resolve(shared.out == null ? Path.of(chosen.name() + ".json") : shared.out);
      ConsoleProgress progress = new ConsoleProgress(ctx.err(), ctx.terminal(), false);
      RunProfiler profiler =
          shared.profile ? ProfileFlag.forStudy(resultFile, progress::line) : null;
      // --metrics: each step's levels pushed live, the step named in the workload label (its
      // interval tag, step.role/workload).
      LiveMetrics live = liveMetrics.listener();
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
                  grace),
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
              new JvmCpuMeter(),
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
                    InterruptHook.around(
                        runner::interrupt,
                        Duration.ofSeconds(30),
                        () ->
                            runner.run(
                                chosen,
                                options,
                                EnvironmentProbe.capture(
                                    commandLine,
                                    ctx.clock(),
                                    KeyOpeners.providersBeyondInstalled())),
                        saved -> InterruptHook.sayWhereSaved(ctx, resultFile, saved)),
                progress::done);
      } catch (PlanException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage());
      }
      return switch (outcome) {
        case DONE -> ExitCodes.OK;
        case RUN_FAILED -> ExitCodes.RUN_FAILED;
        case CHECK_FAILED -> ExitCodes.CHECK_FAILED;
      };
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
     * This agent's share of the study: its segment, the one timetable of every step, its record
     * with its host and clock.
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
                  reference, ctx.clock(), () -> RunCommand.testPkiTrust(pkiDir)),
              null,
              null);
      return new StudySegment(
          segment,
          shared.concurrency,
          at == null ? IterationStarts.NOW : new SharedBoundaries(ctx.clock(), at),
          record);
    }
  }

  @Command(
      name = "restpki",
      mixinStandardHelpOptions = true,
      description = {
        "Study 1: a two-phase signing service sized by transaction type (authentication, CAdES, CAdES-T, PAdES, PAdES-T, timestamp),",
        "each run alone at the thread count a probe finds drives the service's CPU to ~90%% or stops gaining; the service's CPU measured by pid."
      },
      footer = {
        "",
        "Examples:",
        "  pkibench study restpki --quick                  # about 4 minutes",
        "  pkibench study restpki --quick --profile --html restpki.html   # and where the client's and the service's CPU went",
        "  pkibench study restpki --duration 5m --out restpki.json --html restpki.html --save-samples samples/",
        "  pkibench study restpki --restart-per-type      # a fresh service JVM for each type, as the original",
        "  pkibench study restpki --quick --metrics prometheus-rw=http://127.0.0.1:9090/api/v1/write   # each step's levels live, by step",
        "  pkibench study restpki --quick --service builtin,dss   # our signer and EU DSS's REST services, side by side",
        "  pkibench study restpki --service dss:https://their.host/services/rest --trust their-ca.pem",
        "  pkibench study restpki --mix cades=6,pades=3,timestamp=1 --duration 5m   # the types alone, then as one mix",
        "  pkibench study restpki --quick --agents 4 --local   # one signer, each chosen level run by 4 agent processes, merged",
        "  pkibench study restpki --target https://signer:8443 --concurrency 64 --segment 2/4 --start-at 2026-12-01T10:00:00Z -o agent2.json",
        "                                                   # agent 2 of 4 against a signer elsewhere; 'pkibench merge agent*.json -o restpki.json' adds them",
        "  pkibench study restpki --smoke --types cades       # one type only",
        "  pkibench study restpki --quick --check-sizing      # each type's capacity at 1 core predicted from 0.5 core (cgroup cpu quota), then measured"
      })
  static final class RestPki extends StudyRun {
    @Option(
        names = "--restart-per-type",
        description =
            "restart the service before each transaction type (the original restarted between tests)")
    boolean restartPerType;

    @Option(
        names = "--service",
        defaultValue = "builtin",
        paramLabel = "builtin,dss,dss:URL",
        description =
            "the services to measure, each alone in turn with the same types and levels: builtin (our signer), dss (EU DSS's REST"
                + " services, started by the study), dss:URL (a DSS running elsewhere, its REST root) (default: ${DEFAULT-VALUE})")
    String service;

    @Option(
        names = "--trust",
        paramLabel = "CA.pem",
        description =
            "the CA certificate an https dss:URL chains to (default: the test PKI's root)")
    Path trust;

    @Option(
        names = "--mix",
        paramLabel = "TYPE=WEIGHT,...",
        description =
            "also size these types together as one traffic mix at the service's CPU, after each alone, e.g. cades=6,pades=3,timestamp=1"
                + " (types: auth, cades, cades-t, pades, pades-t, timestamp)")
    String mix;

    @Option(
        names = "--target",
        paramLabel = "URL",
        description =
            "the built-in signer running elsewhere ('pkibench serve signer' there), e.g. https://signer:8443: the study starts no service"
                + " and measures that one, its CPU not read (it is not here); what each agent of a split study (--segment) gives")
    String target;

    @Mixin CheckSizingOptions sizing = new CheckSizingOptions();

    @Override
    URI clockReference() {
      return target == null ? null : URI.create(target);
    }

    @Option(
        names = "--types",
        split = ",",
        paramLabel = "TYPE,...",
        description =
            "only these transaction types: auth, cades, cades-t, pades, pades-t, timestamp (default: all)")
    List<String> types;

    @Override
    Study study() {
      List<String> problems = new ArrayList<>();
      List<RestPkiStudy.Service> services = RestPkiStudy.Service.parse(service, problems);
      if (target != null) {
        if (!service.equals(RestPkiStudy.Service.BUILTIN))
          problems.add(
              "--target and --service "
                  + service
                  + ": --target is the built-in signer elsewhere; give one of them");
        URI u = null;
        try {
          u = URI.create(target);
        } catch (IllegalArgumentException e) {
          // said below
        }
        if (u == null
            || !("http".equals(u.getScheme()) || "https".equals(u.getScheme()))
            || u.getHost() == null) {
          problems.add("--target " + target + ": give the signer's URL, e.g. https://signer:8443");
          target = null;
        } else {
          services = List.of(new RestPkiStudy.Service(RestPkiStudy.Service.BUILTIN, target));
        }
      }
      List<RestPkiStudy.Type> only = RestPkiStudy.TYPES;
      if (types != null) {
        only =
            RestPkiStudy.TYPES.stream().filter(t -> types.contains(RestPkiStudy.token(t))).toList();
        for (String t : types) {
          if (RestPkiStudy.TYPES.stream().noneMatch(k -> RestPkiStudy.token(k).equals(t))) {
            problems.add(
                "--types "
                    + t
                    + ": not a transaction type of restpki; use "
                    + String.join(
                        ", ", RestPkiStudy.TYPES.stream().map(RestPkiStudy::token).toList()));
          }
        }
      }
      List<MixSpec.Member> members = List.of();
      if (mix != null) {
        try {
          members = MixSpec.parse("--mix", mix);
        } catch (IllegalArgumentException e) {
          problems.add(e.getMessage());
        }
      }
      CheckSizing check = sizing.checkSizing(problems, study.parent.context);
      RestPkiStudy chosen =
          new RestPkiStudy(
                  restartPerType,
                  services,
                  trust == null ? null : study.parent.context.resolve(trust),
                  problems,
                  members)
              .only(only);
      return check == null ? chosen : chosen.checkingSizing(check);
    }
  }

  @Command(
      name = "pix",
      mixinStandardHelpOptions = true,
      description = {
        "Study 2: the PIX SPI's mTLS 1.2 handshake (two SSLEngines in memory) and ISO 20022 SPI message signature, the client's",
        "key on two key-server nodes (50/50, each its own JVM), swept over concurrency as the original's JMH runs (5 series, each in a",
        "fresh JVM, of 5+ warm-up and 5 measured iterations of --duration); then random, the message draw to subtract. CPU: the key servers'."
      },
      footer = {
        "",
        "Examples:",
        "  pkibench study pix --quick                       # a few minutes",
        "  pkibench study pix --html pix.html                # the original's methodology: about 2 hours",
        "  pkibench study pix --keys pkcs11:softhsm.cfg --pin-file pin.txt   # the nodes' keys on a token",
        "  pkibench study pix --quick --fault kill-node@20s  # and a node killed mid-run: the dip and the recovery",
        "  pkibench study pix --quick --check-sizing         # each benchmark's capacity at 1 core of the nodes predicted from 0.5 core, then measured"
      })
  static final class Pix extends StudyRun {
    @Mixin CheckSizingOptions sizing = new CheckSizingOptions();

    @Option(
        names = "--fault",
        paramLabel = "kill-node@TIME",
        description =
            "add a step that SIGKILLs the first node TIME into its measured seconds and starts it again 10 s later, e.g. kill-node@30s")
    String fault;

    @Override
    Study study() {
      try {
        List<String> problems = new ArrayList<>();
        CheckSizing check = sizing.checkSizing(problems, study.parent.context);
        if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("\n", problems));
        PixStudy pix = new PixStudy(PixStudy.Fault.parse(fault));
        return check == null ? pix : pix.checkingSizing(check);
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
    }
  }

  @Command(
      name = "rsfn",
      mixinStandardHelpOptions = true,
      description = {
        "Study 3: RSFN security protocol 3 packaging and unpackaging of 1 KiB, done by two key-server nodes (50/50, each its own JVM)",
        "for a client keeping 1 to 512 calls pending on virtual threads. Each level: restart both nodes, one run discarded, five kept.",
        "CPU: the nodes' (both pids); each operation again at 64 pending calls on the client's CPU."
      },
      footer = {
        "",
        "Examples:",
        "  pkibench study rsfn --quick                      # about 3 minutes",
        "  pkibench study rsfn --html rsfn.html              # the original's sweep, 11 levels of 6 runs of 10 s: about 30 minutes",
        "  pkibench study rsfn --keys pkcs11:softhsm.cfg --pin-file pin.txt   # the nodes' keys on a token"
      })
  static final class Rsfn extends StudyRun {
    @Override
    Study study() {
      return new RsfnStudy();
    }
  }

  @Command(
      name = "pec",
      mixinStandardHelpOptions = true,
      description = {
        "Study 4: PEC certified e-mail (OpenPEC). The signing path (acceptance receipt + transport envelope) and the verification path",
        "(envelope verified + taking-charge and delivery receipts) in this JVM at 1 to 16 workers; then two providers (serve pec, each its own",
        "JVM, CPU by pid) mailing each other over SMTP, 56-80 KB messages 2:3 as the original's 800 and 1,200; then the reliability check:",
        "one acceptance, envelope, taking-charge and delivery receipt per message and recipient, ending 'reliability: N messages, L lost, D duplicated'."
      },
      footer = {
        "",
        "Examples:",
        "  pkibench study pec --quick                        # about 2 minutes",
        "  pkibench study pec --html pec.html                 # 5 s runs, a 100 s flow of 2,000 messages: about 7 minutes",
        "  pkibench study pec --spool /mnt/ssd/pec-spool      # the spools on the disk to size (the original found the disk mattered)",
        "  pkibench study pec --save-samples pec-samples/     # one of each signed document as .eml, chain.pem, verify.sh (openssl)"
      })
  static final class Pec extends StudyRun {
    @Option(
        names = "--dir",
        paramLabel = "DIR",
        description =
            "keep the providers' mailboxes, spools and the sent list here; emptied at the start of each run, so a new or empty directory"
                + " (default: a temporary directory, named at the start and removed at the end)")
    Path dir;

    /** The temporary directory this run made for want of --dir, removed when it ends. */
    private Path temporary;

    @Option(
        names = "--spool",
        paramLabel = "DIR",
        description =
            "put the two spools here instead of DIR/spool, e.g. on another disk; emptied at each run too")
    Path spool;

    @Option(
        names = "--flow-rate",
        defaultValue = "20",
        paramLabel = "N",
        description =
            "messages per second the users submit in the flow; 100 s of it: 2,000 messages (default: ${DEFAULT-VALUE})")
    double flowRate;

    @Option(
        names = "--provider-workers",
        defaultValue = "4",
        paramLabel = "N",
        description = "each provider's workers in the flow (default: ${DEFAULT-VALUE})")
    int providerWorkers;

    @Option(
        names = "--no-search",
        description =
            "leave out the maximum-load search of the flow (rates 10 to 160 messages/s; quick: 10 and 40)")
    boolean noSearch;

    @Option(
        names = "--pauses",
        paramLabel = "MIN..MAX",
        description =
            "add the original's reliability run: "
                + "16 users each pausing a random MIN..MAX before each message, e.g. 1s..15s"
                + " (the original's); quick: 2 x 15 s, full: as long as the flow; the reliability check covers its messages (default: none)")
    String pauses;

    @Option(
        names = "--no-sweep",
        description =
            "leave out the provider-worker sweep that tests OpenPEC's 2 x CPUs + x rule (quick: 2 points)")
    boolean noSweep;

    @Override
    Study study() {
      CliContext ctx = study.parent.context;
      var paused = pauseRange(); // before the temporary directory is made
      Path runDir;
      if (dir != null) {
        runDir = ctx.resolve(dir);
      } else {
        try {
          runDir = temporary = Files.createTempDirectory("pkibench-pec-study-");
        } catch (IOException e) {
          throw new UncheckedIOException(
              "cannot make a temporary directory for the providers' mailboxes and spools; give one with --dir",
              e);
        }
        ctx.err()
            .println(
                "pec study: mailboxes, spools and the sent list in "
                    + runDir
                    + " (removed at the end; --dir DIR keeps them)");
      }
      PecStudy.Config d =
          PecStudy.Config.defaults(runDir, spool == null ? null : ctx.resolve(spool));
      return new PecStudy(
          new PecStudy.Config(
              d.dir(),
              d.spool(),
              flowRate,
              providerWorkers,
              d.pathWorkers(),
              d.flowWarmup(),
              d.flowMeasure(),
              noSearch ? List.of() : d.searchRates(),
              d.receiptDeadline(),
              noSweep ? List.of() : d.workerSweep(),
              paused));
    }

    /**
     * {@code --pauses}, checked before anything else: a bad range is refused as a bad flag, naming
     * the syntax.
     */
    private PauseRange pauseRange() {
      if (pauses == null) return null;
      try {
        return PauseRange.parse(pauses);
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.ParameterException(
            spec.commandLine(), "--pauses " + pauses + ": " + e.getMessage());
      }
    }

    @Override
    void cleanUp(CliContext ctx) {
      if (temporary == null) return;
      try (var walk = Files.walk(temporary)) {
        for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
      } catch (IOException | UncheckedIOException e) {
        ctx.err()
            .println(
                "pec study: could not remove "
                    + temporary
                    + " ("
                    + e.getMessage()
                    + "); remove it by hand");
      }
    }
  }

  @Command(
      name = "ssl",
      mixinStandardHelpOptions = true,
      description = {
        "Study 5: TLS transactions per server CPU-second by transaction type (RR 128 B, ACRR 8 KB, Stream 16 KB) and cipher suite,",
        "normalised to plain TCP (IBM i 6.1, tables 5.6 and 5.7). Each server its own JVM, its CPU by pid; the original's suites (RC4, AES-CBC,",
        "3DES, TLS 1.0, RSA-1024) are tried first, and where this runtime refuses one the report names the substitute it measured."
      },
      footer = {
        "",
        "Examples:",
        "  pkibench study ssl --quick                       # about 2 minutes: plain, RC4/SHA-1 and AES128 columns",
        "  pkibench study ssl --duration 30s --html ssl.html  # every column, both engines: about 30 minutes",
        "  pkibench study ssl --tls openssl                 # only the BoringSSL engine",
        "  pkibench study ssl --quick --server pkibench,nginx  # HTTPS RR/ACRR/Stream on tlsecho and Debian's nginx, tps per server CPU-second",
        "  pkibench study ssl --quick --server pkibench,nginx --client-auth need   # the same with mutual TLS on both servers"
      })
  static final class Ssl extends StudyRun {
    @Option(
        names = "--tls",
        split = ",",
        defaultValue = "jsse,openssl",
        paramLabel = "jsse,openssl",
        description =
            "the TLS engines to measure, server and client alike (default: ${DEFAULT-VALUE})")
    List<String> engines;

    @Option(
        names = "--server",
        split = ",",
        defaultValue = "pkibench",
        paramLabel = "pkibench,nginx",
        description =
            "the servers: pkibench alone reproduces IBM's table on serve tlsecho; with nginx the study compares the servers"
                + " on HTTPS RR, ACRR and Stream, nginx started from a configuration beside the result file (default: ${DEFAULT-VALUE})")
    List<String> servers;

    @Option(
        names = "--client-auth",
        defaultValue = "none",
        paramLabel = "none|need",
        description =
            "need (with --server pkibench,nginx): mutual TLS on every server (nginx ssl_verify_client on, tlsecho --client-auth need),"
                + " every client presenting the test PKI's tls-client certificate (default: ${DEFAULT-VALUE})")
    String clientAuth;

    @Override
    Study study() {
      if (!clientAuth.equals("none") && !clientAuth.equals("need")) {
        throw new ParameterException(
            spec.commandLine(), "--client-auth " + clientAuth + ": use none or need");
      }
      Path result = shared.out != null ? shared.out : Path.of("ssl.json");
      Path resolved = study.parent.context.resolve(result).toAbsolutePath();
      String name = resolved.getFileName().toString().replaceFirst("\\.json$", "");
      return new SslStudy(
          engines, servers, resolved.resolveSibling(name + "-nginx"), clientAuth.equals("need"));
    }
  }

  @Command(
      name = "pqc",
      mixinStandardHelpOptions = true,
      description = {
        "What the move to post-quantum cryptography costs (issue 29): ML-DSA, SLH-DSA and ML-KEM keygen, sign, verify,",
        "encapsulate and decapsulate per CPU-second beside RSA, ECDSA, Ed25519 and X25519, through each provider that has them; TLS 1.3",
        "handshakes per server CPU-second and bytes each way, x25519 against the hybrid X25519MLKEM768 (BoringSSL); and, as a check,",
        "the cores each study's bound operation needs for a target rate today and after the migration."
      },
      footer = {
        "",
        "Examples:",
        "  pkibench study pqc --quick                                   # about 4 minutes",
        "  pkibench study pqc --quick --save-samples pqc-samples/        # raw FIPS 204/203 samples and check-pqc.py (dilithium-py, kyber-py)"
      })
  static final class Pqc extends StudyRun {
    @Override
    Study study() {
      return new PqcStudy();
    }
  }
}
