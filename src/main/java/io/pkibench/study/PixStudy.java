package io.pkibench.study;

import io.pkibench.keys.KeySource;
import io.pkibench.keys.remote.openbao.OpenBaoKeySpec;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Durations;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.report.FaultTimeline;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.workload.api.KeptAnswers;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Study 2 (docs/studies/pix.md): the PIX SPI's two JMH benchmarks with the client's private key on
 * a remote key-server cluster, two nodes weighted 50/50, each its own JVM. The mTLS 1.2 handshake
 * (two SSLEngines in memory, one RSASSA signature per handshake on the key server) and the SPI
 * message signature (XMLDSig of a random pacs.008, its one RSA operation on the key server), swept
 * over concurrency; then {@code random}, the cost of drawing a message, to subtract. Methodology as
 * the original's JMH: 5 forks (each series in a fresh JVM) × (5 warm-up, more until steady, + 5
 * measured iterations), each iteration {@code --duration} (10 s by default). The CPU measured is
 * the key servers' (both pids).
 */
public final class PixStudy implements Study {
  static final String NODE_1 = KeyServerNodes.NODE_1;
  public static final String HANDSHAKE = "mTLS 1.2 handshake";
  public static final String SPI = "SPI signature";
  public static final String RANDOM = "random (to subtract)";
  public static final String FAULT = "SPI signature through a node kill";
  public static final String FAULT_LEADER = "SPI signature through an OpenBao leader kill";

  /** An OpenBao cluster smaller than this has no quorum left once its leader is killed. */
  static final int RAFT_NODES = 3;

  /**
   * The same benchmark again at one level, charging the client's CPU: the other side of the
   * original's 1 : 2 estimate.
   */
  public static final String CLIENT_CPU = " · client CPU";

  static final int CLIENT_CPU_LEVEL = 16;

  /** How long a killed node stays down before it is started again, as the issue's fault. */
  static final Duration DOWN_FOR = Duration.ofSeconds(10);

  /** What the fault step measures after the restart, for the recovery to show. */
  static final Duration AFTER_RESTART = Duration.ofSeconds(15);

  static final Duration FAULT_WARMUP = Duration.ofSeconds(5);

  /**
   * {@code --fault kill-node@T}: the first key-server node SIGKILLed T into the fault step's
   * measured seconds, started again {@code downFor} later; {@code kill-leader@T}: the Raft leader
   * of the OpenBao cluster {@code --keys openbao:} names SIGKILLed, {@code serve openbao} starting
   * it again (its {@code --restart-after}, {@code downFor} by default). The step lasts T + {@code
   * downFor} + {@code afterRestart}.
   */
  public record Fault(Kind kind, Duration at, Duration downFor, Duration afterRestart) {
    public enum Kind {
      KILL_NODE("kill-node"),
      KILL_LEADER("kill-leader");

      final String word;

      Kind(String word) {
        this.word = word;
      }
    }

    public static Fault parse(String text) {
      if (text == null) return null;
      Kind kind = null;
      for (Kind k : Kind.values()) if (text.startsWith(k.word + "@")) kind = k;
      if (kind == null)
        throw new IllegalArgumentException(
            "--fault "
                + text
                + ": the faults are kill-node@TIME (a key-server node) and kill-leader@TIME (the Raft leader of the"
                + " OpenBao cluster --keys openbao: names), e.g. kill-node@30s");
      Duration at;
      try {
        at = Durations.parse(text.substring(kind.word.length() + 1));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("--fault " + text + ": " + e.getMessage());
      }
      if (at.compareTo(Duration.ofSeconds(3)) < 0 || at.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException(
            "--fault " + text + ": kill between 3s (to see the rate before) and 10m into the step");
      }
      return new Fault(kind, at, DOWN_FOR, AFTER_RESTART);
    }

    /** This fault in a step of other lengths (a test's short run). */
    public Fault lasting(Duration downFor, Duration afterRestart) {
      return new Fault(kind, at, downFor, afterRestart);
    }

    String text() {
      return kind.word + "@" + Durations.format(at);
    }
  }

