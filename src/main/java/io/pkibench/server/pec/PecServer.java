package io.pkibench.server.pec;

import io.pkibench.formats.pec.DocumentKind;
import io.pkibench.formats.pec.MailHeaders;
import io.pkibench.formats.pec.Outgoing;
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
import io.pkibench.plan.Durations;
import io.pkibench.server.NoClientRenegotiation;
import io.pkibench.server.ReferenceServer;
import io.pkibench.text.OutsideText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.subethamail.smtp.MessageContext;
import org.subethamail.smtp.MessageHandler;
import org.subethamail.smtp.RejectException;
import org.subethamail.smtp.server.SMTPServer;

/**
 * A PEC provider one can mail through ({@code pkibench serve pec}): SMTP in (SubEthaSMTP), the
 * durable spool, {@code workers} threads doing the provider's part ({@link PecProvider}), and the
 * carrier that puts results into Maildirs or relays them over SMTP to the peer providers, retrying
 * a peer that is down. A message is answered 250 only once it is on the disk.
 *
 * <p>Who is who on SMTP: a sender of our domain (other than the provider's own mailbox) submits
 * (the access point); anything else arrives (the incoming point) and may only be for our users.
 */
public final class PecServer implements ReferenceServer {
  /** What a provider is and what it bounds. */
  public record Config(
      String domain,
      String bind,
      int port,
      Map<String, String> peers,
      int workers,
      Path spool,
      Path mailboxes,
      int maxMessageBytes,
      int maxRecipients,
      int maxConnections,
      Duration idleTimeout,
      Set<String> users,
      Duration relayDeadline,
      Duration commandDeadline,
      Duration transactionDeadline,
      int maxConnectionsPerAddress) {
    public Config {
      domain = domain.toLowerCase(Locale.ROOT);
      peers = Map.copyOf(peers);
      users =
          users.stream()
              .map(u -> u.toLowerCase(Locale.ROOT))
              .collect(java.util.stream.Collectors.toUnmodifiableSet());
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
      if (maxMessageBytes >= 0 && maxMessageBytes < 1024)
        problems.add("--max-message " + maxMessageBytes + " bytes: give at least 1k, like 32m");
      if (maxRecipients < 1 || maxRecipients > 10_000)
        problems.add("--max-recipients " + maxRecipients + ": give 1 to 10000");
      if (maxConnections < 1 || maxConnections > 10_000)
        problems.add("--max-connections " + maxConnections + ": give 1 to 10000");
      return problems;
    }
  }

  /**
   * The provider of {@code config.domain()} signing with {@code key}, knowing its peers by {@code
   * index}; warns through {@code log} when the index lists another certificate for the domain
   * (peers would refuse its documents).
   */
  public static PecServer forKey(
      Config config,
      SigningKey key,
      ProviderIndex index,
      String name,
      java.time.InstantSource clock,
      java.time.ZoneId zone,
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
    return new PecServer(config, provider, logins, log);
  }

  /** A provider's defaults for what bounds its SMTP clients: see {@link SmtpDeadlines}. */
  public static final Duration COMMAND_DEADLINE = Duration.ofSeconds(60);

  public static final Duration TRANSACTION_DEADLINE = Duration.ofMinutes(10);
  public static final int MAX_CONNECTIONS_PER_ADDRESS = 100;

  /**
   * The users a provider has mailboxes for when none are named: the test users the workloads and
   * studies mail as.
   */
  public static final Set<String> TEST_USERS =
      Set.of("user1", "user2", "user3", "user4", "user5", "user6", "user7", "user8", "user9");

  /** The longest wait between two attempts at a job the disk could not take. */
  private static final Duration RETRY_CEILING = Duration.ofSeconds(15);

