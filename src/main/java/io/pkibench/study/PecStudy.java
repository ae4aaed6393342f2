package io.pkibench.study;

import io.pkibench.formats.pec.TestProviders;
import io.pkibench.keys.KeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.ThreadKind;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.text.Units;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.pec.PauseRange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Study 4 (OpenPEC, docs/studies/pec.md): a certified e-mail provider's signing path and
 * verification path, each alone in this JVM at 1 to 16 workers as the original measured them; then
 * the complete flow, two providers ({@code serve pec}, each its own JVM, their CPU by pid) mailing
 * each other over SMTP, pec1.test's user 2 messages in 5 and pec2.test's 3 (the original's ≈800 and
 * ≈1,200) of 56–80 KB, offered at a fixed rate; then the reliability check over every mailbox, and
 * the spools' fsync cost.
 *
 * <p>The providers' spools and mailboxes live in the study's directory, emptied at the start of
 * each run (only a directory this study made, marked so, is ever emptied) so that the check sees
 * this run's mail alone; {@code --spool} puts the spools on another disk.
 */
public final class PecStudy implements Study {
  public static final String SIGN = "signing path";
  public static final String VERIFY = "verification path";

  /** The flow's steps are labelled FLOW [what], so the original's flow figure sits beside each. */
  public static final String FLOW = "two-domain flow";

  /**
   * The original's signing and verification tests each timed a batch of 18 mails: ours is stated as
   * that batch's time too.
   */
  static final int BATCH = 18;

  @Override
  public StudyInfo info() {
    return PecPublished.INFO;
  }

  /** A mailbox no provider has: the non-conforming message goes to it. */
  static final String NO_SUCH_USER = "nobody";

  static final String P1 = TestProviders.SENDER_DOMAIN;
  static final String P2 = TestProviders.RECIPIENT_DOMAIN;
  static final List<Integer> WORKERS = List.of(1, 2, 4, 8, 16);

  /** pec1.test : pec2.test messages in the flow, as the original's ≈800 and ≈1,200. */
  static final String MIX = "2:3";

  /**
   * Ours, stated in the report (the original published none): a delivery receipt later than this
   * misses the load.
   */
  static final Duration RECEIPT_DEADLINE = Duration.ofSeconds(10);

  /**
   * Senders kept busy in each point of the worker sweep: more than any worker count swept, so the
   * providers' workers bound it.
   */
  static final int SWEEP_SENDERS = 32;

  /**
   * The study's own options: its directory, where the spools go, the rate users submit at in the
   * flow, the providers' workers, the paths' worker counts, the flow's warm-up and measured time;
   * then the maximum-load search's rates (empty: none) and the delivery-receipt deadline it holds
   * them to, and the provider-worker sweep (empty: none) that tests OpenPEC's {@code maxServers = 2
   * × CPUs + x}; and {@code pauses} (null: none), the original's reliability run: users pausing a
   * random time from that range before each message.
   */
  public record Config(
      Path dir,
      Path spool,
      double flowRatePerSecond,
      int providerWorkers,
      List<Integer> pathWorkers,
      Duration flowWarmup,
      Duration flowMeasure,
      List<Double> searchRates,
      Duration receiptDeadline,
      List<Integer> workerSweep,
      PauseRange pauses) {
    public Config {
      pathWorkers = List.copyOf(pathWorkers);
      searchRates = List.copyOf(searchRates);
      workerSweep = List.copyOf(workerSweep);
    }

    /**
     * The full study: rates doubling from 10 to 160 messages/s; workers 1 to 16 and the rule's own
     * count ({@link #ruleWorkers}).
     */
    public static Config defaults(Path dir, Path spool) {
      return new Config(
          dir,
          spool,
          20,
          4,
          WORKERS,
          Duration.ofSeconds(20),
          Duration.ofSeconds(80),
          List.of(10.0, 20.0, 40.0, 80.0, 160.0),
          RECEIPT_DEADLINE,
          List.of(1, 2, 4, 8, 16),
          null);
    }

    /**
     * The full study's settings ({@link #defaults}) in {@code dir}, each changed by the builder's
     * methods.
     */
    public static Builder builder(Path dir) {
      return new Builder(defaults(dir, null));
    }

    Path spoolRoot() {
      return spool == null ? dir.resolve("spool") : spool;
    }

    Path mailboxes() {
      return dir.resolve("mailboxes");
    }

    Path sent() {
      return dir.resolve("sent.jsonl");
    }
  }

