package io.pkibench.server.pec;

import io.pkibench.formats.pec.PecLogin;
import io.pkibench.formats.pec.PecProvider;
import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.formats.pec.SmtpClient;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.Secret;
import io.pkibench.pki.TestPki;
import io.pkibench.server.ReferenceServer;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;

/**
 * A PEC provider one can mail through ({@code pkibench serve pec}): SMTP in ({@link SmtpIntake}),
 * the durable spool, {@code workers} threads doing the provider's part ({@link JobProcessor}), and
 * the {@link Carrier} that puts results into Maildirs or relays them over SMTP to the peer
 * providers, retrying a peer that is down. A message is answered 250 only once it is on the disk.
 * What it counts is {@link ProviderStats}; its times (a relay's deadline, a retry's wait) come from
 * the clock it is given.
 */
public final class PecServer implements ReferenceServer {
  /**
   * What a provider is and what it bounds: its domain, where it listens, its peers by domain
   * (HOST:PORT), its workers, spool and mailboxes, its users, how long a relay may wait for a peer,
   * and what bounds its SMTP clients. Made with {@link #builder}.
   */
  public record Config(
      String domain,
      String bind,
      int port,
      Map<String, String> peers,
      int workers,
      Path spool,
      Path mailboxes,
      Set<String> users,
      Duration relayDeadline,
      SmtpLimits limits) {
    public Config {
      domain = domain.toLowerCase(Locale.ROOT);
      peers = Map.copyOf(peers);
      users =
          users.stream()
              .map(u -> u.toLowerCase(Locale.ROOT))
              .collect(Collectors.toUnmodifiableSet());
      Objects.requireNonNull(spool, "spool");
      Objects.requireNonNull(mailboxes, "mailboxes");
      Objects.requireNonNull(limits, "limits");
    }

    /**
     * The provider of {@code domain} with its spool and mailboxes; on 127.0.0.1, any free port, no
     * peers, 4 workers, the {@link #TEST_USERS}, a relay deadline of 24 h and {@link
     * SmtpLimits#DEFAULTS}, each changed by the builder's methods.
     */
    public static Builder builder(String domain, Path spool, Path mailboxes) {
      return new Builder(domain, spool, mailboxes);
    }

    /** Every problem of these settings, each naming the flag of {@code serve pec}. */
    public List<String> problems() {
      List<String> problems = new ArrayList<>();
      if (!domain.matches("[a-z0-9]([a-z0-9.-]*[a-z0-9])?"))
        problems.add("--domain " + domain + ": write a mail domain, e.g. pec1.test");
      peers.forEach(
          (peer, where) -> {
            if (!where.matches(".+:[0-9]{1,5}"))
              problems.add(
                  "--peer "
                      + peer
                      + "="
                      + where
                      + ": write DOMAIN=HOST:PORT, e.g. pec2.test=127.0.0.1:2526");
          });
      if (workers < 1 || workers > 256) problems.add("--workers " + workers + ": give 1 to 256");
      // A negative size is one the command line could not read, and has said so.
      int maxMessageBytes = limits.maxMessageBytes();
      if (maxMessageBytes >= 0 && maxMessageBytes < 1024)
        problems.add("--max-message " + maxMessageBytes + " bytes: give at least 1k, like 32m");
      if (limits.maxRecipients() < 1 || limits.maxRecipients() > 10_000)
        problems.add("--max-recipients " + limits.maxRecipients() + ": give 1 to 10000");
      if (limits.maxConnections() < 1 || limits.maxConnections() > 10_000)
        problems.add("--max-connections " + limits.maxConnections() + ": give 1 to 10000");
      return problems;
    }
  }

  /** Builds a {@link Config} one named setting at a time. */
  public static final class Builder {
    private final String domain;
    private final Path spool;
    private final Path mailboxes;
    private String bind = "127.0.0.1";
    private int port;
    private Map<String, String> peers = Map.of();
    private int workers = 4;
    private Set<String> users = TEST_USERS;
    private Duration relayDeadline = Duration.ofHours(24);
    private SmtpLimits limits = SmtpLimits.DEFAULTS;

    private Builder(String domain, Path spool, Path mailboxes) {
      this.domain = domain;
      this.spool = spool;
      this.mailboxes = mailboxes;
    }

    public Builder bind(String address) {
      this.bind = address;
      return this;
    }

    /** 0: any free port. */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** The peer providers, HOST:PORT by domain. */
    public Builder peers(Map<String, String> peers) {
      this.peers = peers;
      return this;
    }

    public Builder workers(int workers) {
      this.workers = workers;
      return this;
    }

    /** The local parts that have a mailbox. */
    public Builder users(Set<String> users) {
      this.users = users;
      return this;
    }

    public Builder relayDeadline(Duration deadline) {
      this.relayDeadline = deadline;
      return this;
    }

    public Builder limits(SmtpLimits limits) {
      this.limits = limits;
      return this;
    }

