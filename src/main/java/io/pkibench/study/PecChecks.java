package io.pkibench.study;

import static io.pkibench.study.PecStudy.NO_SUCH_USER;
import static io.pkibench.study.PecStudy.P1;
import static io.pkibench.study.PecStudy.P2;
import static io.pkibench.study.PecStudy.SEARCH;

import io.pkibench.formats.pec.PecLogin;
import io.pkibench.formats.pec.PecMessages;
import io.pkibench.formats.pec.PecSender;
import io.pkibench.formats.pec.ReliabilityCheck;
import io.pkibench.formats.pec.SentMessage;
import io.pkibench.pki.TestPki;
import io.pkibench.report.StudyTables;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.server.pec.ProviderStats;
import io.pkibench.text.Units;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntFunction;

/**
 * The PEC study's checks after its runs: both spools drained and what their fsyncs cost (read from
 * each provider's {@link ProviderStats}), the original's reliability test over every mailbox, the
 * maximum load the search found, and OpenPEC's worker rule against the sweep.
 */
final class PecChecks {
  private static final Duration DRAIN_WAIT = Duration.ofSeconds(120);

  /**
   * No new mailbox file for this long with both spools empty ends the reliability check's wait: the
   * spools' stats are written now and then, so an empty one alone may be a moment old.
   */
  static final Duration SETTLED_QUIET = Duration.ofSeconds(5);

  private final PecStudy.Config config;

  PecChecks(PecStudy.Config config) {
    this.config = config;
  }

  /**
   * The checks of a run: the search's only when it searched ({@code searched}), the rule's only
   * when it swept ({@code sweep} gives the counts swept for the services' cores).
   */
  List<PostCheck> forRun(StudyOptions options, boolean searched, IntFunction<List<Integer>> sweep) {
    List<PostCheck> checks =
        new ArrayList<>(List.of(new SpoolsDrained(), new Reliability(options.pkiDir())));
    if (searched) checks.add(new MaximumLoad());
    if (!config.workerSweep().isEmpty()) checks.add(new WorkerRule(sweep));
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
      Map<String, ProviderStats.Snapshot> stats = stats();
      while (!drained(stats) && System.nanoTime() < deadline) {
        Thread.sleep(500);
        stats = stats();
      }
      List<String> parts = new ArrayList<>();
      long sent = sentCount();
      for (var e : stats.entrySet()) {
        ProviderStats.Snapshot s = e.getValue();
        if (s == null) {
          parts.add(e.getKey() + ": no stats.json in its spool");
          continue;
        }
        long fsyncs = s.fsyncs();
        double millis = s.fsyncNanos() / 1e6;
        parts.add(
            String.format(
                Locale.ROOT,
                "%s: %d messages and documents taken, %,d fsyncs, %.2f ms each, %.1f s in all%s",
                e.getKey(),
                s.accepted(),
                fsyncs,
                fsyncs == 0 ? 0 : millis / fsyncs,
                millis / 1000,
                waiting(s)));
      }
      double totalMillis =
          stats.values().stream()
              .filter(s -> s != null)
              .mapToDouble(s -> s.fsyncNanos() / 1e6)
              .sum();
      long totalFsyncs =
          stats.values().stream().filter(s -> s != null).mapToLong(s -> s.fsyncs()).sum();
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

    private String waiting(ProviderStats.Snapshot s) {
      int jobs = s.waitingJobs();
      int items = s.waitingItems();
      return jobs == 0 && items == 0
          ? ""
          : ", " + jobs + " messages and " + items + " documents still waiting";
    }
  }

  /**
   * Each provider's stats as its spool holds them, null where there is none yet or it is being
   * replaced (read again next round); a file of another format fails the check, saying so.
   */
  private Map<String, ProviderStats.Snapshot> stats() throws ProviderStats.UnknownFormat {
    Map<String, ProviderStats.Snapshot> stats = new LinkedHashMap<>();
    for (String d : List.of(P1, P2)) {
      Path file = config.spoolRoot().resolve(d).resolve("stats.json");
      ProviderStats.Snapshot snapshot = null;
      try {
        if (Files.exists(file)) snapshot = ProviderStats.Snapshot.read(file);
      } catch (ProviderStats.UnknownFormat e) {
        throw e;
      } catch (IOException e) {
        snapshot = null;
      }
      stats.put(d, snapshot);
    }
    return stats;
  }

  private static boolean drained(Map<String, ProviderStats.Snapshot> stats) {
    return stats.values().stream()
        .allMatch(s -> s != null && s.waitingJobs() == 0 && s.waitingItems() == 0);
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
                : "maximum load " + Units.rate(tolerated) + " messages/s")
            + " (delivery receipts within "
            + deadline.toSeconds()
            + " s, nothing failed); at "
            + Units.rate(r.targetPerSecond())
            + ": "
            + missed;
      }
      tolerated = r.targetPerSecond();
    }
    return tolerated == null
        ? "no rate was measured"
        : "every rate tried was tolerated, up to "
            + Units.rate(tolerated)
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
          StudyTables.rows(result).stream()
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
    int rule = PecStudy.ruleWorkers(cores);
    Double atRule = ratePerWorkers.get(rule);
    String measured =
        String.join(
            ", ",
            ratePerWorkers.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey() + ": " + Units.rate(e.getValue()))
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
              + Units.rate(atRule)
              + " messages/s, too few: the best needs "
              + enough;
    else
      verdict =
          "the rule does NOT hold here: "
              + rule
              + " workers give "
              + Units.rate(atRule)
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
        + Units.rate(best)
        + ") from "
        + enough
        + "; "
        + verdict;
  }

  /** The sweep's rates, each read from the row the study labelled with its worker count. */
  final class WorkerRule implements PostCheck {
    private final IntFunction<List<Integer>> sweep;

    /** {@code sweep}: the worker counts the study swept for the services' cores. */
    WorkerRule(IntFunction<List<Integer>> sweep) {
      this.sweep = sweep;
    }

    @Override
    public String name() {
      return "OpenPEC's 2 × CPUs + x rule";
    }

    @Override
    public Outcome check(RunResult result, RunningServices services) {
      Map<String, Integer> workersByLabel = new LinkedHashMap<>();
      for (int workers : sweep.apply(services.serviceCores()))
        workersByLabel.put(PecStudy.sweepLabel(workers), workers);
      Map<Integer, Double> rates = new TreeMap<>();
      for (var r : StudyTables.rows(result)) {
        Integer workers = workersByLabel.get(r.label());
        if (workers == null || r.level().isEmpty()) continue;
        rates.put(workers, r.level().get().throughput().mean());
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

    /** Both spools empty as their stats say (a stats file being replaced: not known, so no). */
    private boolean nothingQueued() {
      try {
        return drained(stats());
      } catch (ProviderStats.UnknownFormat e) {
        return false;
      }
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
          new PecSender(p1.getHost(), p1.getPort(), InstantSource.system(), f -> login)
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
      // up to a minute for receipts on their way, less once both spools are empty and no document
      // has arrived for a few seconds: nothing is left to deliver what is missing
      ReliabilityCheck.Result r =
          ReliabilityCheck.await(
              roots, sent, Duration.ofSeconds(60), this::nothingQueued, SETTLED_QUIET);
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
}
