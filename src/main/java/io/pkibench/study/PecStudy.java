package io.pkibench.study;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.files.OutputFiles;
import io.pkibench.formats.pec.DocumentKind;
import io.pkibench.formats.pec.Outgoing;
import io.pkibench.formats.pec.PecLogin;
import io.pkibench.formats.pec.PecMessages;
import io.pkibench.formats.pec.PecProvider;
import io.pkibench.formats.pec.PecSender;
import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.formats.pec.ReliabilityCheck;
import io.pkibench.formats.pec.SentMessage;
import io.pkibench.formats.pec.TestProviders;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.ThreadKind;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.report.HumanUnits;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.pec.PauseRange;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Study 4 of STUDIES.md (OpenPEC): a certified e-mail provider's signing path and verification
 * path, each alone in this JVM at 1 to 16 workers as the original measured them; then the complete
 * flow, two providers ({@code serve pec}, each its own JVM, their CPU by pid) mailing each other
 * over SMTP, pec1.test's user 2 messages in 5 and pec2.test's 3 (the original's ≈800 and ≈1,200) of
 * 56–80 KB, offered at a fixed rate; then the reliability check over every mailbox, and the spools'
 * fsync cost.
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

  /** Why the original's seconds per mail are no yardstick for ours. */
  static final String OTHER_ERA =
      "the original ran on a single-CPU Pentium III at 500 MHz, calling openssl once per operation and spooling"
          + " to its disk; ours signs 60 KB in this JVM on today's cores: seconds per mail would compare the machines (the ratio below does not)";

  private static final StudyInfo INFO =
      new StudyInfo(
          "pec",
          "PEC certified e-mail: the signing and verification paths at 1 to 16 workers, then two providers mailing each other over SMTP,"
              + " and the reliability check (after OpenPEC)",
          new StudyRecord.Unit("messages/s", 1),
          new StudyRecord.Published(
              "OpenPEC load and reliability tests (STUDIES.md, study 4)",
              "worker processes 1 to 16 on the signing and the verification path measured apart, then two providers mailing each other ≈800 and"
                  + " ≈1,200 messages of 56–80 KB; the disk (the spool) was the bottleneck in one case; the reliability test found 1 undeliverable"
                  + " message (a non-conforming header), handled per the rules; signing and verification on single-CPU Pentium III 500 MHz servers,"
                  + " 18 mails of ~22 KB a test",
              // s/mail is the batch's time over its 18 mails, as the original printed both; ours is
              // a path's wall time per mail at its peak
              List.of(
                  new StudyRecord.Figure(
                      SIGN,
                      2.6,
                      "1 CPU, 1 to 16 processes: batch of 18 mails of ~22 KB in 46 s",
                      OTHER_ERA),
                  new StudyRecord.Figure(
                      SIGN,
                      1.6,
                      "2 CPUs, 2 to 16 processes: batch of 18 mails in 29 s (46 s at 1 process)",
                      OTHER_ERA),
                  new StudyRecord.Figure(
                      VERIFY,
                      14,
                      "1 CPU, 1 process: batch of 18 mails in 3'55\" (235 s); 15 s/mail, 4'46\"-4'50\" at 2 to 8",
                      OTHER_ERA),
                  new StudyRecord.Figure(
                      VERIFY,
                      6.39,
                      "2 CPUs, 8 and 16 processes: batch of 18 mails in 1'55\" (115 s); 11.11 s/mail at 1 process",
                      OTHER_ERA),
                  new StudyRecord.Figure(
                      FLOW,
                      4.8,
                      "two 1-CPU providers mailing each other: 2,020 mails (794 + 1,226) in 161'34\" on the slower"
                          + " (5,266 documents signed or verified there, 1.84 s each)",
                      OTHER_ERA)),
              new StudyRecord.Unit("s/mail", 1, StudyRecord.Unit.SECONDS_PER_OPERATION),
              null,
              // A ratio of two paths on one machine carries no hardware: the one figure of the
              // original ours can be set against.
              List.of(
                  new StudyRecord.Ratio(
                      "verification ÷ signing per mail",
                      VERIFY,
                      SIGN,
                      1,
                      14 / 2.6,
                      "14 s ÷ 2.6 s, 1 process")),
              BATCH),
          Duration.ofSeconds(5));

  @Override
  public StudyInfo info() {
    return INFO;
  }

  /** A mailbox no provider has: the non-conforming message goes to it. */
  static final String NO_SUCH_USER = "nobody";

  static final String P1 = TestProviders.SENDER_DOMAIN;
  static final String P2 = TestProviders.RECIPIENT_DOMAIN;
  static final List<Integer> WORKERS = List.of(1, 2, 4, 8, 16);

  /** pec1.test : pec2.test messages in the flow, as the original's ≈800 and ≈1,200. */
  static final String MIX = "2:3";

  static final String MARKER = ".pkibench-pec-study";
  private static final Duration DRAIN_WAIT = Duration.ofSeconds(120);

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

    /** Without the paced reliability run. */
    public Config(
        Path dir,
        Path spool,
        double flowRatePerSecond,
        int providerWorkers,
        List<Integer> pathWorkers,
        Duration flowWarmup,
        Duration flowMeasure,
        List<Double> searchRates,
        Duration receiptDeadline,
        List<Integer> workerSweep) {
      this(
          dir,
          spool,
          flowRatePerSecond,
          providerWorkers,
          pathWorkers,
          flowWarmup,
          flowMeasure,
          searchRates,
          receiptDeadline,
          workerSweep,
          null);
    }

    /**
     * This configuration with the paced reliability run: users pausing {@code pauses} before each
     * message.
     */
    public Config withPauses(PauseRange pauses) {
      return new Config(
          dir,
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

    /** Without the maximum-load search and the worker sweep. */
    public Config(
        Path dir,
        Path spool,
        double flowRatePerSecond,
        int providerWorkers,
        List<Integer> pathWorkers,
        Duration flowWarmup,
        Duration flowMeasure) {
      this(
          dir,
          spool,
          flowRatePerSecond,
          providerWorkers,
          pathWorkers,
          flowWarmup,
          flowMeasure,
          List.of(),
          RECEIPT_DEADLINE,
          List.of());
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
          List.of(1, 2, 4, 8, 16));
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
    problems.addAll(ownable("--dir", config.dir()));
    if (config.spool() != null) problems.addAll(ownable("--spool", config.spool()));
    return problems;
  }

  /** A directory the study may empty: new, empty, or one it made before (marked). */
  private static List<String> ownable(String flag, Path dir) {
    if (Files.exists(dir) && !Files.isDirectory(dir))
      return List.of(flag + " " + dir + ": is a file; give a directory");
    if (!Files.isDirectory(dir) || Files.exists(dir.resolve(MARKER))) return List.of();
    try (Stream<Path> entries = Files.list(dir)) {
      if (entries.findAny().isPresent()) {
        return List.of(
            flag
                + " "
                + dir
                + ": holds files this study did not put there, and each run empties its directory;"
                + " give a new or empty directory");
      }
    } catch (IOException e) {
      return List.of(flag + " " + dir + ": cannot be read (" + e.getMessage() + ")");
    }
    return List.of();
  }

  /**
   * The two providers, each peered with the other by port. Their directories are emptied here,
   * before anything starts: the reliability check must see this run's mail alone.
   */
  @Override
  public List<ServiceSpec> services(StudyOptions options) {
    try {
      fresh(config.dir());
      if (config.spool() != null) fresh(config.spool());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(
          "cannot prepare the study's directory: " + e.getMessage(), e);
    }
    List<ServiceSpec> providers = new ArrayList<>();
    for (String[] pair : List.of(new String[] {P1, P2}, new String[] {P2, P1})) {
      List<String> args =
          new ArrayList<>(
              List.of(
                  "pec",
                  "--domain",
                  pair[0],
                  "--peer",
                  pair[1] + "=127.0.0.1:{port:" + pair[1] + "}",
                  "--workers",
                  Integer.toString(config.providerWorkers()),
                  "--spool",
                  config.spoolRoot().resolve(pair[0]).toString(),
                  "--mailboxes",
                  config.mailboxes().resolve(pair[0]).toString(),
                  "--pki",
                  options.pkiDir().toString(),
                  "--keys",
                  options.keys()));
      if (options.pinFile() != null)
        args.addAll(List.of("--pin-file", options.pinFile().toString()));
      providers.add(new ServiceSpec(pair[0], args, "smtp"));
    }
    return providers;
  }

  private static void fresh(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      try (Stream<Path> all = Files.walk(dir)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList())
          if (!p.equals(dir)) Files.delete(p);
      }
    }
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve(MARKER),
        "made by 'pkibench study pec'; emptied at the start of each of its runs\n");
  }

  @Override
  public List<Step> steps(StudyOptions options, RunningServices services) {
    Iterations warmup = options.warmup("1x500ms", 1);
    Iterations measure = options.iterations("2x1s", 3);
    List<Step> steps = new ArrayList<>();
    for (String[] path :
        List.of(new String[] {SIGN, "pec-sign"}, new String[] {VERIFY, "pec-verify"})) {
      WorkloadSpec spec = new WorkloadSpec(path[1], Map.of("size", "60k"), options.keys());
      steps.add(
          Step.of(
              path[0],
              Plan.of(List.of(spec))
                  .concurrency(config.pathWorkers())
                  .warmup(warmup)
                  .measure(measure)
                  .cpu("client")
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
              .before(providersWithWorkers(workers)));
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
    java.util.TreeSet<Integer> counts = new java.util.TreeSet<>(config.workerSweep());
    counts.add(ruleWorkers(cores));
    return List.copyOf(counts);
  }

  private static StepHook providersWithWorkers(int workers) {
    return new StepHook() {
      @Override
      public String describe() {
        return "restart both providers with --workers " + workers;
      }

      @Override
      public void run(RunningServices services) throws Exception {
        for (String provider : List.of(P1, P2)) {
          List<String> args = new ArrayList<>(services.args(provider));
          args.set(args.indexOf("--workers") + 1, Integer.toString(workers));
          services.restartWith(provider, args);
        }
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
    return FLOW + " [" + HumanUnits.rate(config.flowRatePerSecond()) + " messages/s]";
  }

  private static int port(RunningServices services, String name) {
    return URI.create(services.url(name)).getPort();
  }

  @Override
  public List<PostCheck> checks(StudyOptions options) {
    List<PostCheck> checks =
        new ArrayList<>(List.of(new SpoolsDrained(), new Reliability(options.pkiDir())));
    if (!searchRates(options).isEmpty()) checks.add(new MaximumLoad());
    if (!config.workerSweep().isEmpty()) checks.add(new WorkerRule());
    return checks;
  }

  /** Both spools empty (nothing waiting to be processed or carried), and what their fsyncs cost. */
  final class SpoolsDrained implements PostCheck {
    @Override
    public String name() {
      return "spools drained, fsync cost";
    }

    @Override
    public Outcome check(RunResult result, RunningServices services) throws Exception {
      long deadline = System.nanoTime() + DRAIN_WAIT.toNanos();
      Map<String, JsonNode> stats = stats();
      while (!drained(stats) && System.nanoTime() < deadline) {
        Thread.sleep(500);
        stats = stats();
      }
      List<String> parts = new ArrayList<>();
      long sent = sentCount();
      for (var e : stats.entrySet()) {
        JsonNode s = e.getValue();
        if (s == null) {
          parts.add(e.getKey() + ": no stats.json in its spool");
          continue;
        }
        long fsyncs = s.path("fsyncs").asLong();
        double millis = s.path("fsyncNanos").asLong() / 1e6;
        parts.add(
            String.format(
                Locale.ROOT,
                "%s: %d messages and documents taken, %,d fsyncs, %.2f ms each, %.1f s in all%s",
                e.getKey(),
                s.path("accepted").asLong(),
                fsyncs,
                fsyncs == 0 ? 0 : millis / fsyncs,
                millis / 1000,
                waiting(s)));
      }
      double totalMillis =
          stats.values().stream()
              .filter(s -> s != null)
              .mapToDouble(s -> s.path("fsyncNanos").asLong() / 1e6)
              .sum();
      long totalFsyncs =
          stats.values().stream()
              .filter(s -> s != null)
              .mapToLong(s -> s.path("fsyncs").asLong())
              .sum();
      if (sent > 0) {
        parts.add(
            String.format(
                Locale.ROOT,
                "per message sent: %.1f fsyncs, %.1f ms of fsync (spools on %s)",
                (double) totalFsyncs / sent,
                totalMillis / sent,
                config.spoolRoot()));
      }
      String detail = String.join("; ", parts);
      return drained(stats)
          ? Outcome.pass(detail)
          : Outcome.fail("work still waiting after " + DRAIN_WAIT.toSeconds() + " s: " + detail);
    }

    private String waiting(JsonNode s) {
      int jobs = s.path("waitingJobs").asInt();
      int items = s.path("waitingItems").asInt();
      return jobs == 0 && items == 0
          ? ""
          : ", " + jobs + " messages and " + items + " documents still waiting";
    }
  }

  private Map<String, JsonNode> stats() {
    Map<String, JsonNode> stats = new LinkedHashMap<>();
    for (String d : List.of(P1, P2)) {
      Path file = config.spoolRoot().resolve(d).resolve("stats.json");
      JsonNode node = null;
      try {
        if (Files.exists(file))
          node = new ObjectMapper().readTree(Files.readString(file, StandardCharsets.UTF_8));
      } catch (IOException e) {
        node = null; // being replaced; read again next round
      }
      stats.put(d, node);
    }
    return stats;
  }

  private static boolean drained(Map<String, JsonNode> stats) {
    return stats.values().stream()
        .allMatch(
            s ->
                s != null
                    && s.path("waitingJobs").asInt() == 0
                    && s.path("waitingItems").asInt() == 0);
  }

  private long sentCount() throws IOException {
    return Files.exists(config.sent()) ? SentMessage.read(config.sent()).size() : 0;
  }

  /**
   * What one rate of the search did: asked, the starts it made per second, failed operations and
   * the receipts' p99.
   */
  record RateOutcome(double targetPerSecond, double achievedPerSecond, long failed, long p99Nanos) {
    /**
     * From a measured level: the starts made are the scheduled ones less those missed. Not the
     * level's throughput: that counts messages whose receipt came within the iteration, and a
     * receipt a second late in a 1.5 s iteration read as a third of the starts missing ("only 5.6
     * of 10.0 messages/s started" with none missed).
     */
    static RateOutcome of(LevelResult l) {
      double target = l.openLoop().targetRate();
      long started = l.counts().started(), missed = l.openLoop().missedStarts();
      double made = started + missed == 0 ? 0 : target * started / (started + missed);
      return new RateOutcome(target, made, l.counts().failed(), l.latencyNanos().p99());
    }

    /** Null when the rate was tolerated; else why not. */
    String missed(Duration deadline) {
      if (failed > 0) return failed + " messages failed";
      if (achievedPerSecond < 0.95 * targetPerSecond)
        return String.format(
            Locale.ROOT,
            "only %.1f of %.1f messages/s started",
            achievedPerSecond,
            targetPerSecond);
      if (p99Nanos > deadline.toNanos())
        return String.format(
            Locale.ROOT,
            "p99 to the delivery receipt %.1f s, past the %d s deadline",
            p99Nanos / 1e9,
            deadline.toSeconds());
      return null;
    }
  }

  /**
   * The search's answer: the highest rate tolerated with every lower one tolerated too, and the
   * first that was not, with why.
   */
  static String maximumLoad(List<RateOutcome> rates, Duration deadline) {
    Double tolerated = null;
    for (RateOutcome r : rates) {
      String missed = r.missed(deadline);
      if (missed != null) {
        return (tolerated == null
                ? "no rate tried was tolerated"
                : "maximum load " + HumanUnits.rate(tolerated) + " messages/s")
            + " (delivery receipts within "
            + deadline.toSeconds()
            + " s, nothing failed); at "
            + HumanUnits.rate(r.targetPerSecond())
            + ": "
            + missed;
      }
      tolerated = r.targetPerSecond();
    }
    return tolerated == null
        ? "no rate was measured"
        : "every rate tried was tolerated, up to "
            + HumanUnits.rate(tolerated)
            + " messages/s: the maximum load is higher (add rates)";
  }

  /** The search's rates, read from the result. */
  final class MaximumLoad implements PostCheck {
    @Override
    public String name() {
      return "maximum load of the two-domain flow";
    }

    @Override
    public Outcome check(RunResult result, RunningServices services) {
      var row =
          io.pkibench.report.StudyTables.rows(result).stream()
              .filter(r -> r.label().equals(SEARCH) && r.measured() != null)
              .findFirst();
      if (row.isEmpty()) return Outcome.fail("the search was not measured");
      List<RateOutcome> rates =
          row.get().measured().levels().stream().map(RateOutcome::of).toList();
      return Outcome.pass(maximumLoad(rates, config.receiptDeadline()));
    }
  }

  /**
   * OpenPEC's {@code maxServers = 2 × CPUs + x} read against the sweep: the fewest workers within
   * 5% of the best rate, and whether the rule's count reaches it (more workers past it buy nothing;
   * fewer lose rate).
   */
  static String workerRule(Map<Integer, Double> ratePerWorkers, int cores) {
    if (ratePerWorkers.isEmpty()) return "the sweep measured nothing";
    double best = ratePerWorkers.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
    int enough =
        ratePerWorkers.entrySet().stream()
            .filter(e -> e.getValue() >= 0.95 * best)
            .mapToInt(Map.Entry::getKey)
            .min()
            .orElseThrow();
    int rule = ruleWorkers(cores);
    Double atRule = ratePerWorkers.get(rule);
    String measured =
        String.join(
            ", ",
            ratePerWorkers.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey() + ": " + HumanUnits.rate(e.getValue()))
                .toList());
    String verdict;
    if (atRule == null) verdict = "the rule's count was not measured";
    else if (atRule >= 0.95 * best)
      verdict =
          "the rule holds: "
              + rule
              + " workers reach the best rate"
              + (enough < rule
                  ? " (" + enough + " already did: the rule errs on the safe side, as its x does)"
                  : "");
    else if (enough > rule)
      verdict =
          "the rule does NOT hold here: "
              + rule
              + " workers give "
              + HumanUnits.rate(atRule)
              + " messages/s, too few: the best needs "
              + enough;
    else
      verdict =
          "the rule does NOT hold here: "
              + rule
              + " workers give "
              + HumanUnits.rate(atRule)
              + " messages/s, too many: "
              + enough
              + " give the best, more lose rate";
    return "2 × "
        + cores
        + " CPUs + 1 = "
        + rule
        + " workers; messages/s by provider workers: "
        + measured
        + "; within 5% of the best ("
        + HumanUnits.rate(best)
        + ") from "
        + enough
        + "; "
        + verdict;
  }

  final class WorkerRule implements PostCheck {
    @Override
    public String name() {
      return "OpenPEC's 2 × CPUs + x rule";
    }

    @Override
    public Outcome check(RunResult result, RunningServices services) {
      Map<Integer, Double> rates = new java.util.TreeMap<>();
      for (var r : io.pkibench.report.StudyTables.rows(result)) {
        if (!r.label().startsWith(SWEEP + " [") || r.level().isEmpty()) continue;
        rates.put(
            Integer.parseInt(r.label().substring(SWEEP.length() + 2, r.label().length() - 1)),
            r.level().get().throughput().mean());
      }
      return Outcome.pass(workerRule(rates, services.serviceCores()));
    }
  }

  /**
   * The original's reliability test over both providers' mailboxes: one of each document per
   * message and recipient, by Message-ID.
   */
  final class Reliability implements PostCheck {
    private final Path pkiDir;

    Reliability(Path pkiDir) {
      this.pkiDir = pkiDir;
    }

    @Override
    public String name() {
      return "reliability";
    }

    @Override
    public Outcome check(RunResult result, RunningServices services) throws Exception {
      if (!Files.exists(config.sent()))
        return Outcome.fail("no message was acknowledged: " + config.sent() + " does not exist");
      // The original's one non-conforming message: mail to a mailbox the recipients' provider does
      // not have, which it
      // must refuse for good, and the sender's provider must say so to its user (errore-consegna,
      // "no-dest").
      String undeliverableId =
          "<pkibench.non-conforming." + Long.toString(System.nanoTime(), 36) + "@" + P1 + ">";
      URI p1 = URI.create(services.url(P1));
      String from = "user1@" + P1; // the flow's sender at the first provider
      PecLogin login = PecLogin.testUser(TestPki.open(pkiDir), from);
      PecSender.Outcome submitted =
          new PecSender(p1.getHost(), p1.getPort(), java.time.InstantSource.system(), f -> login)
              .send(
                  from,
                  List.of(NO_SUCH_USER + "@" + P2),
                  undeliverableId,
                  PecMessages.message(
                      from,
                      NO_SUCH_USER + "@" + P2,
                      undeliverableId,
                      "pkibench non-conforming message",
                      4096,
                      1));
      if (!submitted.acknowledged())
        return Outcome.fail(
            "the non-conforming message was not accepted for delivery: " + submitted.problem());
      List<SentMessage> sent = new ArrayList<>(SentMessage.read(config.sent()));
      sent.add(submitted.sent());
      List<Path> roots = List.of(config.mailboxes().resolve(P1), config.mailboxes().resolve(P2));
      ReliabilityCheck.Result r = ReliabilityCheck.await(roots, sent, Duration.ofSeconds(60));
      boolean toldUndeliverable = r.undeliverable().contains(undeliverableId);
      List<String> parts = new ArrayList<>();
      parts.add(
          toldUndeliverable
              ? "the non-conforming message (to "
                  + NO_SUCH_USER
                  + "@"
                  + P2
                  + ") came back as undeliverable, as it must"
              : "the non-conforming message (to "
                  + NO_SUCH_USER
                  + "@"
                  + P2
                  + ") did NOT come back as undeliverable");
      parts.add(r.documentsRead() + " mailbox files read in " + config.mailboxes());
      parts.add(r.byKindLine());
      if (!r.refused().isEmpty())
        parts.add(r.refused().size() + " not accepted, their senders told (non-accettazione)");
      if (!r.undeliverable().isEmpty())
        parts.add(
            r.undeliverable().size()
                + " refused by the recipients' provider, their senders told (errore-consegna)");
      if (!r.anomalies().isEmpty()) parts.add(r.anomalies().size() + " delivered as anomalies");
      if (!r.findings().isEmpty()) {
        parts.add(
            "first findings: "
                + String.join(
                    ", ",
                    r.findings().stream()
                        .limit(10)
                        .map(ReliabilityCheck.Finding::describe)
                        .toList())
                + (r.findings().size() > 10
                    ? " … " + r.findings().size() + " in all ('pkibench pec check' lists every one)"
                    : ""));
      }
      parts.add(r.summary());
      String detail = String.join("; ", parts);
      return r.passed() && toldUndeliverable ? Outcome.pass(detail) : Outcome.fail(detail);
    }
  }

  @Override
  public List<String> notes(StudyOptions options) {
    Flow f = flow(options);
    List<String> notes = new ArrayList<>();
    notes.add(
        "the signing path (pec-sign: a 60 KB message → signed acceptance receipt and transport envelope) and the verification path"
            + " (pec-verify: the envelope verified → signed taking-charge and delivery receipts) run in this JVM at "
            + config.pathWorkers()
            + " workers, measured apart as the original's worker processes; their CPU is this JVM's");
    notes.add(
        "the flow: two providers (serve pec, each its own JVM, "
            + config.providerWorkers()
            + " workers) mailing each other over SMTP on loopback,"
            + " pec1.test's user 2 messages in 5, pec2.test's 3 in 5, 56–80 KB each, offered at "
            + HumanUnits.rate(config.flowRatePerSecond())
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
              + String.join(", ", searchRates(options).stream().map(HumanUnits::rate).toList())
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

  /**
   * One of each document a provider signs, made by the code the study measured, as {@code .eml};
   * the CA chain as {@code chain.pem}; each checked by {@code openssl smime -verify}.
   */
  @Override
  public List<Sample> samples(Path dir, TestPki pki, KeySource keys, InstantSource clock)
      throws Exception {
    Files.createDirectories(dir);
    SigningKey k1 = keys.key(TestProviders.SENDER_KEY);
    SigningKey k2 = keys.key(TestProviders.RECIPIENT_KEY);
    ProviderIndex index = new ProviderIndex(Map.of(P1, k1.certificate(), P2, k2.certificate()));
    PecProvider p1 =
        new PecProvider(P1, "pkibench provider " + P1, k1, index, clock, TestProviders.ZONE);
    PecProvider p2 =
        new PecProvider(P2, "pkibench provider " + P2, k2, index, clock, TestProviders.ZONE);
    String from = "user1@" + P1;
    String to = "user1@" + P2;
    byte[] message =
        PecMessages.message(from, to, "<sample.1@" + P1 + ">", "pkibench sample", 60 * 1024, 1);
    Map<String, byte[]> documents = new LinkedHashMap<>();
    List<Outgoing> accepted = p1.accept("sample", from, List.of(to), message);
    byte[] envelope = null;
    for (Outgoing o : accepted) {
      documents.put(o.kind().value, o.bytes());
      if (o.kind() == DocumentKind.TRANSPORT) envelope = o.bytes();
    }
    for (Outgoing o : p2.receive("sample", p1.address(), List.of(to), envelope))
      if (o.kind() != null) documents.put(o.kind().value, o.bytes());
    String noId =
        new String(
                PecMessages.message(
                    from, to, "<x@" + P1 + ">", "pkibench sample without Message-ID", 2048, 2),
                StandardCharsets.US_ASCII)
            .replaceFirst("Message-ID: [^\r]*\r\n", "");
    for (Outgoing o :
        p1.accept("sample-2", from, List.of(to), noId.getBytes(StandardCharsets.US_ASCII)))
      documents.put(o.kind().value, o.bytes());
    byte[] tampered = envelope.clone();
    int at =
        new String(tampered, StandardCharsets.ISO_8859_1).indexOf("Messaggio di posta certificata");
    tampered[at] =
        'm'; // one byte of the signed text: the recipients' provider must answer with an anomaly
    for (Outgoing o : p2.receive("sample-3", p1.address(), List.of(to), tampered))
      if (o.kind() != null) documents.put(o.kind().value, o.bytes());
    documents.put(
        DocumentKind.NON_DELIVERY.value,
        p1.nonDelivery("sample", envelope, List.of(to), "sample: 550 5.1.1 no such user", true)
            .bytes());
    OutputFiles.replace(dir.resolve("chain.pem"), Files.readString(pki.caChainPem()));
    List<Sample> samples = new ArrayList<>();
    for (var e : documents.entrySet()) {
      String file = e.getKey() + ".eml";
      OutputFiles.replace(dir.resolve(file), e.getValue());
      samples.add(
          new Sample(
              file,
              describe(e.getKey()),
              "openssl smime -verify -in "
                  + file
                  + " -CAfile chain.pem -purpose any -out /dev/null",
              List.of("openssl")));
    }
    return samples;
  }

  private static String describe(String kind) {
    return switch (kind) {
      case "accettazione" -> "acceptance receipt (X-Ricevuta: accettazione), signed by pec1.test";
      case "posta-certificata" ->
          "transport envelope (X-Trasporto: posta-certificata) with postacert.eml and daticert.xml, signed by pec1.test";
      case "presa-in-carico" ->
          "taking-charge receipt (X-Ricevuta: presa-in-carico), signed by pec2.test";
      case "avvenuta-consegna" ->
          "complete delivery receipt (X-Ricevuta: avvenuta-consegna) carrying the original, signed by pec2.test";
      case "non-accettazione" ->
          "non-acceptance (X-Ricevuta: non-accettazione) of a message without Message-ID, signed by pec1.test";
      case "errore" ->
          "anomaly envelope (X-Trasporto: errore, X-VerificaSicurezza: errore) for a tampered envelope, signed by pec2.test";
      case "errore-consegna" ->
          "non-delivery notice (X-Ricevuta: errore-consegna) for an envelope the peer refused, signed by pec1.test";
      default -> kind;
    };
  }
}