  private final Map<String, Integer> retries = new ConcurrentHashMap<>();
  private final Map<String, String> saidProblems = new ConcurrentHashMap<>();
  private final java.util.concurrent.ScheduledExecutorService retryTimer =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().name("pec-retry").daemon().unstarted(r));

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

  private final RelayConnections relays;
  private final Config config;
  private final PecProvider provider;
  private final Consumer<String> log;
  private final Durable durable = new Durable();
  private final PecSpool spool;
  private final Maildir mailboxes;
  private final BlockingQueue<String> jobs = new LinkedBlockingQueue<>();
  private final Set<String> carrying = ConcurrentHashMap.newKeySet();
  private final Map<String, Boolean> peerDown = new ConcurrentHashMap<>();
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong accepted = new AtomicLong();
  private final AtomicLong duplicates = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicLong processed = new AtomicLong();
  private final AtomicLong relayed = new AtomicLong();
  private final AtomicLong delivered = new AtomicLong();
  private volatile boolean closing;
  private final java.util.concurrent.atomic.AtomicBoolean statsProblemSaid =
      new java.util.concurrent.atomic.AtomicBoolean();
  private static final com.fasterxml.jackson.databind.ObjectMapper STATS_JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();
  private SMTPServer smtp;
  private SmtpDeadlines deadlines;

  /**
   * Who may submit: the provider's users log in with SMTP AUTH, offered only after STARTTLS with
   * the {@code tls} identity; {@code passwordOf} gives a user's password by address, null for no
   * such user. Who may relay: a peer of the provider index, presenting over STARTTLS the
   * certificate the index lists for its domain; this provider presents {@code relayIdentity} (its
   * own) when it relays.
   */
  public record Logins(
      javax.net.ssl.SSLContext tls,
      java.util.function.Function<String, Secret> passwordOf,
      javax.net.ssl.SSLContext relayIdentity) {
    /**
     * STARTTLS with the test PKI's tls-server identity, trusting its root so that peers'
     * certificates can be checked against the index; the users' passwords derived from the PKI
     * ({@link PecLogin}); relaying, the provider presents {@code signing}, the certificate the
     * index lists for it (when that key cannot be a TLS client identity, {@code log} says so and
     * the provider relays without one).
     */
    public static Logins forTestPki(TestPki pki, SigningKey signing, Consumer<String> log)
        throws Exception {
      java.security.cert.X509Certificate root = pki.certificate("root-ca");
      javax.net.ssl.SSLContext tls =
          TlsContexts.withIdentity(
              new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key("tls-server"), root);
      javax.net.ssl.SSLContext relayIdentity = null;
      try {
        relayIdentity = TlsContexts.withIdentity(signing, root);
      } catch (java.security.GeneralSecurityException e) {
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
    public Logins(
        javax.net.ssl.SSLContext tls, java.util.function.Function<String, Secret> passwordOf) {
      this(tls, passwordOf, null);
    }

    @Override
    public String toString() {
      return "Logins[STARTTLS, passwords ****]";
    }
  }

  private final Logins logins;

  /**
   * STARTTLS's context: {@code logins.tls()}, a client's renegotiation refused (the JDK's socket
   * would renegotiate without limit).
   */
  private final javax.net.ssl.SSLContext startTlsContext;

  private final java.util.concurrent.atomic.AtomicLong renegotiationsRefused =
      new java.util.concurrent.atomic.AtomicLong();

  /** The SMTP session the current thread serves (SubEthaSMTP runs one per thread). */
  private static final ThreadLocal<org.subethamail.smtp.server.Session> CURRENT_SESSION =
      new ThreadLocal<>();

  public PecServer(Config config, PecProvider provider, Logins logins, Consumer<String> log)
      throws IOException {
    this.config = config;
    this.provider = provider;
    this.logins = logins;
    this.log = log;
    this.startTlsContext =
        logins.tls() == null
            ? null
            : NoClientRenegotiation.refusing(logins.tls(), this::renegotiationRefused);
    this.mailboxes = new Maildir(config.mailboxes(), durable);
    this.spool = new PecSpool(config.spool(), durable, mailboxes::sync);
    this.relays =
        new RelayConnections(
            (host, port) ->
                SmtpClient.Connection.open(
                    host, port, config.domain(), RELAY_TIMEOUT, null, logins.relayIdentity()),
            RELAY_IDLE_PER_PEER,
            RELAY_IDLE,
            System::nanoTime);
  }

  @Override
  public void start() throws Exception {
    List<String> left = spool.pendingJobs();
    if (spool.tornBytes() > 0) {
      log.accept(
          "pec "
              + config.domain()
              + ": the spool's journal ended in a torn record ("
              + spool.tornBytes()
              + " bytes, written when the provider stopped and never acknowledged); cut off");
    }
    try {
      int restored = spool.restoreDeliveries(mailboxes);
      if (restored > 0) {
        log.accept(
            "pec "
                + config.domain()
                + ": "
                + restored
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
    if (!left.isEmpty())
      log.accept(
          "pec "
              + config.domain()
              + ": "
              + left.size()
              + " acknowledged messages from before the restart are processed first");
    jobs.addAll(left);
    for (int i = 0; i < config.workers(); i++)
      threads.add(Thread.ofPlatform().name("pec-worker-" + i).daemon().start(this::work));
    threads.add(Thread.ofPlatform().name("pec-carrier").daemon().start(this::carryLoop));
    deadlines =
        new SmtpDeadlines(
            config.commandDeadline(),
            config.transactionDeadline(),
            config.maxConnectionsPerAddress(),
            log);
    // A command SubEthaSMTP's parser throws on (MAIL FROM ... SIZE=99999999999: a
    // NumberFormatException)
    // ends that session only; it is said in one line, not as a stack trace on stderr per attempt.
    java.util.concurrent.atomic.AtomicInteger sessionThreads =
        new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.ThreadFactory sessionThreadFactory =
        r -> {
          Thread t = new Thread(r, "pec-smtp-session-" + sessionThreads.incrementAndGet());
          t.setDaemon(true);
          t.setUncaughtExceptionHandler(
              (thread, e) ->
                  log.accept(
                      "pec "
                          + config.domain()
                          + ": an SMTP session ended on a command the SMTP library could not take ("
                          + e.getClass().getSimpleName()
                          + ": "
                          + OutsideText.forTerminal(e.getMessage())
                          + ")"));
          return t;
        };
    // Each session runs on its own thread; which one is known to the AUTH capability below.
    java.util.concurrent.ExecutorService sessions =
        new java.util.concurrent.ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            60,
            TimeUnit.SECONDS,
            new java.util.concurrent.SynchronousQueue<>(),
            sessionThreadFactory) {
          @Override
          protected void beforeExecute(Thread t, Runnable r) {
            if (r instanceof org.subethamail.smtp.server.Session s) CURRENT_SESSION.set(s);
          }

          @Override
          protected void afterExecute(Runnable r, Throwable t) {
            CURRENT_SESSION.remove();
          }
        };
    var passwords = new org.subethamail.smtp.auth.EasyAuthenticationHandlerFactory(this::login);
    // AUTH is offered (in EHLO, and taken) only once STARTTLS is done: SubEthaSMTP would list it
    // before
    // TLS unless TLS were required of everyone, which peers and strangers delivering to our users
    // are not.
    var afterTls =
        new org.subethamail.smtp.AuthenticationHandlerFactory() {
          @Override
          public List<String> getAuthenticationMechanisms() {
            org.subethamail.smtp.server.Session s = CURRENT_SESSION.get();
            return s != null && s.isTLSStarted()
                ? passwords.getAuthenticationMechanisms()
                : List.of();
          }

          @Override
          public org.subethamail.smtp.AuthenticationHandler create() {
            return passwords.create();
          }
        };
    smtp =
        new SMTPServer.Builder()
            .executorService(sessions)
            .serverSocketFactory((org.subethamail.smtp.server.ServerSocketCreator) deadlines)
            .sessionHandler(deadlines)
            .bindAddress(InetAddress.getByName(config.bind()))
            .port(config.port())
            .hostName(config.domain())
            .softwareName("pkibench PEC provider")
            .maxConnections(config.maxConnections())
            .connectionTimeout((int) config.idleTimeout().toMillis(), TimeUnit.MILLISECONDS)
            .maxRecipients(config.maxRecipients())
            .maxMessageSize(config.maxMessageBytes())
            .messageHandlerFactory(Session::new)
            .enableTLS()
            .startTlsSocketFactory(this::startTls)
            .showAuthCapabilitiesBeforeSTARTTLS(false)
            .authenticationHandlerFactory(afterTls)
            .build();
    smtp.start();
  }

  @Override
  public String baseUrl() {
    return "smtp://"
        + config.bind()
        + ":"
        + (smtp == null ? config.port() : smtp.getPortAllocated());
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

  /**
   * STARTTLS as the server, asking for (not requiring) a client certificate: users have none, peers
   * present theirs.
   */
  private javax.net.ssl.SSLSocket startTls(java.net.Socket socket) throws IOException {
    java.net.InetSocketAddress remote =
        (java.net.InetSocketAddress) socket.getRemoteSocketAddress();
    javax.net.ssl.SSLSocket s =
        (javax.net.ssl.SSLSocket)
            startTlsContext
                .getSocketFactory()
                .createSocket(socket, remote.getHostString(), remote.getPort(), true);
    s.setUseClientMode(false);
    s.setWantClientAuth(true);
    return s;
  }

  private void renegotiationRefused() {
    long refused = renegotiationsRefused.incrementAndGet();
    if (refused == 1 || refused % 1000 == 0) {
      log.accept(
          "pec "
              + config.domain()
              + ": a client's TLS renegotiation after STARTTLS refused and its session ended: "
              + refused
              + " so far");
    }
  }

  /** The certificate the client presented over STARTTLS, or null. */
  private static java.security.cert.X509Certificate peerCertificate(MessageContext context) {
    if (!(context instanceof org.subethamail.smtp.server.Session s)
        || !(s.getSocket() instanceof javax.net.ssl.SSLSocket tls)) return null;
    try {
      java.security.cert.Certificate[] chain = tls.getSession().getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof java.security.cert.X509Certificate x
          ? x
          : null;
    } catch (javax.net.ssl.SSLPeerUnverifiedException e) {
      return null;
    }
  }

  /**
   * SMTP AUTH: a user of ours with its password, and only over TLS, so that no password crosses the
   * wire in clear.
   */
  private void login(String user, String password, MessageContext context)
      throws org.subethamail.smtp.auth.LoginFailedException {
    if (!(context instanceof org.subethamail.smtp.server.Session s) || !s.isTLSStarted()) {
      throw new org.subethamail.smtp.auth.LoginFailedException("log in after STARTTLS");
    }
    MailAddress address;
    try {
      address = MailAddress.parse(user);
    } catch (IllegalArgumentException e) {
      throw new org.subethamail.smtp.auth.LoginFailedException();
    }
    Secret expected =
        address.domain().equals(config.domain()) && config.users().contains(address.localPart())
            ? logins.passwordOf().apply(address.toString())
            : null;
    // compared in constant time, and an unknown user costs the same as a wrong password
    byte[] given = password.getBytes(StandardCharsets.UTF_8);
    byte[] wanted =
        expected == null
            ? new byte[given.length + 1]
            : new String(expected.chars()).getBytes(StandardCharsets.UTF_8);
    if (!java.security.MessageDigest.isEqual(given, wanted) || expected == null)
      throw new org.subethamail.smtp.auth.LoginFailedException();
  }

  /** One SMTP transaction: the sender, the recipients we take, the data on the disk before 250. */
  private final class Session implements MessageHandler {
    private String from;
    private final List<String> rcpts = new ArrayList<>();

    private final MessageContext context;

    Session(MessageContext context) {
      this.context = context;
    }

    @Override
    public void from(String address) throws RejectException {
      String a = address == null ? "" : address.strip();
      if (a.isEmpty()) {
        from = a;
        return;
      }
      MailAddress sender;
      try {
        sender = MailAddress.parse(a);
      } catch (IllegalArgumentException e) {
        throw new RejectException(
            553,
            "5.1.7 <"
                + MailAddress.printable(a)
                + ">: not an address this provider takes: "
                + e.getMessage());
      }
      if (sender.domain().equals(config.domain())
          && !sender.toString().equals(provider.address())) {
        // a user of ours submits, and only as itself once logged in (RFC 6109 §3.2, RFC 6409 §6.1)
        String user =
            context
                .getAuthenticationHandler()
                .map(h -> String.valueOf(h.getIdentity()))
                .orElse(null);
        if (user == null) {
          throw new RejectException(
              530,
              "5.7.0 authentication required: users of "
                  + config.domain()
                  + " submit after STARTTLS and AUTH");
        }
        if (!user.equalsIgnoreCase(sender.toString())) {
          throw new RejectException(
              553,
              "5.7.1 <"
                  + sender
                  + "> is not the logged-in user <"
                  + MailAddress.printable(user)
                  + ">");
        }
      }
      if (!sender.domain().equals(config.domain()) && provider.index().knows(sender.domain())) {
        // mail in a peer provider's name is relayed by that provider, known by its certificate in
        // the index
        java.security.cert.X509Certificate presented = peerCertificate(context);
        if (presented == null
            || !presented.equals(provider.index().certificate(sender.domain()).orElse(null))) {
          throw new RejectException(
              530,
              "5.7.0 mail from "
                  + sender.domain()
                  + " is relayed by its provider over STARTTLS with the certificate"
                  + " the provider index lists for it");
        }
      }
      from = sender.toString();
    }

    /**
     * Refused here, before 250, rather than when the job is done: an address the spool, Jakarta
     * Mail or the Maildir could not take would otherwise fail the whole job, the good recipients
     * with it.
     */
    @Override
    public void recipient(String address) throws RejectException {
      MailAddress a;
      try {
        a = MailAddress.parse(address.strip());
      } catch (IllegalArgumentException e) {
        throw new RejectException(
            553,
            "5.1.3 <"
                + MailAddress.printable(address)
                + ">: not an address this provider takes: "
                + e.getMessage());
      }
      if (a.domain().equals(config.domain())) {
        if (!a.localPart().equals(PecProvider.PROVIDER_MAILBOX)
            && !config.users().contains(a.localPart())) {
          throw new RejectException(550, "5.1.1 <" + a + ">: no such user at " + config.domain());
        }
      } else if (!submission()) {
        throw new RejectException(
            550,
            "5.7.1 <"
                + a
                + ">: relaying denied; "
                + config.domain()
                + " takes mail only for its own users");
      }
      rcpts.add(a.toString());
    }

    private boolean submission() {
      return from != null
          && domainOf(from).equals(config.domain())
          && !from.equalsIgnoreCase(provider.address());
    }

    @Override
    public String data(InputStream data) throws RejectException, IOException {
      SmtpDeadlines.Connection connection = deadlines.of(context);
      if (connection != null) connection.dataStarted();
      try {
        return take(data, connection);
      } finally {
        if (connection != null) connection.dataEnded();
      }
    }

    private String take(InputStream data, SmtpDeadlines.Connection connection)
        throws RejectException, IOException {
      byte[] bytes = readAtMost(data, config.maxMessageBytes(), connection);
      String origin = submission() ? "submission" : "incoming";
      String messageId = messageId(bytes);
      // The job id is the duplicate key: the same message from the same sender to the same
      // recipients is one job.
      String id =
          messageId == null
              ? UUID.randomUUID().toString().replace("-", "").substring(0, 24)
              : Maildir.digest(
                  origin + "\n" + from + "\n" + String.join(",", rcpts) + "\n" + messageId);
      boolean stored;
      try {
        stored = spool.store(new PecSpool.Job(id, origin, from == null ? "" : from, rcpts, bytes));
      } catch (IOException e) {
        // not taken, so the sender keeps it and tries again: the disk full is a temporary fault
        // (RFC 3463 4.3.1)
        refused.incrementAndGet();
        sayOnce(
            "store",
            "cannot store a message in "
                + config.spool()
                + " ("
                + e.getMessage()
                + "); senders are answered 452 until it can");
        throw new RejectException(452, "4.3.1 insufficient system storage; try again later");
      }
      if (!stored) {
        duplicates.incrementAndGet();
        log.accept(
            "pec "
                + config.domain()
                + ": "
                + messageId
                + " from <"
                + from
                + "> again: already taken, acknowledged without a second copy");
        return null;
      }
      accepted.incrementAndGet();
      jobs.add(id);
      return null;
    }

    @Override
    public void done() {}
  }

  private byte[] readAtMost(InputStream in, int max, SmtpDeadlines.Connection connection)
      throws IOException, RejectException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(max, 128 * 1024));
    byte[] buf = new byte[16384];
    long total = 0;
    int n;
    while ((n = in.read(buf)) > 0) {
      if (connection != null) {
        for (int i = 0; i < n; i++) {
          if (buf[i] == '\n') {
            connection.dataLine(); // a line of the message: the drip that never ends one is cut
            break;
          }
        }
      }
      total += n;
      if (total > max) {
        refused.incrementAndGet();
        in.transferTo(
            java.io.OutputStream
                .nullOutputStream()); // read the rest, so the session can answer and go on
        // a RejectException, not TooMuchDataException: SubEthaSMTP's DATA answers only the former
        // (the latter drops the session with 421)
        throw new RejectException(
            552, "5.3.4 message larger than " + max + " bytes, this provider's limit");
      }
      out.write(buf, 0, n);
    }
    return out.toByteArray();
  }

  /** The Message-ID header of a message's header block, unfolded, or null. */
  static String messageId(byte[] message) {
    String id = MailHeaders.of(message).get("message-id");
    return id == null || id.isEmpty() ? null : id;
  }

  // ---------------------------------------------------------------- workers

  private void work() {
    while (!closing) {
      String id;
      try {
        id = jobs.poll(200, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
      if (id == null) continue;
      try {
        process(id);
        if (retries.remove(id) != null) sayOnce("process", null);
      } catch (PecSpool.DamagedFile e) {
        if (!closing) setAside(id, null, e);
      } catch (IOException e) {
        if (!closing) retryLater(id, e);
      } catch (Exception e) {
        if (!closing) setAside(id, spoolRead(id), e);
      }
    }
  }

  /**
   * A job the disk could not take now (full, or gone read-only): it stays acknowledged in the spool
   * and is tried again, after 0.25 s doubling to {@link #RETRY_CEILING}, until the disk takes it.
   * Said once per streak, not per job.
   */
  private void retryLater(String id, IOException e) {
    int attempts = retries.merge(id, 1, Integer::sum);
    long delayMillis = Math.min(RETRY_CEILING.toMillis(), 250L << Math.min(attempts - 1, 16));
    sayOnce(
        "process",
        "cannot process acknowledged messages now ("
            + e.getMessage()
            + "); they stay in the spool "
            + config.spool()
            + " and are retried until the disk takes them");
    retryTimer.schedule(() -> jobs.add(id), delayMillis, TimeUnit.MILLISECONDS);
  }

  /**
   * A job that can never be processed (its file damaged, or our code failed on it): set aside in
   * {@code failed/} for a person, and, when we can still read who submitted it, its sender told by
   * a signed non-acceptance receipt.
   */
  private void setAside(String id, PecSpool.Job job, Exception e) {
    log.accept(
        "pec "
            + config.domain()
            + ": job "
            + id
            + " cannot be processed and is set aside in "
            + config.spool().resolve("failed")
            + ": "
            + e);
    retries.remove(id);
    try {
      List<PecSpool.Item> notice = new ArrayList<>();
      if (job != null && job.origin().equals("submission") && !job.mailFrom().isEmpty()) {
        String msgid = messageId(job.bytes());
        notice =
            route(
                provider.nonAcceptance(
                    id,
                    job.mailFrom(),
                    job.rcpts(),
                    "",
                    msgid,
                    List.of(
                        "the provider could not process the message ("
                            + e.getClass().getSimpleName()
                            + "); it was not sent")));
      }
      spool.fail(id, e.toString());
      if (!notice.isEmpty()) {
        String noticeId = Maildir.digest("set-aside\n" + id);
        spool.commit(noticeId, notice);
        for (String p : spool.itemsOf(noticeId)) carry(p);
      }
    } catch (Exception x) {
      log.accept("pec " + config.domain() + ": cannot set job " + id + " aside: " + x.getMessage());
    }
  }

  private PecSpool.Job spoolRead(String id) {
    try {
      return spool.read(id);
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Says {@code problem} once until it changes; null marks the end of the streak (said as such when
   * there was one).
   */
  private void sayOnce(String topic, String problem) {
    String before = problem == null ? saidProblems.remove(topic) : saidProblems.put(topic, problem);
    if (problem != null && !problem.equals(before))
      log.accept("pec " + config.domain() + ": " + problem);
    if (problem == null && before != null)
      log.accept("pec " + config.domain() + ": the spool takes work again (" + topic + ")");
  }

  private void process(String id) throws Exception {
    if (spool.committed(id)) {
      // queued twice (a retry after the commit): its results are carried as they are
      for (String item : spool.itemsOf(id)) carry(item);
      return;
    }
    if (!spool.waiting(id)) return; // set aside meanwhile: nothing left to do
    PecSpool.Job job = spool.read(id);
    List<Outgoing> out =
        job.origin().equals("submission")
            ? provider.accept(id, job.mailFrom(), job.rcpts(), job.bytes())
            : provider.receive(id, job.mailFrom(), job.rcpts(), job.bytes());
    List<PecSpool.Item> items = new ArrayList<>();
    for (Outgoing o : out) items.addAll(route(o));
    // What must be on the disk before what others see. J (the job) is forced before the 250 that
    // took it (store).
    // Nothing else is forced here: a result relayed to a peer is forced there, by the peer, before
    // its 250; a mailbox
    // delivery is written unforced and its W record appended right after it, before this C
    // (commit), so the force that
    // makes C durable (any later store's, shared) carries W with it, and a reopened spool rewrites
    // from W what a power
    // loss took from the mailbox. Until C is on the disk, J is still waiting there and the job is
    // redone after a
    // crash, with the same Message-IDs: the peer drops the relay again by job id, the mailbox keeps
    // one copy by name.
    spool.commit(id, deliveredHere(id, items));
    processed.incrementAndGet();
    for (String item : spool.itemsOf(id)) carry(item);
  }

  /**
   * Hands the job's results over now, before its commit: to our own mailboxes, our own spool, and
   * peers that take them at once; returns the rest to commit for the carrier. Each such result was
   * an item file forced to the disk, then forced again where the carrier put it; now it is written
   * once, where it goes. A crash before the commit redoes the job, which issues the same
   * Message-IDs (they derive from the job id), so the mailbox, the spool and the peer drop the
   * second copy as they drop a carrier's repeat. A result for an address that names no mailbox, or
   * for a peer that does not take it now, is left to the carrier, which sets it aside or retries as
   * before.
   */
  private List<PecSpool.Item> deliveredHere(String job, List<PecSpool.Item> items)
      throws IOException {
    List<PecSpool.Item> rest = new ArrayList<>();
    for (PecSpool.Item item : items) {
      switch (item.route()) {
        case "mailbox" -> {
          try {
            for (String rcpt : item.to()) {
              if (mailboxes.deliver(rcpt, item.messageId(), item.bytes()))
                delivered.incrementAndGet();
              // recorded even when it was there already: a redone job may find a copy its first run
              // wrote and never forced
              spool.delivered(job, rcpt, item.messageId(), item.bytes());
            }
          } catch (Maildir.NotAMailbox e) {
            rest.add(item);
          }
        }
        case "self" -> {
          String id = selfJobId(item);
          if (spool.store(
              new PecSpool.Job(id, "incoming", item.envelopeFrom(), item.to(), item.bytes())))
            jobs.add(id);
        }
        default -> {
          if (relayedNow(item)) relayed.incrementAndGet();
          else rest.add(item);
        }
      }
    }
    return rest;
  }

  /**
   * Relays an item to its peer now, while its job is still acknowledged and not done: true once the
   * peer has taken it (and so stored it, before its answer). Anything else (no route, a peer known
   * to be down, a refusal, a timeout) leaves it to be committed and carried as before, with the
   * carrier's retries, deadlines and refusals.
   */
  private boolean relayedNow(PecSpool.Item item) {
    String domain = item.route().substring("relay:".length());
    String peer = config.peers().get(domain);
    if (peer == null || peerDown.containsKey(domain)) return false;
    int colon = peer.lastIndexOf(':');
    try {
      relays.send(
          peer.substring(0, colon),
          Integer.parseInt(peer.substring(colon + 1)),
          item.envelopeFrom(),
          item.to(),
          item.bytes());
      return true;
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * The job id of an envelope for our own users, the same whichever path stores it: its duplicate
   * key.
   */
  private static String selfJobId(PecSpool.Item item) {
    return Maildir.digest(
        "incoming\n"
            + item.envelopeFrom()
            + "\n"
            + String.join(",", item.to())
            + "\n"
            + item.messageId());
  }

  /**
   * One item per destination: our mailboxes, a peer by domain, or ourselves again (an envelope for
   * our own users).
   */
  private List<PecSpool.Item> route(Outgoing o) {
    Map<String, List<String>> byRoute = new LinkedHashMap<>();
    for (String rcpt : o.to()) {
      String d = domainOf(rcpt);
      String r;
      if (!d.equals(config.domain())) r = "relay:" + d;
      else if (o.kind() == DocumentKind.TRANSPORT) r = "self";
      else r = "mailbox";
      byRoute.computeIfAbsent(r, k -> new ArrayList<>()).add(rcpt);
    }
    List<PecSpool.Item> items = new ArrayList<>();
    String kind = o.kind() == null ? "message" : o.kind().value;
    byRoute.forEach(
        (r, to) ->
            items.add(new PecSpool.Item(r, kind, o.envelopeFrom(), to, o.messageId(), o.bytes())));
    return items;
  }

  // ---------------------------------------------------------------- carrier

  /**
   * How often the mailboxes are flushed for the deliveries made meanwhile (one flush for all of
   * them, where each paid a file and a directory fsync): it bounds the journal's delivery records,
   * and the deliveries a restart checks.
   */
  private static final Duration CHECKPOINT_EVERY = Duration.ofSeconds(10);

  private long lastCheckpoint = System.nanoTime();

  private void carryLoop() {
    while (!closing) {
      try {
        for (String item : spool.pendingItems()) {
          if (closing) return;
          carry(item);
        }
        if (System.nanoTime() - lastCheckpoint >= CHECKPOINT_EVERY.toNanos()) {
          lastCheckpoint =
              System.nanoTime(); // a flush that fails is tried again at the next period, not every
          // round
          try {
            spool.checkpoint();
            if (saidProblems.containsKey("checkpoint")) sayOnce("checkpoint", null);
          } catch (IOException e) {
            sayOnce(
                "checkpoint",
                "cannot flush the mailboxes ("
                    + e.getMessage()
                    + "); their deliveries stay recorded in the journal meanwhile");
          }
        }
        spool.compactPast(PecSpool.COMPACT_AT_BYTES);
        writeStats();
        Thread.sleep(500);
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        if (!closing) log.accept("pec " + config.domain() + ": the carrier: " + e.getMessage());
      }
    }
  }

  /**
   * Carries one item unless another thread is at it; an item that cannot go now stays for the next
   * round.
   */
  private void carry(String file) {
    if (!carrying.add(file)) return;
    try {
      PecSpool.Item item = spool.readItem(file);
      if (item == null) return; // carried meanwhile
      switch (item.route()) {
        case "mailbox" -> {
          for (String rcpt : item.to()) {
            try {
              if (mailboxes.deliver(rcpt, item.messageId(), item.bytes()))
                delivered.incrementAndGet();
              spool.delivered(
                  file,
                  rcpt,
                  item.messageId(),
                  item.bytes()); // before the carried record below: see process
            } catch (Maildir.NotAMailbox e) {
              // only a job spooled before RCPT checked addresses can get here: no later round can
              // deliver it
              spool.setAside(file, e.getMessage());
              log.accept(
                  "pec "
                      + config.domain()
                      + ": "
                      + item.kind()
                      + " "
                      + item.messageId()
                      + " set aside in "
                      + config.spool().resolve("failed")
                      + " ("
                      + e.getMessage()
                      + ")");
              return;
            }
          }
        }
        case "self" -> {
          String id = selfJobId(item);
          if (spool.store(
              new PecSpool.Job(id, "incoming", item.envelopeFrom(), item.to(), item.bytes())))
            jobs.add(id);
        }
        default -> {
          if (!relay(item)) return;
          relayed.incrementAndGet();
        }
      }
      spool.carried(file);
      if (saidProblems.containsKey("carry")) sayOnce("carry", null);
    } catch (Exception e) {
      // said once per kind of problem: a full disk would otherwise say it for every item, every
      // half second
      if (!closing)
        sayOnce(
            "carry",
            "cannot carry items yet ("
                + e.getMessage()
                + "); they stay in the spool "
                + config.spool());
    } finally {
      carrying.remove(file);
    }
  }

  private boolean relay(PecSpool.Item item) throws IOException {
    String domain = item.route().substring("relay:".length());
    String peer = config.peers().get(domain);
    if (peer == null) {
      if (peerDown.putIfAbsent(domain, true) == null) {
        log.accept(
            "pec "
                + config.domain()
                + ": no route to "
                + domain
                + " (give --peer "
                + domain
                + "=HOST:PORT); its messages wait in the spool up to "
                + Durations.format(config.relayDeadline()));
      }
      return pastDeadline(item, domain, "no route to " + domain);
    }
    int colon = peer.lastIndexOf(':');
    try {
      relays.send(
          peer.substring(0, colon),
          Integer.parseInt(peer.substring(colon + 1)),
          item.envelopeFrom(),
          item.to(),
          item.bytes());
      if (peerDown.remove(domain) != null)
        log.accept(
            "pec "
                + config.domain()
                + ": "
                + domain
                + " at "
                + peer
                + " is back; the waiting messages go out");
      return true;
    } catch (SmtpClient.Refusal e) {
      if (e.permanent()) {
        refusedForGood(item, domain, e);
        return true;
      }
      return waitFor(item, domain, peer, e);
    } catch (IOException e) {
      return waitFor(item, domain, peer, e);
    }
  }

  private boolean waitFor(PecSpool.Item item, String domain, String peer, IOException e)
      throws IOException {
    if (peerDown.putIfAbsent(domain, true) == null) {
      log.accept(
          "pec "
              + config.domain()
              + ": "
              + domain
              + " at "
              + peer
              + " does not take mail now ("
              + e.getMessage()
              + "); messages wait and are retried");
    }
    return pastDeadline(
        item, domain, domain + " at " + peer + " did not take it (" + e.getMessage() + ")");
  }

  /**
   * An item that could not be relayed within {@code --relay-deadline} of its commit is given up as
   * a refusal for good: a transport envelope's sender gets a non-delivery notice (the rules' 24
   * hours), anything else is set aside. True when it was given up (it leaves the queue), false
   * while it waits.
   */
  private boolean pastDeadline(PecSpool.Item item, String domain, String why) throws IOException {
    java.time.Instant committed = item.committed();
    if (java.time.Instant.now().isBefore(committed.plus(config.relayDeadline()))) return false;
    giveUp(item, why + " within " + Durations.format(config.relayDeadline()), false);
    return true;
  }

  /**
   * The peer refused an item for good (5xx): trying again cannot help. A transport envelope is
   * answered by a non-delivery notice to its sender, per the rules, committed before the envelope
   * leaves the spool; any other document is set aside in {@code failed/} with the reply, and said
   * in the log.
   */
  private void refusedForGood(PecSpool.Item item, String domain, SmtpClient.Refusal refusal)
      throws IOException {
    giveUp(item, domain + " refused it: " + refusal.getMessage(), refusal.code() == 550);
  }

  /**
   * An item given up for {@code reason}: a transport envelope answered by a non-delivery notice,
   * anything else set aside.
   */
  private void giveUp(PecSpool.Item item, String reason, boolean noSuchRecipient)
      throws IOException {
    if (item.kind().equals(DocumentKind.TRANSPORT.value)) {
      String id = Maildir.digest("refused\n" + item.ref());
      if (!spool.known(id)) {
        try {
          Outgoing notice =
              provider.nonDelivery(id, item.bytes(), item.to(), reason, noSuchRecipient);
          spool.commit(id, route(notice));
        } catch (IOException e) {
          throw e;
        } catch (Exception e) {
          throw new IOException(
              "cannot make the non-delivery notice for " + item.messageId() + ": " + e.getMessage(),
              e);
        }
        for (String p : spool.itemsOf(id)) carry(p);
      }
      log.accept(
          "pec "
              + config.domain()
              + ": envelope "
              + item.messageId()
              + " not delivered ("
              + reason
              + "); its sender gets a non-delivery notice");
    } else {
      spool.setAside(item.ref(), reason);
      log.accept(
          "pec "
              + config.domain()
              + ": "
              + item.kind()
              + " "
              + item.messageId()
              + " set aside in "
              + config.spool().resolve("failed")
              + " ("
              + reason
              + ")");
    }
  }

  // ---------------------------------------------------------------- bookkeeping

  /**
   * What the provider did so far: messages taken, duplicates dropped, jobs done, items carried, and
   * the spool's fsyncs.
   */
  public record Stats(
      long accepted,
      long duplicates,
      long refused,
      long processed,
      long delivered,
      long relayed,
      long fsyncs,
      long fsyncNanos,
      int waitingJobs,
      int waitingItems) {}

  public Stats stats() {
    return new Stats(
        accepted.get(),
        duplicates.get(),
        refused.get(),
        processed.get(),
        delivered.get(),
        relayed.get(),
        durable.fsyncs(),
        durable.fsyncNanos(),
        spool.waitingJobs(),
        spool.pendingItems().size());
  }

  /**
   * {@code SPOOL/stats.json}, rewritten every carrier round and on close (replaced whole by a
   * rename, so a reader never sees half of it): what a study reads for the spool's fsync cost while
   * we run.
   */
  private void writeStats() {
    try {
      Path tmp = config.spool().resolve("tmp").resolve("stats.json");
      Files.writeString(tmp, STATS_JSON.writeValueAsString(stats()) + "\n");
      Files.move(
          tmp,
          config.spool().resolve("stats.json"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING,
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      if (statsProblemSaid.compareAndSet(false, true))
        log.accept(
            "pec " + config.domain() + ": cannot write the spool's stats: " + e.getMessage());
    }
  }

  @Override
  public void close() {
    closing = true;
    retryTimer.shutdownNow();
    if (smtp != null) smtp.stop();
    if (deadlines != null) deadlines.close();
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
      log.accept(
          "pec "
              + config.domain()
              + ": flushing the mailboxes on closing: "
              + e.getMessage()
              + "; the next start checks their deliveries");
    }
    try {
      spool.close();
    } catch (IOException e) {
      log.accept("pec " + config.domain() + ": the spool's journal on closing: " + e.getMessage());
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