  /** Builds a {@link Config} one named setting at a time, from the full study's. */
  public static final class Builder {
    private final Config d;
    private Path spool;
    private double flowRatePerSecond;
    private int providerWorkers;
    private List<Integer> pathWorkers;
    private Duration flowWarmup;
    private Duration flowMeasure;
    private List<Double> searchRates;
    private Duration receiptDeadline;
    private List<Integer> workerSweep;
    private PauseRange pauses;

    private Builder(Config d) {
      this.d = d;
      spool = d.spool();
      flowRatePerSecond = d.flowRatePerSecond();
      providerWorkers = d.providerWorkers();
      pathWorkers = d.pathWorkers();
      flowWarmup = d.flowWarmup();
      flowMeasure = d.flowMeasure();
      searchRates = d.searchRates();
      receiptDeadline = d.receiptDeadline();
      workerSweep = d.workerSweep();
      pauses = d.pauses();
    }

    /** Where the spools go instead of the study's directory (null: there). */
    public Builder spool(Path spool) {
      this.spool = spool;
      return this;
    }

    public Builder flowRatePerSecond(double rate) {
      this.flowRatePerSecond = rate;
      return this;
    }

    public Builder providerWorkers(int workers) {
      this.providerWorkers = workers;
      return this;
    }

    /** The signing and verification paths' worker counts. */
    public Builder pathWorkers(List<Integer> workers) {
      this.pathWorkers = workers;
      return this;
    }

    public Builder flow(Duration warmup, Duration measure) {
      this.flowWarmup = warmup;
      this.flowMeasure = measure;
      return this;
    }

    /** The maximum-load search's rates (empty: no search) and the receipts' deadline. */
    public Builder search(List<Double> rates, Duration receiptDeadline) {
      this.searchRates = rates;
      this.receiptDeadline = receiptDeadline;
      return this;
    }

    /** The provider-worker sweep's counts (empty: no sweep). */
    public Builder workerSweep(List<Integer> workers) {
      this.workerSweep = workers;
      return this;
    }

    /** The paced reliability run's pauses (null: no such run). */
    public Builder pauses(PauseRange pauses) {
      this.pauses = pauses;
      return this;
    }

    public Config build() {
      return new Config(
          d.dir(),
          spool,
          flowRatePerSecond,
          providerWorkers,
          pathWorkers,
          flowWarmup,
          flowMeasure,
          searchRates,
          receiptDeadline,
          workerSweep,
          pauses);
    }
  }

  private final Config config;

  public PecStudy(Config config) {
    this.config = config;
  }

  Config config() {
    return config;
  }

  @Override
  public List<String> problems(StudyOptions options) {
    List<String> problems = new ArrayList<>();
    if (options.duration().compareTo(Duration.ofSeconds(1)) < 0)
      problems.add("--duration: each measured iteration lasts at least 1s, e.g. --duration 5s");
    if (!(config.flowRatePerSecond() >= 0.5 && config.flowRatePerSecond() <= 1000)) {
      problems.add(
          "--flow-rate "
              + config.flowRatePerSecond()
              + ": give 0.5 to 1000 messages per second, e.g. 20");
    }
    if (config.providerWorkers() < 1 || config.providerWorkers() > 64)
      problems.add("--provider-workers " + config.providerWorkers() + ": give 1 to 64");
    problems.addAll(PecStudyDirectory.ownable("--dir", config.dir()));
    if (config.spool() != null)
      problems.addAll(PecStudyDirectory.ownable("--spool", config.spool()));
    return problems;
  }

  /**
   * The two providers, each peered with the other by port. Their directories are emptied here,
   * before anything starts: the reliability check must see this run's mail alone.
   */
  @Override
  public List<ServiceSpec> services(StudyOptions options) {
    try {
      PecStudyDirectory.fresh(config.dir());
      if (config.spool() != null) PecStudyDirectory.fresh(config.spool());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the study's directory: " + e.getMessage(), e);
    }
    List<ServiceSpec> providers = new ArrayList<>();
    for (String domain : List.of(P1, P2))
      providers.add(
          new ServiceSpec(domain, providerArgs(domain, config.providerWorkers(), options), "smtp"));
    return providers;
  }