  /** Why the original's rates are no yardstick for ours. */
  static final String THREE_MACHINES =
      "the original ran the client and each key server on an 8-core machine of its own and published no CPU use;"
          + " ours share this machine's cores, so ours over it would compare the machines, not the method";

  /** Why the original's 12 µs draw is shown but not set against ours. */
  static final String RANDOM_DRAW =
      "the original names its baseline 'picking the message' without saying how its pool was held, and ran"
          + " on another machine; ours picks one of a pool of messages generated beforehand, a few tens of nanoseconds, most of it the engine's own timing";

  private static final StudyInfo INFO =
      new StudyInfo(
          "pix",
          "mTLS handshakes and ISO 20022 SPI signatures with the client's key on a two-node key server (after Prodist PIX SPI JVM 2.0)",
          StudyRecord.Unit.OPS_PER_SECOND,
          new StudyRecord.Published(
              "Prodist PIX SPI JVM 2.0 benchmarks (docs/studies/pix.md)",
              "an 8-core client and two 8-core key servers; throughput linear to 8 threads, bending at 16, flat from 24; p99 under 50 ms",
              List.of(
                  new StudyRecord.Figure(HANDSHAKE, 2000, "flat from 24 threads", THREE_MACHINES),
                  new StudyRecord.Figure(SPI, 4000, "flat from 24 threads", THREE_MACHINES),
                  new StudyRecord.Figure(
                      RANDOM,
                      1e6 / 12,
                      "one thread: 12 µs per draw (JMH average time)",
                      RANDOM_DRAW)),
              null,
              KeyServerNodes.CONDITION,
              List.of()),
          Duration.ofSeconds(10));

  @Override
  public StudyInfo info() {
    return INFO;
  }

  private final Fault fault;

  /**
   * {@code --check-sizing}: the handshake and the SPI signature measured again with the nodes' CPU
   * limited; null without it.
   */
  private CheckSizing checkSizing;

  /**
   * {@code --core-ratio-sweep}: only the SPI signature, at each split of the cores; null without
   * it.
   */
  private CoreRatioSweep coreRatioSweep;

  /** {@code --save-samples}: where the SPI step keeps its first checked signature, or null. */
  private Path samples;

  /** {@code kill-leader}'s hook, made with the steps: what it saw is a finding. */
  private volatile OpenBaoLeaderKill leaderKill;

  public PixStudy() {
    this(null);
  }

  public PixStudy(Fault fault) {
    this.fault = fault;
  }

  /**
   * This study with {@code --check-sizing}: after every other step, the two sized benchmarks again
   * under CPU limits on both nodes together.
   */
  public PixStudy checkingSizing(CheckSizing check) {
    return with(check, coreRatioSweep, samples);
  }

  /** A copy of this study (the same fault) with these three options. */
  private PixStudy with(CheckSizing check, CoreRatioSweep sweep, Path samplesDir) {
    PixStudy s = new PixStudy(fault);
    s.checkSizing = check;
    s.coreRatioSweep = sweep;
    s.samples = samplesDir;
    return s;
  }

  /**
   * This study with {@code --save-samples DIR}: the SPI step keeps the first signature the key
   * servers made whose check passed, and the message it signed, for {@link #samples} to hand out.
   */
  public PixStudy savingSamplesIn(Path dir) {
    return with(checkSizing, coreRatioSweep, dir);
  }

  /**
   * This study with {@code --core-ratio-sweep}: in place of its other steps, the SPI signature at
   * each of the sweep's splits of the cores between client and key servers, and the ratio it shows.
   */
  public PixStudy sweepingCoreRatios(CoreRatioSweep sweep) {
    return with(checkSizing, sweep, samples);
  }

  /**
   * The sweep's one level, the same at every split: 8 workers per core of its largest split, at
   * least the client-CPU steps' 16, so that no split runs short of calls in flight.
   */
  int sweepWorkers() {
    return Math.max(CLIENT_CPU_LEVEL, 8 * coreRatioSweep.coresNeeded());
  }

