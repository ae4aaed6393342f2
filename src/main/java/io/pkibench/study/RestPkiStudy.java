package io.pkibench.study;

import io.pkibench.keys.KeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.MixSpec;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.report.ServiceComparison;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.workload.api.ParamSpec;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Study 1 (docs/studies/restpki.md): the signing service sized by transaction type, each type run
 * alone. The service runs as its own JVM and its CPU is measured by pid. For each type a probe
 * sweep finds the thread count that drives the service's CPU to 90% or stops gaining throughput;
 * then that thread count is measured for the study's duration. With {@code restartPerType} the
 * service is restarted before each type, as the original restarted between tests.
 */
public final class RestPkiStudy implements Study {
  /**
   * The share of the service's cores a probe seeks: the original's "CPU near 100%" condition, short
   * of the last 10% (the level chooser's target, {@link SaturatingLevelChooser}).
   */
  static final double TARGET_UTILISATION = SaturatingLevelChooser.TARGET_UTILISATION;

  /**
   * Why the original's figures are not a yardstick for ours: its stress tool sent every document
   * over a slow client link (the study names it), where ours runs on loopback, so ours over it
   * would measure the link, not the service.
   */
  static final String LINK_BOUND =
      "the original was link-bound: its stress tool sent the 137 KB document over a 50 Mbps down / 6 Mbps up"
          + " client link (the study names it; CAdES averaged 12.9 s per operation at 40 threads), where ours runs on loopback";

  /**
   * The original's unit: operations per minute with the service's 2 cores near 100%. Ours in it:
   * operations per service CPU-second × 60 × 2, i.e. what our service would do with 2 cores busy,
   * scaled linearly from the CPU it used.
   */
  static final StudyRecord.Unit SEED_UNIT =
      new StudyRecord.Unit(
          "ops/min at 100% of 2 service cores", 120, StudyRecord.Unit.PER_SERVICE_CPU_SECOND);

  private static final StudyInfo INFO =
      new StudyInfo(
          "restpki",
          "a two-phase signing service sized by transaction type, each alone (after Lacuna Rest PKI 1.13.2)",
          StudyRecord.Unit.OPS_PER_MINUTE,
          new StudyRecord.Published(
              "Lacuna Rest PKI 1.13.2 stress test (docs/studies/restpki.md)",
              "the service on a 2-core VM (E5-2660 at 2.2 GHz); the stress tool on another machine over a slow client link; one certificate, CRLs fetched once",
              List.of(
                  new StudyRecord.Figure(
                      "Authentication", 750, "40 threads, CPU near 100%", LINK_BOUND),
                  new StudyRecord.Figure("CAdES", 183, "40 threads, CPU near 100%", LINK_BOUND),
                  new StudyRecord.Figure("PAdES", 170, "20 threads, CPU near 100%", LINK_BOUND)),
              SEED_UNIT,
              new StudyRecord.Condition("the service's CPU near 100%", TARGET_UTILISATION),
              List.of()),
          StudyInfo.DEFAULT_DURATION);

  @Override
  public StudyInfo info() {
    return INFO;
  }

  /** A transaction type: the original's name for it and the workload that drives it. */
  public record Type(String label, String workload) {}

  public static final List<Type> TYPES =
      List.of(
          new Type("Authentication", "http:auth"),
          new Type("CAdES", "http:cades"),
          new Type("CAdES-T", "http:cades-t"),
          new Type("PAdES", "http:pades"),
          new Type("PAdES-T", "http:pades-t"),
          new Type("Timestamp", "http:timestamp"));
  static final String SIGNER = "signer";

  static final String DSS = "dss";

  /** Where DSS's demonstration mounts its REST services under a served DSS's root. */
  static final String DSS_REST = "/services/rest";

  /** The side-by-side grid's columns are services. */
  public static final String SERVICE_COLUMNS = ServiceComparison.SERVICE_COLUMNS;

  /**
   * A service the study measures: the built-in signer, DSS served by the study ({@code dss}), or a
   * DSS already running elsewhere ({@code dss:URL}, its REST root); the built-in signer running
   * elsewhere ({@code --target URL}) has its URL too. Each is measured alone, in turn, with the
   * same types and levels.
   */
  public record Service(String kind, String url) {
    public static final String BUILTIN = "builtin";

    /** As the table names it: builtin, dss, or dss@HOST:PORT for one running elsewhere. */
    public String label() {
      if (url == null) return kind;
      URI u = URI.create(url);
      return kind + "@" + u.getHost() + (u.getPort() == -1 ? "" : ":" + u.getPort());
    }

    boolean builtin() {
      return kind.equals(BUILTIN);
    }