  /** {@code serve pec}'s arguments for the provider of {@code domain}, peered with the other. */
  private List<String> providerArgs(String domain, int workers, StudyOptions options) {
    String peer = domain.equals(P1) ? P2 : P1;
    List<String> args =
        new ArrayList<>(
            List.of(
                "pec",
                "--domain",
                domain,
                "--peer",
                peer + "=127.0.0.1:{port:" + peer + "}",
                "--workers",
                Integer.toString(workers),
                "--spool",
                config.spoolRoot().resolve(domain).toString(),
                "--mailboxes",
                config.mailboxes().resolve(domain).toString(),
                "--pki",
                options.pkiDir().toString(),
                "--keys",
                options.keys()));
    if (options.pinFile() != null) args.addAll(List.of("--pin-file", options.pinFile().toString()));
    return args;
  }

  /** The paths check one message in this many: their CPU, this JVM's, is what they measure. */
  static final int PATH_VERIFY_SAMPLE = PixStudy.CLIENT_CPU_VERIFY_SAMPLE;

  @Override
  public List<Step> steps(StudyOptions options, RunningServices services) {
    Iterations warmup = options.warmup("1x500ms", 1);
    Iterations measure = options.iterations("2x1s", 3);
    List<Step> steps = new ArrayList<>();
    List<String[]> paths =
        config.pathWorkers().isEmpty()
            ? List.of() // --no-paths: the flow alone
            : List.of(new String[] {SIGN, "pec-sign"}, new String[] {VERIFY, "pec-verify"});
    for (String[] path : paths) {
      WorkloadSpec spec = new WorkloadSpec(path[1], Map.of("size", "60k"), options.keys());
      steps.add(
          Step.of(
              path[0],
              Plan.of(List.of(spec))
                  .concurrency(config.pathWorkers())
                  .warmup(warmup)
                  .measure(measure)
                  .cpu("client")
                  .verify(true)
                  .verifySample(PATH_VERIFY_SAMPLE)
                  .build()));
    }
    Map<String, String> params = new LinkedHashMap<>();
    params.put(
        ParamSpec.TARGET,
        P1 + "=127.0.0.1:" + port(services, P1) + "," + P2 + "=127.0.0.1:" + port(services, P2));
    params.put("mailboxes", config.mailboxes().toString());
    params.put("sent", config.sent().toString());
    params.put("mix", MIX);
    params.put("size", "56k..80k");
    WorkloadSpec flow = new WorkloadSpec("pec-send", params, "software");
    Flow f = flow(options);
    // Enough workers that a slow delivery never holds back the next submission: the users' rate is
    // the offered load.
    steps.add(
        Step.of(
            flowLabel(options),
            Plan.of(List.of(flow))
                .load(new LoadModel.Open(List.of(config.flowRatePerSecond()), 64))
                .warmup(f.warmup())
                .measure(f.measure())
                .threads(ThreadKind.VIRTUAL)
                .cpu("services")
                .build()));
    if (config.pauses() != null) {
      // the original's reliability run: users mailing at their own irregular pace, each pausing
      // before each message
      Map<String, String> paced = new LinkedHashMap<>(params);
      paced.put("pause", config.pauses().toString());
      steps.add(
          Step.of(
              pacedLabel(),
              Plan.of(List.of(new WorkloadSpec("pec-send", paced, "software")))
                  .concurrency(List.of(PACED_SENDERS))
                  .warmup(new Iterations(0, Duration.ofSeconds(1)))
                  .measure(
                      options.iterations(
                          "2x15s",
                          3,
                          Duration.ofMillis(Math.max(2000, config.flowMeasure().toMillis() / 3))))
                  .threads(ThreadKind.VIRTUAL)
                  .cpu("services")
                  .build()));
    }
    List<Double> rates = searchRates(options);
    if (!rates.isEmpty()) {
      // rates stepped up, each with its own warm-up: the highest whose receipts all come within the
      // deadline is the load tolerated
      Iterations w =
          options.iterations(
              "1x1s", 1, Duration.ofMillis(Math.max(1000, f.warmup().each().toMillis() / 4)));
      Iterations m =
          options.iterations(
              "2x1500ms",
              2,
              Duration.ofMillis(Math.max(1000, config.flowMeasure().toMillis() / 8)));
      steps.add(
          Step.of(
              SEARCH,
              Plan.of(List.of(flow))
                  .load(new LoadModel.Open(rates, 256))
                  .warmup(w)
                  .measure(m)
                  .threads(ThreadKind.VIRTUAL)
                  .cpu("services")
                  .build()));
    }
    for (int workers : sweep(options, services.serviceCores())) {
      // closed loop: more senders than workers, no pause, so the providers' workers are what bounds
      // the rate
      Iterations w = options.warmup("1x500ms", 1);
      Iterations m = options.iterations("2x1s", 3);
      steps.add(
          Step.of(
                  sweepLabel(workers),
                  Plan.of(List.of(flow))
                      .concurrency(List.of(SWEEP_SENDERS))
                      .warmup(w)
                      .measure(m)
                      .threads(ThreadKind.VIRTUAL)
                      .cpu("services")
                      .build())
              .before(providersWithWorkers(workers, options)));
    }
    return steps;
  }

