package io.pkibench.cli;

import io.pkibench.engine.IterationStarts;
import io.pkibench.engine.SharedBoundaries;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Durations;
import io.pkibench.plan.Plan;
import io.pkibench.plan.Segment;
import io.pkibench.results.AgentRecord;
import io.pkibench.session.HttpDateClock;
import io.pkibench.session.RunSession;
import io.pkibench.workload.api.ParamSpec;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import picocli.CommandLine.Option;

/**
 * A plan split over agents: {@code --segment I/N} (this process is agent I of N), {@code
 * --start-at}/{@code --start-in} (every agent's iterations on one wall-clock timetable), {@code
 * --agents N --local} (N agent processes here, merged).
 */
final class AgentOptions {
  @Option(
      names = "--segment",
      paramLabel = "I/N",
      description =
          "run agent I's share of a plan split over N agents (closed loop: its share of each level's workers; open loop: every N-th"
              + " arrival of the timetable, from the I-th); merge the N results with 'pkibench merge'")
  String segment;

  @Option(
      names = "--start-at",
      paramLabel = "TIME",
      description =
          "start the warm-up at this UTC time (e.g. 2026-12-01T10:00:00Z) and every iteration on a timetable all agents share")
  String startAt;

  @Option(
      names = "--start-in",
      paramLabel = "DURATION",
      description = "as --start-at, that long from now (e.g. 30s)")
  String startIn;

  @Option(
      names = "--agents",
      paramLabel = "N",
      description =
          "with --local: run the plan as N agent processes on this machine, then merge their results")
  Integer agents;

  @Option(
      names = "--local",
      description = "with --agents: the agents are processes on this machine")
  boolean local;

  @Option(
      names = "--allow-missing",
      description =
          "with --agents: merge the agents that finished when one did not, the result saying which share is absent")
  boolean allowMissing;

  /**
   * Set by {@code --agents N --local} on each agent it starts: the start time comes in this file
   * once all are ready.
   */
  @Option(names = "--start-signal", paramLabel = "FILE", hidden = true)
  Path startSignal;

  /**
   * Most agents --local starts: each is a JVM, and past a few they measure this machine's
   * scheduler.
   */
  static final int MAX_LOCAL_AGENTS = 64;

  /**
   * How long local agents may take to start their JVMs and set up their first series before the
   * others start without them.
   */
  static final Duration LOCAL_READY_WITHIN = Duration.ofMinutes(3);

  /** Every problem with these flags for {@code plan}, each naming the flag and the fix. */
  void check(List<String> problems, Plan plan, boolean fork, InstantSource clock) {
    Segment s = null;
    if (segment != null) {
      try {
        s = Segment.parse(segment);
        problems.addAll(s.problems(plan.load()));
      } catch (IllegalArgumentException e) {
        problems.add("--segment: " + e.getMessage());
      }
    }
    problems.addAll(startProblems(startAt, startIn, clock));
    boolean split = s != null && !s.whole() || agents != null;
    if ((split || startAt != null || startIn != null) && plan.warmup().untilSteady()) {
      problems.add(
          "--warmup "
              + plan.warmup()
              + ": a warm-up until steady stops when each agent sees fit, and the agents' iterations would no"
              + " longer match; give a fixed count, e.g. --warmup "
              + plan.warmup().count()
              + "x"
              + Durations.format(plan.warmup().each()));
    }
    if (fork && (startAt != null || startIn != null || agents != null)) {
      problems.add(
          "--fork with a shared start: a forked series' JVM starts in its own time; leave out --fork");
    }
    if (agents != null) {
      if (!local)
        problems.add(
            "--agents "
                + agents
                + ": only --local agents are started by pkibench; on a cluster, run one --segment per pod (deploy/k8s)");
      if (segment != null)
        problems.add(
            "--agents and --segment: --agents gives each agent its segment; leave out --segment");
      if (agents < 1 || agents > MAX_LOCAL_AGENTS)
        problems.add("--agents: give 1 to " + MAX_LOCAL_AGENTS + " agents");
      else
        problems.addAll(
            new Segment(agents, agents)
                .problems(plan.load()).stream()
                    .map(p -> p.replace("--segment " + agents + "/" + agents, "--agents " + agents))
                    .toList());
    } else if (local) {
      problems.add("--local: say how many agents, e.g. --agents 4 --local");
    }
    if (allowMissing && agents == null)
      problems.add(
          "--allow-missing: only with --agents N --local (else give it to 'pkibench merge')");
  }