    /** {@code builtin,dss,dss:URL}: every problem named, with the fix. */
    public static List<Service> parse(String flag, List<String> problems) {
      List<Service> services = new ArrayList<>();
      for (String part : flag.split(",")) {
        String p = part.strip();
        if (p.equals(BUILTIN) || p.equals(DSS)) {
          services.add(new Service(p, null));
        } else if (p.startsWith(DSS + ":")) {
          String url = p.substring(DSS.length() + 1);
          try {
            URI u = URI.create(url);
            if ((!"http".equals(u.getScheme()) && !"https".equals(u.getScheme()))
                || u.getHost() == null) throw new IllegalArgumentException("not http(s)");
            services.add(new Service(DSS, url));
          } catch (IllegalArgumentException e) {
            problems.add(
                "--service "
                    + p
                    + ": give DSS's REST root as dss:http(s)://HOST:PORT/services/rest");
          }
        } else {
          problems.add(
              "--service "
                  + p
                  + ": use builtin, dss (DSS served by the study) or dss:URL (a DSS running elsewhere)");
        }
      }
      if (services.stream().map(Service::label).distinct().count() != services.size())
        problems.add("--service " + flag + ": a service is named twice");
      if (services.isEmpty() && problems.isEmpty())
        problems.add("--service: name at least one, e.g. builtin,dss");
      return services;
    }
  }

  private final boolean restartPerType;
  private final List<Service> services;
  private final Path trust;
  private final List<String> flagProblems;

  /**
   * {@code --mix}: the types sized together as one mix, each member named by its type's token;
   * empty for none.
   */
  private final List<MixSpec.Member> mix;

  /** {@code --types}: the types measured, in the study's order (default: all). */
  private List<Type> types = TYPES;

  /**
   * {@code --check-sizing}: each type measured again under CPU limits, the sizing checked; null
   * without it.
   */
  private CheckSizing checkSizing;

  /** {@code --save-samples}: where the service's checked answers are kept, or null. */
  private Path samples;

  public RestPkiStudy(boolean restartPerType) {
    this(restartPerType, List.of(new Service(Service.BUILTIN, null)), null);
  }

  /** {@code trust}: the CA an https {@code dss:URL} chains to (null: the test PKI's root). */
  public RestPkiStudy(boolean restartPerType, List<Service> services, Path trust) {
    this(restartPerType, services, trust, List.of());
  }

  /**
   * {@code flagProblems}: what parsing {@code --service} found, reported with every other problem
   * by {@link #problems}.
   */
  public RestPkiStudy(
      boolean restartPerType, List<Service> services, Path trust, List<String> flagProblems) {
    this(restartPerType, services, trust, flagProblems, List.of());
  }

  /**
   * {@code mix}: {@code --mix}'s members, named by {@link #token} of their types, sized together
   * after the types alone.
   */
  public RestPkiStudy(
      boolean restartPerType,
      List<Service> services,
      Path trust,
      List<String> flagProblems,
      List<MixSpec.Member> mix) {
    this.restartPerType = restartPerType;
    this.services = List.copyOf(services);
    this.trust = trust;
    this.flagProblems = List.copyOf(flagProblems);
    this.mix = List.copyOf(mix);
  }

  /**
   * This study measuring only {@code only} of its types (in the study's order); none measured is
   * refused by {@link #problems}.
   */
  public RestPkiStudy only(List<Type> only) {
    RestPkiStudy s = new RestPkiStudy(restartPerType, services, trust, flagProblems, mix);
    s.types = TYPES.stream().filter(only::contains).toList();
    s.checkSizing = checkSizing;
    s.samples = samples;
    return s;
  }

  /** This study keeping, for {@code --save-samples DIR}, the service's own answers as samples. */
  public RestPkiStudy savingSamplesIn(Path dir) {
    RestPkiStudy s = only(types);
    s.samples = dir;
    return s;
  }

  /**
   * This study with {@code --check-sizing}: after the types (and the mix), each type alone again
   * under CPU limits.
   */
  public RestPkiStudy checkingSizing(CheckSizing check) {
    RestPkiStudy s = only(types);
    s.checkSizing = check;
    return s;
  }

  /**
   * A type as {@code --mix} names it: its workload without the {@code http:} prefix (auth, cades,
   * cades-t, pades, pades-t, timestamp).
   */
  public static String token(Type type) {
    return type.workload().substring(type.workload().indexOf(':') + 1);
  }

  /** The mix step's row label, e.g. "Mix cades=6,pades=3,timestamp=1". */
  String mixLabel() {
    return "Mix "
        + String.join(",", mix.stream().map(m -> m.name() + "=" + weightText(m.weight())).toList());
  }