  /**
   * The rates the maximum-load search offers in turn: every configured one; quick, two of them (the
   * first and the third, a fourfold step with the defaults' doubling), so that a quick run also
   * answers the seed's question, roughly.
   */
  List<Double> searchRates(StudyOptions options) {
    List<Double> all = config.searchRates();
    if (!options.quick() || all.size() <= 2) return all;
    return List.of(all.get(0), all.get(2));
  }

  /**
   * Users mailing in the paced reliability run, each pausing before each message: with 1..15 s
   * pauses about 2 messages/s, measured as long as the flow (full) or 2 × 15 s (quick).
   */
  static final int PACED_SENDERS = 16;

  /**
   * Not a flow label: the paced run's rate is the users' pace, so the original's flow figure is not
   * set beside it.
   */
  String pacedLabel() {
    return "reliability run [pauses " + config.pauses() + "]";
  }

  /** The flow's maximum-load search: its row in the table, and where the check reads it. */
  public static final String SEARCH = FLOW + " [max-load search]";

  static final String SWEEP = "provider workers";

  static String sweepLabel(int workers) {
    return SWEEP + " [" + workers + "]";
  }

  /**
   * OpenPEC's rule's smallest count for {@code cores}: 2 × CPUs + 1 (x from 1 to 3 by disk speed).
   */
  static int ruleWorkers(int cores) {
    return 2 * cores + 1;
  }

  /**
   * The worker counts swept: the configured ones and the rule's own; quick, two points: one worker
   * and the rule's.
   */
  List<Integer> sweep(StudyOptions options, int cores) {
    if (config.workerSweep().isEmpty()) return List.of();
    if (options.quick()) return List.of(1, ruleWorkers(cores));
    TreeSet<Integer> counts = new TreeSet<>(config.workerSweep());
    counts.add(ruleWorkers(cores));
    return List.copyOf(counts);
  }

  /** Both providers restarted with {@code workers}, their arguments made anew. */
  private StepHook providersWithWorkers(int workers, StudyOptions options) {
    return new StepHook() {
      @Override
      public String describe() {
        return "restart both providers with --workers " + workers;
      }

      @Override
      public void run(RunningServices services) throws Exception {
        for (String provider : List.of(P1, P2))
          services.restartWith(provider, providerArgs(provider, workers, options));
      }
    };
  }

  private record Flow(Iterations warmup, Iterations measure, long messages) {}

  private Flow flow(StudyOptions options) {
    Duration warm = options.quick() ? Duration.ofSeconds(3) : config.flowWarmup();
    Duration measured = options.quick() ? Duration.ofSeconds(12) : config.flowMeasure();
    int iterations = options.quick() ? 2 : 3;
    Iterations w = Iterations.parse("1x" + warm.toMillis() + "ms");
    Iterations m =
        Iterations.parse(iterations + "x" + measured.dividedBy(iterations).toMillis() + "ms");
    return new Flow(
        w,
        m,
        Math.round(config.flowRatePerSecond() * (warm.toMillis() + measured.toMillis()) / 1000.0));
  }

  private String flowLabel(StudyOptions options) {
    return FLOW + " [" + Units.rate(config.flowRatePerSecond()) + " messages/s]";
  }

  private static int port(RunningServices services, String name) {
    return URI.create(services.url(name)).getPort();
  }

  @Override
  public List<PostCheck> checks(StudyOptions options) {
    return new PecChecks(config)
        .forRun(options, !searchRates(options).isEmpty(), cores -> sweep(options, cores));
  }