    public Config build() {
      return new Config(
          domain, bind, port, peers, workers, spool, mailboxes, users, relayDeadline, limits);
    }
  }

  /**
   * The provider of {@code config.domain()} signing with {@code key}, knowing its peers by {@code
   * index}, its documents and its deadlines by {@code clock}; warns through {@code log} when the
   * index lists another certificate for the domain (peers would refuse its documents).
   */
  public static PecServer forKey(
      Config config,
      SigningKey key,
      ProviderIndex index,
      String name,
      InstantSource clock,
      ZoneId zone,
      Logins logins,
      Consumer<String> log)
      throws IOException {
    String domain = config.domain();
    if (index.certificate(domain).isPresent()
        && !index.certificate(domain).get().equals(key.certificate())) {
      log.accept(
          "warning: the index lists another certificate for "
              + domain
              + " than key "
              + key.alias()
              + "'s; peers will refuse its documents");
    }
    var provider =
        new PecProvider(
            domain,
            name != null ? name : "pkibench PEC provider " + domain,
            key,
            index,
            clock,
            zone);
    return new PecServer(config, provider, logins, log, clock);
  }

  /**
   * The users a provider has mailboxes for when none are named: the test users the workloads and
   * studies mail as.
   */
  public static final Set<String> TEST_USERS =
      Set.of("user1", "user2", "user3", "user4", "user5", "user6", "user7", "user8", "user9");

  /** How long a peer may take over one relay before the item waits for the next round. */
  private static final Duration RELAY_TIMEOUT = Duration.ofSeconds(60);

  /**
   * Connections kept open to each peer between relays (one per worker and the carrier would do),
   * and for how long.
   */
  private static final int RELAY_IDLE_PER_PEER = 8;

  /**
   * Well under a peer's command deadline (60 s by default) and idle timeout, after which it cuts a
   * silent client.
   */
  private static final Duration RELAY_IDLE = Duration.ofSeconds(10);

  /**
   * Who may submit: the provider's users log in with SMTP AUTH, offered only after STARTTLS with
   * the {@code tls} identity; {@code passwordOf} gives a user's password by address, null for no
   * such user. Who may relay: a peer of the provider index, presenting over STARTTLS the
   * certificate the index lists for its domain; this provider presents {@code relayIdentity} (its
   * own) when it relays.
   */
  public record Logins(
      SSLContext tls, Function<String, Secret> passwordOf, SSLContext relayIdentity) {
    /**
     * STARTTLS with the test PKI's tls-server identity, trusting its root so that peers'
     * certificates can be checked against the index; the users' passwords derived from the PKI
     * ({@link PecLogin}); relaying, the provider presents {@code signing}, the certificate the
     * index lists for it (when that key cannot be a TLS client identity, {@code log} says so and
     * the provider relays without one).
     */
    public static Logins forTestPki(TestPki pki, SigningKey signing, Consumer<String> log)
        throws Exception {
      X509Certificate root = pki.certificate("root-ca");
      SSLContext tls =
          TlsContexts.withIdentity(
              new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key("tls-server"), root);
      SSLContext relayIdentity = null;
      try {
        relayIdentity = TlsContexts.withIdentity(signing, root);
      } catch (GeneralSecurityException e) {
        log.accept(
            "warning: key "
                + signing.alias()
                + " cannot be a TLS client identity ("
                + e.getMessage()
                + "); the provider relays without presenting its certificate, and peers that require it will refuse");
      }
      return new Logins(tls, address -> PecLogin.testPassword(pki, address), relayIdentity);
    }

    /**
     * Without a relay identity: this provider relays without presenting a certificate (peers that
     * require one refuse it).
     */
    public Logins(SSLContext tls, Function<String, Secret> passwordOf) {
      this(tls, passwordOf, null);
    }

    @Override
    public String toString() {
      return "Logins[STARTTLS, passwords ****]";
    }
  }

  private final Config config;
  private final ProviderLog log;
  private final Durable durable;
  private final PecSpool spool;
  private final Maildir mailboxes;
  private final RelayConnections relays;
  private final ProviderStats stats = new ProviderStats();
  private final BlockingQueue<String> jobs = new LinkedBlockingQueue<>();
  private final SmtpIntake intake;
  private final JobProcessor processor;
  private final Carrier carrier;
  private final List<Thread> threads = new ArrayList<>();

  /** A provider on the system clock. */
  public PecServer(Config config, PecProvider provider, Logins logins, Consumer<String> log)
      throws IOException {
    this(config, provider, logins, log, InstantSource.system());
  }

  /**
   * A provider whose relay deadlines and retries run by {@code clock} (a test moves it instead of
   * waiting).
   */
  public PecServer(
      Config config, PecProvider provider, Logins logins, Consumer<String> log, InstantSource clock)
      throws IOException {
    this(config, provider, logins, log, clock, new Durable());
  }