  /** A weight as typed, without a trailing ".0". */
  private static String weightText(double w) {
    return w == Math.rint(w) ? Long.toString((long) w) : Double.toString(w);
  }

  private static Type type(String token) {
    return TYPES.stream().filter(t -> token(t).equals(token)).findFirst().orElse(null);
  }

  /**
   * Why nothing answers at {@code url} now (a TCP connection refused or timed out), or empty:
   * checked before anything starts.
   */
  static Optional<String> unreachable(String url) {
    URI u = URI.create(url);
    int port = u.getPort() != -1 ? u.getPort() : "https".equals(u.getScheme()) ? 443 : 80;
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(u.getHost(), port), 5000);
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of(
          "cannot connect to "
              + u.getHost()
              + ":"
              + port
              + " ("
              + e.getMessage()
              + "); is the service running there?");
    }
  }

  /** DSS's counterpart of each type, or why it has none. */
  static String dssWorkload(Type type) {
    return switch (type.label()) {
      case "CAdES" -> "dss:cades";
      case "CAdES-T" -> "dss:cades-t";
      case "PAdES" -> "dss:pades";
      case "PAdES-T" -> "dss:pades-t";
      default -> null;
    };
  }

  static String dssHasNone(Type type) {
    return type.label().equals("Authentication")
        ? "DSS has no certificate login"
        : "DSS has no RFC 3161 endpoint";
  }

  @Override
  public List<String> problems(StudyOptions options) {
    List<String> problems = new ArrayList<>(flagProblems);
    if (types.isEmpty() && flagProblems.isEmpty())
      problems.add("--types: name at least one type, e.g. --types cades");
    if (!mix.isEmpty()) {
      problems.addAll(new MixSpec(mix, 1).problems("--mix"));
      for (MixSpec.Member m : mix) {
        if (type(m.name()) == null) {
          problems.add(
              "--mix "
                  + m.name()
                  + ": not a transaction type of restpki; use "
                  + String.join(", ", TYPES.stream().map(RestPkiStudy::token).toList()));
        }
      }
      if (services.stream().noneMatch(Service::builtin))
        problems.add("--mix: sizes the built-in signer's mix; add builtin to --service");
    }
    if (options.duration().compareTo(Duration.ofSeconds(5)) < 0)
      problems.add("--duration: measure each type at least 5s, e.g. --duration 1m");
    if (trust != null && !Files.isReadable(trust))
      problems.add(
          "--trust "
              + trust
              + ": no such readable file; give the CA certificate (PEM) DSS's https address chains to");
    if (trust != null && services.stream().noneMatch(s -> s.url() != null))
      problems.add(
          "--trust: only for an outside service, --service dss:https://HOST/services/rest");
    if (checkSizing != null) {
      if (services.size() != 1 || !services.get(0).builtin() || services.get(0).url() != null) {
        problems.add(
            "--check-sizing: limits the CPU of the built-in signer the study starts on this machine; leave out --service and --target");
      } else if (problems.isEmpty()) {
        checkSizing
            .problem()
            .ifPresent(
                problems::add); // it makes and removes a group: only when nothing else is wrong
      }
    }
    for (Service service : services) {
      if (service.url() != null) {
        unreachable(service.url())
            .ifPresent(
                why ->
                    problems.add(
                        (service.builtin() ? "--target " : "--service dss:")
                            + service.url()
                            + ": "
                            + why));
      }
    }
    return problems;
  }

  @Override
  public List<ServiceSpec> services(StudyOptions options) {
    List<ServiceSpec> specs = new ArrayList<>();
    for (Service service : services) {
      if (service.url() != null) continue; // running elsewhere: nothing to start
      if (service.builtin()) {
        List<String> args =
            new ArrayList<>(
                List.of("signer", "--pki", options.pkiDir().toString(), "--keys", options.keys()));
        if (options.pinFile() != null)
          args.addAll(List.of("--pin-file", options.pinFile().toString()));
        specs.add(new ServiceSpec(SIGNER, args, "https"));
      } else {
        // DSS's server-signing token holds key material: its keys (TSA, server signing) stay
        // software ones.
        String keys = options.keys().startsWith("software") ? options.keys() : "software";
        specs.add(
            new ServiceSpec(
                DSS, List.of("dss", "--pki", options.pkiDir().toString(), "--keys", keys), "http"));
      }
    }
    return specs;
  }

  @Override
  public List<Step> steps(StudyOptions options, RunningServices services) {
    List<Integer> probeLevels =
        options.quick() ? List.of(2, 8, 32) : List.of(1, 2, 4, 8, 16, 32, 64);
    Iterations probeEach = options.iterations("1x1s", 1, Duration.ofSeconds(5));
    Duration probeWarmEach = options.iterations("1x500ms", 1, probeEach.each()).each();
    // --duration is the measured time per type, in five iterations, as the original's runs; quick
    // keeps
    // three, so that a service still warming up can be told apart from noise.
    long seconds = Math.max(5, options.duration().toSeconds());
    Iterations warmup = options.warmup("1x500ms", 1, Duration.ofSeconds(Math.max(5, seconds / 10)));
    Iterations measure =
        options.iterations("3x3s", 5, Duration.ofSeconds(Math.max(1, seconds / 5)));
    List<Step> steps = new ArrayList<>();
    for (Service service : this.services) {
      for (Type type : types) {
        String label = label(type, service);
        String workload = service.builtin() ? type.workload() : dssWorkload(type);
        if (workload == null) {
          steps.add(Step.notApplicable(label, dssHasNone(type)));
          continue;
        }
        Map<String, String> params = new LinkedHashMap<>();
        params.put(ParamSpec.TARGET, target(service, services));
        if (!service.builtin() && trust != null) params.put("trust", trust.toString());
        // CAdES signs the same 137 KB PDF as PAdES, on every service: the original signed one
        // document throughout.
        if (workload.startsWith("http:cades") || workload.startsWith("dss:cades"))
          params.put("document", "pdf");
        if (samples != null && service == this.services.get(0) && StudySamples.kept(workload))
          params.put("keep-answer", StudySamples.answers(samples, token(type)).toString());
        WorkloadSpec spec = new WorkloadSpec(workload, params, options.keys());
        String cpu = cpu(service);
        // Each probed level warms until steady too: a probe of a cold service reads the JIT's
        // progress as the level's
        // (2 threads at 0.9 ops/s, then 32 "still gaining"), and chooses by it.
        Plan probe =
            plan(
                spec,
                probeLevels,
                new Iterations(0, probeWarmEach, StudyOptions.QUICK_WARMUP_CAP),
                probeEach,
                cpu);
        Step step =
            Step.of(label, plan(spec, List.of(1), warmup, measure, cpu))
                .probedBy(probe, SaturatingLevelChooser.INSTANCE);
        if (restartPerType && !steps.isEmpty()) step = step.before(StepHook.restartServices());
        steps.add(step);
      }
    }
    if (!mix.isEmpty()) {
      // The types together, as the service sees them at once: one pool, one JIT, one heap for all.
      // Probed and measured
      // as each type alone was, so its row reads beside theirs in the same unit.
      Service builtin = this.services.stream().filter(Service::builtin).findFirst().orElseThrow();
      List<MixSpec.Member> members = new ArrayList<>();
      for (MixSpec.Member m : mix) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put(ParamSpec.TARGET, target(builtin, services));
        if (type(m.name()).workload().startsWith("http:cades")) params.put("document", "pdf");
        members.add(new MixSpec.Member(type(m.name()).workload(), m.name(), m.weight(), params));
      }
      WorkloadSpec spec =
          new WorkloadSpec("mix", Map.of(), options.keys(), new MixSpec(members, 1));
      Plan probe =
          plan(
              spec,
              probeLevels,
              new Iterations(0, probeWarmEach, StudyOptions.QUICK_WARMUP_CAP),
              probeEach,
              cpu(builtin));
      Step step =
          Step.of(mixLabel(), plan(spec, List.of(1), warmup, measure, cpu(builtin)))
              .probedBy(probe, SaturatingLevelChooser.INSTANCE);
      if (restartPerType && !steps.isEmpty()) step = step.before(StepHook.restartServices());
      steps.add(step);
    }
    if (checkSizing != null) {
      // Last, after the mix too: every step before them measures the service unlimited.
      for (Step sized : List.copyOf(steps)) {
        if (sized.plan() != null && !sized.label().equals(mixLabel()))
          steps.addAll(checkSizing.steps(sized));
      }
    }
    return steps;
  }

  @Override
  public List<StudyRecord.SizingCheck> sizingChecks(RunResult result, StudyOptions options) {
    if (checkSizing == null) return List.of();
    return CheckSizing.of(result, types.stream().map(t -> label(t, services.get(0))).toList());
  }

  /**
   * Every answer of the service checked against what was sent (the table's ok column counts the
   * checked ones): the checks run in the client's JVM, whose CPU the study does not measure.
   */
  private static Plan plan(
      WorkloadSpec spec, List<Integer> levels, Iterations warmup, Iterations measure, String cpu) {
    return Plan.of(List.of(spec))
        .concurrency(levels)
        .warmup(warmup)
        .measure(measure)
        .verify(true)
        .cpu(cpu)
        .build();
  }

  /**
   * A type's row: its original name alone when the built-in service is the only one (as before),
   * else with the service.
   */
  String label(Type type, Service service) {
    return services.size() == 1 && service.builtin()
        ? type.label()
        : type.label() + " [" + service.label() + "]";
  }

  private static String target(Service service, RunningServices running) {
    if (service.url() != null) return service.url();
    return service.builtin() ? running.url(SIGNER) : running.url(DSS) + DSS_REST;
  }

  /** Each step charges its own service's pid; a service running elsewhere has none here. */
  private String cpu(Service service) {
    if (service.url() != null) return RunningServices.NO_CPU;
    if (services.size() == 1) return "services";
    return "service:" + (service.builtin() ? SIGNER : DSS);
  }

  /**
   * Types by services, so that the report can set the services side by side; none for the built-in
   * service alone.
   */
  @Override
  public StudyRecord.Grid grid(StudyOptions options) {
    if (services.size() == 1 && services.get(0).builtin()) return null;
    List<StudyRecord.Cell> cells = new ArrayList<>();
    for (Service service : services) {
      for (Type type : types) {
        String workload = service.builtin() ? type.workload() : dssWorkload(type);
        cells.add(
            new StudyRecord.Cell(
                type.label(),
                service.label(),
                "",
                workload == null ? null : label(type, service),
                workload == null ? null : workload,
                workload == null ? StudyRunner.NOT_APPLICABLE + dssHasNone(type) : null));
      }
    }
    return new StudyRecord.Grid(
        "transaction",
        SERVICE_COLUMNS,
        types.stream().map(Type::label).toList(),
        services.stream().map(Service::label).toList(),
        services.get(0).label(),
        List.of(""),
        cells);
  }

  @Override
  public List<String> notes(StudyOptions options) {
    // A JVM service compiles for tens of seconds under load; --quick measures it before that ends.
    List<String> notes = new ArrayList<>();
    notes.add(
        "every answer checked in the client against what it sent (ok counts the verified operations;"
            + " --verify-sample N checks one in N): signatures by BouncyCastle, the JDK's XMLDSig and the"
            + " B-T time-stamps under the test PKI's root, logins by the service's valid answer for the"
            + " identity, time-stamp tokens by their TSA's chain; the client's CPU, where the checks run,"
            + " is not the service's measured here");
    notes.add(
        "documents: CAdES, CAdES-T, PAdES and PAdES-T sign the 137 KB sample PDF (as the original signed"
            + " one PDF throughout), each operation's copy with an identifier of its own in its XMP metadata"
            + " (-p document=pdf), so that no two operations send the same bytes; Timestamp stamps fresh"
            + " random bytes each");
    if (checkSizing != null) notes.add(CheckSizing.note());
    if (options.quick()) {
      notes.add(
          "quick: each type warmed half a second at a time until the service's CPU per operation held (at most 4 s: a type that never steadied is flagged);"
              + " its JIT may still gain over minutes. For sizing figures: --duration 5m");
    }
    if (services.stream().anyMatch(s -> !s.builtin())) {
      notes.add(
          "dss: EU DSS's own REST services (one-document signature API), the client signing getDataToSign's bytes with its key from --keys;"
              + " Authentication and Timestamp are n/a: DSS's REST API has no certificate login, and no RFC 3161 endpoint (its timestampDocument"
              + " makes a time-stamped document, another transaction)");
    }
    if (services.stream().anyMatch(s -> !s.builtin() && s.url() == null)
        && !options.keys().startsWith("software")) {
      notes.add(
          "dss served by the study holds its own keys (its TSA, its server-signing token) as software keys, DSS's token being a key store;"
              + " --keys "
              + options.keys()
              + " are the client's keys there");
    }
    if (services.stream().anyMatch(s -> !s.builtin() && s.url() == null)) {
      notes.add(
          "dss served by the study: the test PKI's root trusted, its CRLs read once (no download), its TSA in DSS's process for the -T levels;"
              + " DSS checks the signing certificate as its defaults do (a validation context per call), where the built-in signer checks its dates alone");
    }
    return notes;
  }

  @Override
  public List<Sample> samples(Path dir, TestPki pki, KeySource keys, InstantSource clock)
      throws Exception {
    List<Sample> samples = new ArrayList<>(StudySamples.write(dir, pki));
    if (services.stream().anyMatch(s -> !s.builtin() && s.url() == null))
      samples.addAll(StudySamples.writeDss(dir, pki, keys, clock));
    return samples;
  }
}