  /**
   * One of each document a provider signs, as {@code .eml}: as the run's providers delivered it to
   * the study's mailboxes, where the run made one, else made by their code here and said so; the CA
   * chain as {@code chain.pem}; each checked by {@code openssl smime -verify}.
   */
  @Override
  public List<Sample> samples(Path dir, TestPki pki, KeySource keys, InstantSource clock)
      throws Exception {
    return PecSamples.samples(dir, pki, keys, clock, config.mailboxes());
  }

  @Override
  public List<String> notes(StudyOptions options) {
    Flow f = flow(options);
    List<String> notes = new ArrayList<>();
    if (config.pathWorkers().isEmpty())
      notes.add(
          "the signing and verification paths left out (--no-paths): the flow and its reliability check only");
    else
      notes.add(
          "the signing path (pec-sign: a 60 KB message → signed acceptance receipt and transport envelope) and the verification path"
              + " (pec-verify: the envelope verified → signed taking-charge and delivery receipts) run in this JVM at "
              + config.pathWorkers()
              + " workers, measured apart as the original's worker processes; their CPU is this JVM's, so one message in "
              + PATH_VERIFY_SAMPLE
              + " has its documents verified by the other provider (ok V/S); the flow's answers are checked after it"
              + " (every message's receipts, the reliability check), its ok the messages done");
    notes.add(
        "the flow: two providers (serve pec, each its own JVM, "
            + config.providerWorkers()
            + " workers) mailing each other over SMTP on loopback,"
            + " pec1.test's user 2 messages in 5, pec2.test's 3 in 5, 56–80 KB each, offered at "
            + Units.rate(config.flowRatePerSecond())
            + " messages/s: about "
            + f.messages()
            + " messages (warm-up included); the latency is from submission to the delivery receipt in the"
            + " sender's Maildir; the CPU is both providers' (pids); 'threads' in its row are the users' connections available, not a limit reached");
    notes.add(
        "a message is acknowledged only once fsynced; the spools are on "
            + config.spoolRoot()
            + " (--spool moves them): their fsync cost is in the"
            + " check 'spools drained, fsync cost'");
    notes.add(
        "verification checks on every incoming document what the seed's provider did (openssl smime -verify per envelope): the S/MIME"
            + " signature, the signer in the provider index, its certificate path to the test PKI's root, validity and revocation by the CAs' CRLs"
            + " (no cache between documents), and daticert.xml parsed; the index is a map in memory where OpenPEC asked an LDAP server each time,"
            + " and openssl's process start per operation (the seed's 4'46\" fell to 1'42\" without it) has no counterpart here");
    if (config.pauses() != null) {
      notes.add(
          "the reliability run, as the original's: "
              + PACED_SENDERS
              + " users each pausing "
              + config.pauses()
              + " (drawn uniformly) before"
              + " each message, 2:3 between the providers as in the flow; its rate is the users' pace and its latency includes each pause, so"
              + " neither is a cost: the run is there for the reliability check, which covers its messages too");
    }
    if (!searchRates(options).isEmpty()) {
      notes.add(
          "maximum-load search: the flow offered at "
              + String.join(", ", searchRates(options).stream().map(Units::rate).toList())
              + " messages/s in turn; a rate is tolerated when every message gets its delivery receipt within "
              + config.receiptDeadline().toSeconds()
              + " s at p99 (our deadline: the original published none), none fails and 95% of its starts are made");
    }
    if (!config.workerSweep().isEmpty()) {
      notes.add(
          "provider-worker sweep: both providers restarted with --workers N, then "
              + SWEEP_SENDERS
              + " senders without pause (closed loop),"
              + " messages/s end to end; OpenPEC's maxServers = 2 × CPUs + x (x = 1 to 3) read against it with the services' cores"
              + (options.quick() ? "; quick: 1 worker and the rule's count only" : ""));
    }
    if (options.quick())
      notes.add(
          "quick: runs of 1 s, 2 kept after a warm-up of up to 6 s until steady, and a 15 s flow: the providers measured cold;"
              + (searchRates(options).isEmpty()
                  ? " no maximum-load search"
                  : " the maximum-load search at two rates, 3 s each")
              + "; for sizing leave --quick out");
    return notes;
  }
}