  @Override
  public List<String> problems(StudyOptions options) {
    List<String> problems = new ArrayList<>(KeyServerNodes.problems(options));
    if (coreRatioSweep != null) {
      problems.addAll(coreRatioSweep.problems(options.cpus()));
      if (fault != null || checkSizing != null)
        problems.add(
            CoreRatioSweep.FLAG
                + " with "
                + (fault != null ? "--fault" : "--check-sizing")
                + ": the sweep runs only its own steps; run the other in a study of its own");
    }
    if (fault != null && fault.kind() == Fault.Kind.KILL_LEADER)
      problems.addAll(leaderProblems(options.keys()));
    if (checkSizing != null && problems.isEmpty())
      checkSizing.problem().ifPresent(problems::add); // it makes and removes a group
    return problems;
  }

  /**
   * kill-leader needs a leader to kill: an OpenBao cluster (Raft) holding the keys, of enough nodes
   * to elect another, on this machine (the study SIGKILLs a process of its own user).
   */
  private List<String> leaderProblems(String keys) {
    String flag = "--fault " + fault.text();
    if (!keys.startsWith(OpenBaoKeySpec.PREFIX))
      return List.of(
          flag
              + ": kills the Raft leader of the OpenBao cluster that holds the keys, and --keys "
              + keys
              + " has no leader; give --keys openbao:URL,URL,URL,token-file=F over serve openbao --nodes 3"
              + " (kill-node@TIME kills a key-server node instead)");
    OpenBaoKeySpec spec;
    try {
      spec = OpenBaoKeySpec.parse(keys);
    } catch (IllegalArgumentException e) {
      return List.of(e.getMessage());
    }
    List<String> problems = new ArrayList<>();
    if (spec.nodes().size() < RAFT_NODES)
      problems.add(
          flag
              + ": --keys names "
              + spec.nodes().size()
              + " OpenBao node(s); a leader killed leaves a quorum to elect another only in a cluster of "
              + RAFT_NODES
              + " or more: name every node, e.g. openbao:https://127.0.0.1:8200,https://127.0.0.1:8202,https://127.0.0.1:8204,token-file=F");
    for (URI node : spec.nodes()) {
      String host = node.getHost();
      if (!host.equals("127.0.0.1") && !host.equals("localhost") && !host.equals("[::1]"))
        problems.add(
            flag
                + ": "
                + node
                + " is not on this machine's loopback; the study kills the leader's process, so every node must run here");
    }
    return problems;
  }

  @Override
  public List<StudyRecord.SizingCheck> sizingChecks(RunResult result, StudyOptions options) {
    return checkSizing == null ? List.of() : CheckSizing.of(result, List.of(HANDSHAKE, SPI));
  }

  @Override
  public List<String> findings(RunResult result, StudyOptions options) {
    List<String> findings = new ArrayList<>();
    if (coreRatioSweep != null) findings.add(coreRatioSweep.answer(result, SPI));
    OpenBaoLeaderKill kill = leaderKill;
    if (kill != null) {
      findings.addAll(kill.lines());
      for (FaultTimeline.Summary s : FaultTimeline.of(result)) {
        if (!s.step().equals(FAULT_LEADER)) continue;
        findings.add(
            "fault: "
                + String.format(Locale.ROOT, "%,d", s.failedCalls())
                + " calls failed through the leader kill; "
                + (s.dipAt() == null
                    ? "the rate never dipped"
                    : s.recoveredAfterSeconds() == null
                        ? "the rate was not back (90% of the rate before, no failed call) within the step"
                        : "the rate was back (90% of the rate before, no failed call) "
                            + s.recoveredAfterSeconds()
                            + " s after the dip began"));
      }
    }
    return findings;
  }

  @Override
  public List<ServiceSpec> services(StudyOptions options) {
    return KeyServerNodes.services(options);
  }