  /**
   * Every problem with {@code --start-at}/{@code --start-in} (either may be null): {@code run}'s
   * and {@code study}'s.
   */
  static List<String> startProblems(String startAt, String startIn, InstantSource clock) {
    FlagProblems problems = new FlagProblems();
    if (startAt != null && startIn != null)
      problems.add("--start-at and --start-in: give one of them");
    if (startAt != null) {
      try {
        Instant at = Instant.parse(startAt);
        if (at.isBefore(clock.instant())) {
          problems.add(
              "--start-at "
                  + startAt
                  + ": that time has passed (now "
                  + clock.instant()
                  + "); give one to come, or --start-in 30s");
        }
      } catch (DateTimeParseException e) {
        problems.add(
            "--start-at " + startAt + ": not a UTC time; write it like 2026-12-01T10:00:00Z");
      }
    }
    if (startIn != null) problems.duration("--start-in", startIn, null);
    return problems.list();
  }

  boolean localAgents() {
    return agents != null;
  }

  /** When the first iteration starts, or null when each starts as soon as it can. */
  Instant startAt(InstantSource clock) {
    return startAt(startAt, startIn, clock);
  }

  /**
   * The shared start {@code --start-at} or {@code --start-in} give (checked by {@link
   * #startProblems}), or null for none.
   */
  static Instant startAt(String startAt, String startIn, InstantSource clock) {
    if (startAt != null) return Instant.parse(startAt);
    if (startIn != null) return clock.instant().plus(Durations.parse(startIn));
    return null;
  }

  /**
   * Makes {@code session} this agent's: its segment, the shared timetable, and the agent's record
   * with its host and its clock against {@code target} (null: no HTTP target to compare with).
   * Nothing to do for a plain run.
   */
  void configure(RunSession session, InstantSource clock, URI target, Supplier<SSLContext> tls) {
    Instant at = startAt(clock);
    if (segment == null && at == null && startSignal == null) return;
    Segment s = segment == null ? Segment.WHOLE : Segment.parse(segment);
    AgentRecord.Clock offset = clockAgainst(target, clock, tls);
    IterationStarts starts =
        startSignal != null
            ? new SharedBoundaries(clock, StartSignal.agent(startSignal, s.index(), clock))
            : at == null ? IterationStarts.NOW : new SharedBoundaries(clock, at);
    session.asAgent(s, starts, new AgentRecord(s, host(), at, offset, null, null));
  }

  /**
   * This host's clock against {@code target}'s HTTP Date, or why it was not measured (null: no HTTP
   * target).
   */
  static AgentRecord.Clock clockAgainst(URI target, InstantSource clock, Supplier<SSLContext> tls) {
    return target == null
        ? AgentRecord.Clock.notMeasured(
            "no HTTP target to compare this host's clock with (--target)",
            HttpDateClock.BOUND_MILLIS)
        : HttpDateClock.measure(
            target, "https".equalsIgnoreCase(target.getScheme()) ? tls.get() : null, clock);
  }

  /**
   * This machine's name (a pod's in Kubernetes): local agents share one, and their cores are
   * counted once.
   */
  static String host() {
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (IOException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  /**
   * The target an agent's clock is compared with: the first workload's HTTP target, or null when it
   * calls none.
   */
  static URI clockReference(Plan plan) {
    return plan.workloads().stream()
        .map(w -> w.params().getOrDefault(ParamSpec.TARGET, ""))
        .filter(t -> t.startsWith("http://") || t.startsWith("https://"))
        .findFirst()
        .map(URI::create)
        .orElse(null);
  }

  /**
   * For an https target: the test PKI's root when there is one here (the reference servers'
   * certificates chain to it), else the JDK's trust.
   */
  static SSLContext testPkiTrust(Path pkiDir) {
    try {
      if (!Files.exists(pkiDir.resolve("pki.json"))) return SSLContext.getDefault();
      return TlsContexts.trusting(TestPki.open(pkiDir).certificate("root-ca"));
    } catch (Exception e) {
      return null; // the JDK's trust; the clock check's note says so if the target's certificate is
      // not trusted by it
    }
  }
}
