package io.pkibench.study;

import io.pkibench.keys.KeySource;
import io.pkibench.openbao.OpenBaoClient;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Durations;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.workload.acme.AcmeWorkloads;
import io.pkibench.workload.api.ParamSpec;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Study 7 (beyond the seeds, docs/studies.md): a CA sized by how many certificates it issues per
 * second and per CPU-second of its own, over ACME (RFC 8555: whole orders, {@code acme:order}) and
 * over a direct API (OpenBao's pki engine, {@code openbao:pki-sign} and {@code pki-issue}). Each
 * operation is probed up to the CA's CPU ceiling, then measured at the level chosen; every order is
 * verified apart from the CA and accounted for after the run. The answer: cores for a target rate.
 */
public final class CaStudy implements Study {
  /**
   * {@code --target-rate}'s default: about 5 million certificates a day, the order of a large
   * public CA's ACME issuance.
   */
  public static final double DEFAULT_TARGET_RATE = 60;

  /** The CPU share the cores-for-a-rate answer plans for, as {@code run --max-utilisation}'s. */
  static final double MAX_UTILISATION = 0.7;

  static final String PEBBLE = "pebble";
  static final String OPENBAO = "openbao";
  static final String ACME = "acme";
  static final String ACME_ORDER = "acme:order";
  static final String ACME_RENEW = "acme:renew";
  static final String ACME_REVOKE = "acme:revoke";

  /**
   * The revocations per second the revoke step offers, from one worker: an open loop, so that the
   * certificates it revokes, each a whole order issued before the measured time, are a pool of
   * known size (a probe to the ceiling would need thousands).
   */
  static final double REVOKE_RATE = 10;

  private static final String NOT_MEASURED_HERE = "another CA on other hardware, not measured here";

  private static final StudyInfo INFO =
      new StudyInfo(
          "ca",
          "a CA sized by certificates issued per second and per CA CPU-second, over ACME (RFC 8555) and OpenBao's pki API",
          StudyRecord.Unit.OPS_PER_SECOND,
          new StudyRecord.Published(
              "vendors' rough figures and Let's Encrypt's scale, as the ca study's issue gives them (docs/studies.md); approximate, not verified here",
              "not stated",
              List.of(
                  new StudyRecord.Figure(
                      "EJBCA, default (Keyfactor)",
                      10,
                      "\"tens\" of certificates per second",
                      NOT_MEASURED_HERE),
                  new StudyRecord.Figure(
                      "EJBCA, tuned (Keyfactor)", 100, "\"more than 100/s\"", NOT_MEASURED_HERE),
                  new StudyRecord.Figure(
                      "Let's Encrypt, whole service",
                      58,
                      "\"millions a day\" (5 million/day ≈ 58/s), a daily average over many machines",
                      "a public CA's whole fleet's daily average, not one CA's ceiling")),
              StudyRecord.Unit.OPS_PER_SECOND,
              null,
              List.of()),
          Duration.ofMinutes(2));

  /**
   * A CA the study measures: {@code pebble} or {@code openbao} started by the study, or one running
   * elsewhere, {@code acme:URL} (its ACME directory) or {@code openbao:URL} (its API root).
   */
  public record Service(String kind, String url) {
    public String label() {
      if (url == null) return kind;
      URI u = URI.create(url);
      return kind + "@" + u.getHost() + (u.getPort() == -1 ? "" : ":" + u.getPort());
    }

    boolean acme() {
      return kind.equals(PEBBLE) || kind.equals(ACME);
    }

    boolean builtIn() {
      return url == null;
    }

    /** {@code pebble,openbao,acme:URL,openbao:URL}: every problem named, with the fix. */
    public static List<Service> parse(String flag, List<String> problems) {
      List<Service> services = new ArrayList<>();
      for (String part : flag.split(",")) {
        String p = part.strip();
        if (p.equals(PEBBLE) || p.equals(OPENBAO)) {
          services.add(new Service(p, null));
        } else if (p.startsWith(ACME + ":") || p.startsWith(OPENBAO + ":")) {
          String kind = p.substring(0, p.indexOf(':'));
          String url = p.substring(kind.length() + 1);
          if (httpUrl(url)) services.add(new Service(kind, url));
          else
            problems.add(
                "--service "
                    + p
                    + (kind.equals(ACME)
                        ? ": give the CA's ACME directory as acme:https://HOST:PORT/dir"
                        : ": give OpenBao's API root as openbao:https://HOST:8200"));
        } else {
          problems.add(
              "--service "
                  + p
                  + ": use pebble, openbao (started by the study), acme:URL (an ACME directory) or openbao:URL (an OpenBao elsewhere)");
        }
      }
      if (services.stream().map(Service::label).distinct().count() != services.size())
        problems.add("--service " + flag + ": a CA is named twice");
      if (services.isEmpty() && problems.isEmpty())
        problems.add("--service: name at least one, e.g. pebble,openbao");
      return services;
    }
  }

  static boolean httpUrl(String text) {
    try {
      URI u = URI.create(text);
      return ("https".equals(u.getScheme()) || "http".equals(u.getScheme())) && u.getHost() != null;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * The study's own options: the CAs, the TLS and issuers' roots of outside CAs, the pid whose CPU
   * is an outside CA's, the rate to size for, where issued certificates go ({@code
   * --save-samples}), and a directory for the started CAs' files; with problems found parsing them.
   */
  public record Options(
      List<Service> services,
      Path trust,
      Path issuerTrust,
      Long cpuPid,
      double targetRate,
      Path samples,
      Path workDir,
      List<String> flagProblems,
      boolean http01) {
    public Options {
      services = List.copyOf(services);
      flagProblems = List.copyOf(flagProblems);
    }

    /** Pebble passing every challenge, for load. */
    public Options(
        List<Service> services,
        Path trust,
        Path issuerTrust,
        Long cpuPid,
        double targetRate,
        Path samples,
        Path workDir,
        List<String> flagProblems) {
      this(services, trust, issuerTrust, cpuPid, targetRate, samples, workDir, flagProblems, false);
    }

    public static Options defaults() {
      return started(List.of(new Service(PEBBLE, null)), null, List.of());
    }

    /**
     * {@code services}, their files in {@code workDir}; no outside CA's roots or pid, the default
     * rate, no samples.
     */
    static Options started(List<Service> services, Path workDir, List<String> flagProblems) {
      return new Options(
          services, null, null, null, DEFAULT_TARGET_RATE, null, workDir, flagProblems);
    }
  }

  private final Options options;

  /** {@code --fault kill-service@T}, or null. */
  private final CaFault fault;

  public CaStudy(Options options) {
    this(options, null);
  }

  private CaStudy(Options options, CaFault fault) {
    this.options = options;
    this.fault = fault;
    this.challenge = new CaChallenge(options.http01());
  }

  /** How the Pebble the study starts passes challenges: {@code --challenge}. */
  private final CaChallenge challenge;

  /** Throws naming the flag and the fix when {@code --fault TEXT} is not kill-service@T. */
  public static void checkFault(String text) {
    CaFault.parse(text);
  }

  /** This study with {@code --fault TEXT} (kill-service@T); null: without. */
  public CaStudy withFault(String text) {
    return new CaStudy(options, CaFault.parse(text));
  }

  /** This study's fault in a step of other lengths (a test's short run). */
  CaStudy faultLasting(Duration downFor, Duration afterRestart) {
    return new CaStudy(options, fault.lasting(downFor, afterRestart));
  }

  public CaStudy() {
    this(Options.defaults());
  }

  @Override
  public StudyInfo info() {
    return INFO;
  }

  /** An operation of a CA: its row's words and the workload that drives it. */
  record Operation(String label, String workload) {}

  static List<Operation> operations(Service service) {
    return service.acme()
        ? List.of(
            new Operation("ACME order", ACME_ORDER),
            new Operation("ACME renewal", ACME_RENEW),
            new Operation("ACME revocation", ACME_REVOKE))
        : List.of(
            new Operation("pki/sign (CSR)", "openbao:pki-sign"),
            new Operation("pki/issue (key made by the CA)", "openbao:pki-issue"));
  }

  String label(Operation op, Service service) {
    return op.label() + " [" + service.label() + "]";
  }

  @Override
  public List<String> problems(StudyOptions study) {
    List<String> problems = new ArrayList<>(options.flagProblems());
    if (study.duration().compareTo(Duration.ofSeconds(5)) < 0)
      problems.add("--duration: measure each operation at least 5s, e.g. --duration 1m");
    if (!study.keys().equals("software"))
      problems.add(
          "--keys "
              + study.keys()
              + ": ca has no keys of pkibench's to place: each CA signs with its own (Pebble makes its own root; OpenBao's pki"
              + " mount holds the test PKI's intermediate-a), and the CSR keys are a pool the client makes; leave --keys out");
    if (study.pinFile() != null)
      problems.add("--pin-file: ca uses no PKCS#11 token (see --keys); leave it out");
    boolean outside = options.services().stream().anyMatch(s -> !s.builtIn());
    for (String[] f :
        new String[][] {
          {"--trust", options.trust() == null ? null : options.trust().toString()},
          {
            "--issuer-trust",
            options.issuerTrust() == null ? null : options.issuerTrust().toString()
          }
        }) {
      if (f[1] == null) continue;
      if (!Files.isReadable(Path.of(f[1])))
        problems.add(f[0] + " " + f[1] + ": no such readable file; give a PEM certificate");
      if (!outside)
        problems.add(
            f[0]
                + ": only for a CA running elsewhere (--service acme:URL or openbao:URL); the study's own CAs are trusted as it starts them");
    }
    if (options.services().stream().anyMatch(s -> s.kind().equals(ACME) && !s.builtIn())
        && options.issuerTrust() == null)
      problems.add(
          "--service acme:URL: give --issuer-trust PEM, the root its certificates chain to (every order is verified against it)");
    if (options.cpuPid() != null) {
      if (options.services().stream().filter(s -> !s.builtIn()).count() != 1)
        problems.add(
            "--cpu pid:"
                + options.cpuPid()
                + ": the CPU of one CA running elsewhere on this machine; name exactly one acme:URL or openbao:URL in --service");
      else if (ProcessHandle.of(options.cpuPid()).isEmpty())
        problems.add("--cpu pid:" + options.cpuPid() + ": no such process here");
    }
    if (fault != null && options.services().stream().noneMatch(Service::builtIn))
      problems.add(
          "--fault "
              + fault.text()
              + ": kills a CA the study started (pebble, openbao); --service names only CAs running"
              + " elsewhere, which pkibench does not kill: add pebble or openbao, or leave --fault out");
    problems.addAll(challenge.problems(options.services()));
    if (!(options.targetRate() > 0))
      problems.add("--target-rate: give certificates per second above 0, e.g. 60");
    for (Service s : options.services())
      if (s.url() != null)
        RestPkiStudy.unreachable(s.url())
            .ifPresent(why -> problems.add("--service " + s.kind() + ":" + s.url() + ": " + why));
    return problems;
  }

  private Path workDir() {
    try {
      return options.workDir() != null
          ? options.workDir()
          : Files.createTempDirectory("pkibench-ca-");
    } catch (IOException e) {
      throw new IllegalStateException("cannot make a directory for the CAs: " + e.getMessage(), e);
    }
  }

  private Path work;

  /** The test PKI, whose root the started OpenBao's TLS chains to; known once steps are planned. */
  private Path pkiDir;

  private synchronized Path work() {
    if (work == null) work = workDir();
    return work;
  }

  @Override
  public List<ServiceSpec> services(StudyOptions study) {
    List<ServiceSpec> specs = new ArrayList<>();
    for (Service s : options.services()) {
      if (!s.builtIn()) continue;
      String dir = work().resolve(s.kind()).toString();
      List<String> args =
          new ArrayList<>(List.of(s.kind(), "--pki", study.pkiDir().toString(), "--dir", dir));
      // the fault's outage: serve openbao starts its killed server again this long after
      if (fault != null && s.kind().equals(OPENBAO))
        args.addAll(List.of("--restart-after", Durations.format(fault.downFor())));
      if (s.kind().equals(PEBBLE)) args.addAll(challenge.serveArgs());
      specs.add(new ServiceSpec(s.kind(), args, "https"));
    }
    return specs;
  }

  @Override
  public List<Step> steps(StudyOptions study, RunningServices running) {
    pkiDir = study.pkiDir();
    List<Integer> probeLevels = study.quick() ? List.of(1, 4, 16) : List.of(1, 2, 4, 8, 16, 32, 64);
    Iterations probeEach = study.iterations("1x1s", 1, Duration.ofSeconds(5));
    Duration probeWarmEach = study.iterations("1x500ms", 1, probeEach.each()).each();
    long seconds = Math.max(5, study.duration().toSeconds());
    Iterations warmup = study.warmup("1x500ms", 1, Duration.ofSeconds(Math.max(5, seconds / 10)));
    Iterations measure = study.iterations("3x2s", 5, Duration.ofSeconds(Math.max(1, seconds / 5)));
    List<Step> steps = new ArrayList<>();
    for (Service service : options.services()) {
      for (Operation op : operations(service)) {
        Map<String, String> params = params(service, op, running);
        String cpu = cpu(service);
        if (op.workload().equals(ACME_REVOKE)) {
          steps.add(revokeStep(study, label(op, service), params, cpu));
          continue;
        }
        WorkloadSpec spec = new WorkloadSpec(op.workload(), params, null);
        // Debian's Pebble 2.4 can hang for good under concurrent orders (a lock cycle in its store:
        // see the note), the likelier the more workers: its probe stops at 4
        List<Integer> levels =
            service.kind().equals(PEBBLE)
                ? probeLevels.stream().filter(n -> n <= 4).toList()
                : probeLevels;
        if (service.kind().equals(PEBBLE) && study.quick()) levels = List.of(1, 2, 4);
        Plan probe =
            plan(
                spec,
                levels,
                new Iterations(0, probeWarmEach, StudyOptions.QUICK_WARMUP_CAP),
                probeEach,
                cpu);
        Step step =
            Step.of(label(op, service), plan(spec, List.of(1), warmup, measure, cpu))
                .probedBy(probe, SaturatingLevelChooser.INSTANCE);
        if (service.kind().equals(OPENBAO) && service.builtIn()) step = step.before(handToken());
        steps.add(step);
      }
    }
    faultStep(running).ifPresent(steps::add);
    return steps;
  }

  /**
   * With {@code --fault}: the first CA the study started, its first operation (an ACME order, or
   * pki/sign), in a step of its own through the kill; last, so that no other step measures a CA
   * that was killed (a restarted Pebble has forgotten every account).
   */
  private java.util.Optional<Step> faultStep(RunningServices running) {
    if (fault == null) return java.util.Optional.empty();
    Service service =
        options.services().stream().filter(Service::builtIn).findFirst().orElseThrow();
    Operation op = operations(service).get(0);
    List<StepHook> before = service.kind().equals(OPENBAO) ? List.of(handToken()) : List.of();
    return java.util.Optional.of(
        fault.step(
            label(op, service),
            new WorkloadSpec(op.workload(), params(service, op, running), null),
            cpu(service),
            service.kind(),
            before));
  }

  /**
   * Revocations at {@link #REVOKE_RATE} from one worker (not a probe to the ceiling: each one needs
   * a certificate issued before), for a short time whatever {@code --duration} says; the worker
   * gets as many certificates in its set-up as the step's slots, warm-up included, and a few more.
   */
  private static Step revokeStep(
      StudyOptions study, String label, Map<String, String> params, String cpu) {
    Iterations warmup = study.warmup("1x500ms", 1, Duration.ofSeconds(2));
    Iterations measure = study.iterations("3x2s", 3, Duration.ofSeconds(5));
    double seconds =
        warmup.upTo() * warmup.each().toMillis() / 1e3
            + measure.count() * measure.each().toMillis() / 1e3;
    Map<String, String> p = new LinkedHashMap<>(params);
    p.put("certificates", Long.toString((long) Math.ceil(REVOKE_RATE * seconds) + 5));
    Plan plan =
        Plan.of(List.of(new WorkloadSpec(ACME_REVOKE, p, null)))
            .load(new LoadModel.Open(List.of(REVOKE_RATE), 1))
            .warmup(warmup)
            .measure(measure)
            .verify(true)
            .cpu(cpu)
            .build();
    return Step.of(label, plan);
  }

  private Map<String, String> params(Service service, Operation op, RunningServices running) {
    Map<String, String> p = new LinkedHashMap<>();
    if (options.trust() != null && !service.builtIn()) p.put("trust", options.trust().toString());
    if (service.acme()) {
      if (service.builtIn()) {
        URI base = URI.create(running.url(PEBBLE));
        p.put(ParamSpec.TARGET, base + "/dir");
        // Pebble's root is new each start: fetched from its management port when the step starts
        p.put("issuer-trust", "https://127.0.0.1:" + (base.getPort() + 1) + "/roots/0");
        p.put("serialize", AcmeWorkloads.SERIALIZED); // else Pebble 2.4 can deadlock
        p.putAll(challenge.params());
      } else {
        p.put(ParamSpec.TARGET, service.url());
        p.put("issuer-trust", options.issuerTrust().toString());
      }
      if (options.samples() != null)
        p.put("save", options.samples().resolve(sampleDir(service)).toString());
    } else {
      p.put(ParamSpec.TARGET, service.builtIn() ? running.url(OPENBAO) : service.url());
      if (service.builtIn()) {
        p.put("token-file", tokenCopy().toString());
        p.put("role", STORING_ROLE);
      }
    }
    return p;
  }

  /**
   * Where the client reads the started OpenBao's root token: an owner-only file made empty when the
   * steps are planned (the workload's flags are checked before any service starts, and serve
   * openbao writes its token only once it has initialised), filled by {@link #handToken()}.
   */
  private Path tokenCopy() {
    Path copy = work().resolve("openbao-root-token");
    try {
      if (!Files.exists(copy)) {
        Files.createFile(
            copy,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot make " + copy + ": " + e.getMessage(), e);
    }
    return copy;
  }

  /** Before each OpenBao step: its root token copied from serve openbao's owner-only file. */
  private StepHook handToken() {
    return new StepHook() {
      @Override
      public String describe() {
        return "hand the started OpenBao's root token to the client (owner-only file)";
      }

      @Override
      public void run(RunningServices services) throws Exception {
        Files.write(tokenCopy(), Files.readAllBytes(work().resolve(OPENBAO).resolve("root-token")));
        // serve openbao's roles do not store what they issue (vault-benchmark's setting); a CA
        // keeps
        // its certificates, and the accounting reads them back (LIST pki/certs)
        Map<String, Object> role = new LinkedHashMap<>();
        role.put("allow_any_name", true);
        role.put("enforce_hostnames", false);
        role.put("key_type", "ec");
        role.put("key_bits", 256);
        role.put("ttl", "1h");
        role.put("no_store", false);
        try (OpenBaoClient client = openBao(services)) {
          client.post("pki/roles/" + STORING_ROLE, role);
        }
      }
    };
  }

  /** The role the study issues from on the OpenBao it starts: ECDSA P-256, stored. */
  static final String STORING_ROLE = "ca-study-ecdsa-p256";

  private OpenBaoClient openBao(RunningServices services) throws Exception {
    return CaChecks.openBao(services, tokenCopy(), pkiDir);
  }

  static String sampleDir(Service service) {
    return service.label().replaceAll("[^A-Za-z0-9.-]", "_");
  }

  private static Plan plan(
      WorkloadSpec spec, List<Integer> levels, Iterations warmup, Iterations measure, String cpu) {
    return Plan.of(List.of(CaPresigned.sized(spec, warmup, measure)))
        .concurrency(levels)
        .warmup(warmup)
        .measure(measure)
        .verify(true)
        .cpu(cpu)
        .build();
  }

  private String cpu(Service service) {
    if (!service.builtIn())
      return options.cpuPid() == null ? RunningServices.NO_CPU : "pid:" + options.cpuPid();
    return options.services().stream().filter(Service::builtIn).count() == 1
        ? "services"
        : "service:" + service.kind();
  }

  @Override
  public List<PostCheck> checks(StudyOptions study) {
    List<PostCheck> checks = new ArrayList<>();
    if (options.services().stream().anyMatch(Service::acme))
      checks.add(new CaChecks.OrdersAccounted());
    if (options.services().stream().anyMatch(s -> s.kind().equals(OPENBAO) && s.builtIn()))
      checks.add(new CaChecks.OpenBaoListed(tokenCopy(), study.pkiDir()));
    return checks;
  }

  @Override
  public List<String> findings(RunResult result, StudyOptions study) {
    List<String> findings = new ArrayList<>(CaFindings.findings(result, options));
    if (fault != null) findings.addAll(CaFindings.fault(result));
    return findings;
  }

  @Override
  public List<String> notes(StudyOptions study) {
    return CaFindings.notes(study, options, challenge.pebbleValidation());
  }

  @Override
  public List<Sample> samples(Path dir, TestPki pki, KeySource keys, InstantSource clock)
      throws Exception {
    List<Sample> samples = new ArrayList<>();
    for (Service s : options.services()) {
      if (!s.acme()) continue;
      Path sub = dir.resolve(sampleDir(s));
      if (!Files.isDirectory(sub)) continue;
      try (Stream<Path> files = Files.list(sub)) {
        for (Path f : files.sorted().toList()) {
          String name = f.getFileName().toString();
          if (!name.endsWith(".pem") || name.equals("issuer-root.pem")) continue;
          String rel = sampleDir(s) + "/" + name;
          samples.add(
              new Sample(
                  rel,
                  "a certificate " + s.label() + " issued over ACME, chained to its root",
                  "openssl verify -CAfile "
                      + sampleDir(s)
                      + "/issuer-root.pem -untrusted "
                      + rel
                      + " "
                      + rel,
                  List.of("openssl")));
        }
      }
    }
    return samples;
  }
}