  @Override
  public List<Step> steps(StudyOptions options, RunningServices services) {
    List<Integer> levels =
        options.quick() ? List.of(1, 4, 16, 64) : List.of(1, 2, 4, 8, 16, 24, 32, 64);
    Iterations warmup = options.warmup("1x500ms", 5);
    Iterations measure = options.iterations("3x2s", 5);
    int series = options.quick() ? 1 : 5;
    String remote = KeyServerNodes.remoteKeys(services);
    if (coreRatioSweep != null) {
      Step spi =
          asJmh(
              Step.of(
                  SPI,
                  plan(
                      new WorkloadSpec("spi-sign", Map.of(), remote),
                      List.of(sweepWorkers()),
                      warmup,
                      measure,
                      series)),
              options);
      return coreRatioSweep.steps(spi, options.cpus());
    }
    List<Step> steps = new ArrayList<>();
    steps.add(
        asJmh(
            Step.of(
                HANDSHAKE,
                plan(
                    new WorkloadSpec(
                        "tls-handshake",
                        Map.of(
                            "protocol",
                            "TLSv1.2",
                            "mutual",
                            "true",
                            "keyalg",
                            "rsa2048",
                            "client-signature",
                            "rsa_pkcs1_sha256"),
                        remote),
                    levels,
                    warmup,
                    measure,
                    series)),
            options));
    steps.add(
        asJmh(
            Step.of(
                SPI,
                plan(
                    new WorkloadSpec(
                        "spi-sign",
                        samples == null
                            ? Map.of()
                            : Map.of(
                                KeptAnswers.PARAM,
                                StudySamples.answers(samples, PixSamples.SPI_TOKEN).toString()),
                        remote),
                    levels,
                    warmup,
                    measure,
                    series)),
            options));
    // The draw happens in the client, so its cost is the client's: on the idle key servers it read
    // as millions of ops per CPU-second.
    steps.add(
        asJmh(
            Step.of(
                RANDOM,
                plan(
                        new WorkloadSpec("random", Map.of(), "software"),
                        List.of(1, 4),
                        warmup,
                        measure,
                        series)
                    .toBuilder()
                    .cpu("client")
                    .build()),
            options));
    for (Step s : List.copyOf(steps.subList(0, 2))) {
      Plan p = s.plan();
      steps.add(
          Step.of(
              s.label() + CLIENT_CPU,
              p.toBuilder()
                  .concurrency(List.of(CLIENT_CPU_LEVEL))
                  .series(1)
                  .cpu("client")
                  .verifySample(CLIENT_CPU_VERIFY_SAMPLE)
                  .build()));
    }
    if (fault != null) {
      // One-second iterations: each is a second of the timeline, with its own successes and
      // failures.
      long seconds = fault.at().plus(fault.downFor()).plus(fault.afterRestart()).toSeconds();
      Plan faultPlan =
          plan(
                  new WorkloadSpec("spi-sign", Map.of(), remote),
                  List.of(16),
                  Iterations.parse("1x" + FAULT_WARMUP.toSeconds() + "s"),
                  Iterations.parse(seconds + "x1s"),
                  1)
              .toBuilder()
              // Checks sampled as in the client-CPU steps: on shared cores, a check of every
              // signature slowed the killed node's restart past the step's end.
              .verifySample(CLIENT_CPU_VERIFY_SAMPLE)
              .build();
      if (fault.kind() == Fault.Kind.KILL_NODE) {
        steps.add(
            Step.of(FAULT, faultPlan)
                .before(
                    new ServiceKill(
                        NODE_1,
                        FAULT_WARMUP.plus(fault.at()),
                        fault.downFor(),
                        false,
                        "SIGKILL "
                            + NODE_1
                            + " about "
                            + fault.at().toSeconds()
                            + " s into the measured seconds, start it again "
                            + fault.downFor().toSeconds()
                            + " s later")));
      } else {
        leaderKill =
            new OpenBaoLeaderKill(
                OpenBaoKeySpec.parse(options.keys()),
                options.pkiDir(),
                FAULT_WARMUP,
                fault.at(),
                fault.downFor().plus(fault.afterRestart()));
        steps.add(Step.of(FAULT_LEADER, faultPlan).before(leaderKill));
      }
    }
    if (checkSizing != null) {
      // Last: every step before them measures the nodes unlimited. Each at its sweep's peak level,
      // both nodes under one limit.
      for (Step sized : List.copyOf(steps.subList(0, 2))) steps.addAll(checkSizing.steps(sized));
    }
    return steps;
  }