  /** A provider whose forces {@code durable} makes (and a test's {@link Durable.Watch} sees). */
  PecServer(
      Config config,
      PecProvider provider,
      Logins logins,
      Consumer<String> log,
      InstantSource clock,
      Durable durable)
      throws IOException {
    this.config = config;
    this.durable = durable;
    this.log = new ProviderLog(config.domain(), log);
    this.mailboxes = new Maildir(config.mailboxes(), durable);
    this.spool = new PecSpool(config.spool(), durable, mailboxes::sync, clock);
    this.relays =
        new RelayConnections(
            (host, port) ->
                SmtpClient.Connection.open(
                    host, port, config.domain(), RELAY_TIMEOUT, null, logins.relayIdentity()),
            RELAY_IDLE_PER_PEER,
            RELAY_IDLE,
            System::nanoTime);
    this.carrier =
        new Carrier(config, provider, spool, mailboxes, relays, stats, this.log, clock, jobs::add);
    this.processor =
        new JobProcessor(config, provider, spool, mailboxes, carrier, stats, this.log, clock, jobs);
    this.intake = new SmtpIntake(config, provider, logins, spool, stats, this.log, jobs::add);
  }

  @Override
  public void start() throws Exception {
    List<String> left = spool.pendingJobs();
    if (spool.tornBytes() > 0) {
      log.say(
          "the spool's journal ended in a torn record ("
              + spool.tornBytes()
              + " bytes, written when the provider stopped and never acknowledged); cut off");
    }
    try {
      int restored = spool.restoreDeliveries(mailboxes);
      if (restored > 0) {
        log.say(
            restored
                + " mailbox deliveries the journal recorded were missing or cut short (the disk lost them"
                + " when the provider stopped); rewritten from the journal");
      }
    } catch (IOException e) {
      // not started: the next checkpoint would drop records of deliveries the mailboxes do not hold
      throw new IOException(
          "--mailboxes "
              + config.mailboxes()
              + ": cannot rewrite the deliveries the spool's journal recorded ("
              + e.getMessage()
              + "); free the disk or fix its permissions and start the provider again",
          e);
    }
    if (!Durable.syncfsReaches(config.mailboxes())) {
      log.say(
          "--mailboxes "
              + config.mailboxes()
              + " is on a FUSE file system, which syncfs(2) does not reach: each checkpoint fsyncs"
              + " the messages delivered since the last one, one by one");
    }
    if (!left.isEmpty())
      log.say(left.size() + " acknowledged messages from before the restart are processed first");
    jobs.addAll(left);
    for (int i = 0; i < config.workers(); i++)
      threads.add(Thread.ofPlatform().name("pec-worker-" + i).daemon().start(processor::work));
    threads.add(
        Thread.ofPlatform()
            .name("pec-carrier")
            .daemon()
            .start(() -> carrier.carryLoop(this::writeStats)));
    intake.start();
  }

  @Override
  public String baseUrl() {
    Integer port = intake.port();
    return "smtp://" + config.bind() + ":" + (port == null ? config.port() : port);
  }

  @Override
  public String details() {
    return "domain "
        + config.domain()
        + ", "
        + config.workers()
        + " workers, spool "
        + config.spool()
        + ", mailboxes "
        + config.mailboxes()
        + (config.peers().isEmpty() ? "" : ", peers " + config.peers());
  }

  /** What the provider did so far, as {@code SPOOL/stats.json} holds it. */
  public ProviderStats.Snapshot stats() {
    return stats.snapshot(durable, spool);
  }

  /**
   * Flushes the mailboxes and says so in the journal now, as the carrier does every 10 s; false
   * when nothing was delivered since the last checkpoint.
   */
  boolean checkpoint() throws IOException {
    return spool.checkpoint();
  }

  /**
   * {@code SPOOL/stats.json}, rewritten every carrier round and on close: what a study reads for
   * the spool's fsync cost while we run.
   */
  private void writeStats() {
    stats.write(stats(), config.spool(), log);
  }

  @Override
  public void close() {
    processor.stop();
    carrier.stop();
    intake.stop();
    for (Thread t : threads) {
      try {
        t.join(5000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    relays.close();
    try {
      spool.checkpoint(); // a clean stop leaves no delivery for the next start to check
    } catch (IOException e) {
      log.say(
          "flushing the mailboxes on closing: "
              + e.getMessage()
              + "; the next start checks their deliveries");
    }
    try {
      spool.close();
    } catch (IOException e) {
      log.say("the spool's journal on closing: " + e.getMessage());
    }
    writeStats();
  }

  /**
   * What is wrong with {@code localPart} as a user's name (for --users), or null when RCPT would
   * take it.
   */
  public static String localPartProblem(String localPart) {
    try {
      MailAddress.parse(localPart + "@example.test");
      return localPart.contains("@")
          ? "is an address; give the local part alone, e.g. user1"
          : null;
    } catch (IllegalArgumentException e) {
      return "is not a local part this provider takes: " + e.getMessage();
    }
  }

  static String domainOf(String address) {
    int at = address.lastIndexOf('@');
    return at < 0 ? "" : address.substring(at + 1).toLowerCase(Locale.ROOT);
  }
}