  /**
   * The original's JMH runs forked a fresh JVM for each of its 5 series; a full run does the same,
   * a quick one (1 series) stays here.
   */
  private static Step asJmh(Step step, StudyOptions options) {
    return options.quick() ? step : step.inForks();
  }

  /**
   * The steps that charge the client's CPU check one signature in this many: each check is an
   * XMLDSig validation in the client's JVM, as dear as the signing it would be charged with.
   */
  static final int CLIENT_CPU_VERIFY_SAMPLE = 100;

  private static Plan plan(
      WorkloadSpec spec, List<Integer> levels, Iterations warmup, Iterations measure, int series) {
    // Platform threads, as JMH's; the key servers' CPU (both pids) is what each level is charged.
    // Every SPI signature checked in the client, whose CPU these steps do not charge.
    return Plan.of(List.of(spec))
        .concurrency(levels)
        .warmup(warmup)
        .measure(measure)
        .series(series)
        .verify(true)
        .cpu("services")
        .build();
  }

  /** See {@link PixSamples}: the run's own first checked SPI signature, and the chain. */
  @Override
  public List<Sample> samples(Path dir, TestPki pki, KeySource keys, InstantSource clock)
      throws Exception {
    return PixSamples.samples(dir, pki, keys);
  }

  @Override
  public List<String> notes(StudyOptions options) {
    List<String> notes = new ArrayList<>();
    if (coreRatioSweep != null) {
      notes.add(coreRatioSweep.note(sweepWorkers()));
      if (options.quick())
        notes.add(
            "quick: 1 series per split, "
                + options.iterations("3x2s", 5)
                + " measured after a warm-up until steady: a rough spread, often inconclusive; a full run before quoting a ratio");
      return notes;
    }
    notes.add(
        (options.cpus().isShared()
                ? "the client and both key-server nodes share this machine's cores"
                : "both key-server nodes share CPU "
                    + options.cpus().services()
                    + ", the client CPU "
                    + options.cpus().client())
            + "; the original ran them on three 8-core machines");
    notes.add(
        "the CPU per operation is the key servers' (both pids), except in the steps named '"
            + CLIENT_CPU.strip()
            + "', which charge the client's JVM at "
            + CLIENT_CPU_LEVEL
            + " threads, and random, which draws a message in the client (the draw alone, as the original's baseline): the client's cost to"
            + " subtract from the SPI signature");
    notes.add(
        "every SPI signature made with the key servers' key checked over the message sent (XMLDSig, the"
            + " signer's certificate; ok counts the verified), in the client, whose CPU the key-server steps do"
            + " not charge; the '"
            + CLIENT_CPU.strip()
            + "' steps and the fault's check one in "
            + CLIENT_CPU_VERIFY_SAMPLE
            + " (their ok column V/S), so that the checks stay out of the client's figure; a handshake"
            + " needs the server engine to accept the remote key's CertificateVerify, checked by TLS itself");
    if (options.quick())
      notes.add(
          "quick: 1 series per level, warmed half a second at a time until steady (at most 4 s; a level that never steadied is flagged and not fitted), then 3 × 2 s measured; the original's: --duration 10s (5 series)");
    if (checkSizing != null) notes.add(CheckSizing.note());
    if (fault != null && fault.kind() == Fault.Kind.KILL_LEADER) {
      notes.add(
          "fault: the OpenBao Raft leader SIGKILLed about "
              + fault.at().toSeconds()
              + " s into the last step's measured seconds (found by sys/leader, its process by its port), started again"
              + " by serve openbao after its --restart-after; the key servers' transit calls move to the other nodes;"
              + " calls that fail (in flight to the leader, or while the cluster elects another) are counted, not retried");
    } else if (fault != null) {
      notes.add(
          "fault: "
              + NODE_1
              + " SIGKILLed about "
              + fault.at().toSeconds()
              + " s into the last step's measured seconds and started again "
              + fault.downFor().toSeconds()
              + " s later; calls in flight to it fail and are counted, not retried");
    }
    return notes;
  }
}
