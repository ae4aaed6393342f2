package io.pkibench.server.pec;

import io.pkibench.formats.pec.MailHeaders;
import io.pkibench.formats.pec.PecProvider;
import io.pkibench.pki.Secret;
import io.pkibench.server.NoClientRenegotiation;
import io.pkibench.text.OutsideText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSocket;
import org.subethamail.smtp.AuthenticationHandler;
import org.subethamail.smtp.AuthenticationHandlerFactory;
import org.subethamail.smtp.MessageContext;
import org.subethamail.smtp.MessageHandler;
import org.subethamail.smtp.RejectException;
import org.subethamail.smtp.auth.EasyAuthenticationHandlerFactory;
import org.subethamail.smtp.auth.LoginFailedException;
import org.subethamail.smtp.server.SMTPServer;
import org.subethamail.smtp.server.ServerSocketCreator;
import org.subethamail.smtp.server.Session;

/**
 * The provider's SMTP side (SubEthaSMTP): sessions, STARTTLS, AUTH for our users, the checks on
 * MAIL FROM and RCPT TO, and DATA read within the limits and stored in the spool before it is
 * answered 250.
 *
 * <p>Who is who on SMTP: a sender of our domain (other than the provider's own mailbox) submits
 * (the access point); anything else arrives (the incoming point) and may only be for our users.
 */
final class SmtpIntake {
  /** The SMTP session the current thread serves (SubEthaSMTP runs one per thread). */
  private static final ThreadLocal<Session> CURRENT_SESSION = new ThreadLocal<>();

  private final PecServer.Config config;
  private final SmtpLimits limits;
  private final PecProvider provider;
  private final PecServer.Logins logins;
  private final PecSpool spool;
  private final ProviderStats stats;
  private final ProviderLog log;
  private final Consumer<String> enqueue;

  /**
   * STARTTLS's context: {@code logins.tls()}, a client's renegotiation refused (the JDK's socket
   * would renegotiate without limit).
   */
  private final SSLContext startTlsContext;

  private final AtomicLong renegotiationsRefused = new AtomicLong();
  private SMTPServer smtp;
  private SmtpDeadlines deadlines;

  /** {@code enqueue} hands a job stored in the spool to the workers. */
  SmtpIntake(
      PecServer.Config config,
      PecProvider provider,
      PecServer.Logins logins,
      PecSpool spool,
      ProviderStats stats,
      ProviderLog log,
      Consumer<String> enqueue) {
    this.config = config;
    this.limits = config.limits();
    this.provider = provider;
    this.logins = logins;
    this.spool = spool;
    this.stats = stats;
    this.log = log;
    this.enqueue = enqueue;
    this.startTlsContext =
        logins.tls() == null
            ? null
            : NoClientRenegotiation.refusing(logins.tls(), this::renegotiationRefused);
  }

  void start() throws IOException {
    deadlines =
        new SmtpDeadlines(
            limits.commandDeadline(),
            limits.transactionDeadline(),
            limits.maxConnectionsPerAddress(),
            log.unprefixed());
    // A command SubEthaSMTP's parser throws on (MAIL FROM ... SIZE=99999999999: a
    // NumberFormatException) ends that session only; it is said in one line, not as a stack trace
    // on stderr per attempt.
    AtomicInteger sessionThreads = new AtomicInteger();
    ThreadFactory sessionThreadFactory =
        r -> {
          Thread t = new Thread(r, "pec-smtp-session-" + sessionThreads.incrementAndGet());
          t.setDaemon(true);
          t.setUncaughtExceptionHandler(
              (thread, e) ->
                  log.say(
                      "an SMTP session ended on a command the SMTP library could not take ("
                          + e.getClass().getSimpleName()
                          + ": "
                          + OutsideText.forTerminal(e.getMessage())
                          + ")"));
          return t;
        };
    // Each session runs on its own thread; which one is known to the AUTH capability below.
    ExecutorService sessions =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            60,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            sessionThreadFactory) {
          @Override
          protected void beforeExecute(Thread t, Runnable r) {
            if (r instanceof Session s) CURRENT_SESSION.set(s);
          }

          @Override
          protected void afterExecute(Runnable r, Throwable t) {
            CURRENT_SESSION.remove();
          }
        };
    var passwords = new EasyAuthenticationHandlerFactory(this::login);
    // AUTH is offered (in EHLO, and taken) only once STARTTLS is done: SubEthaSMTP would list it
    // before TLS unless TLS were required of everyone, which peers and strangers delivering to our
    // users are not.
    var afterTls =
        new AuthenticationHandlerFactory() {
          @Override
          public List<String> getAuthenticationMechanisms() {
            Session s = CURRENT_SESSION.get();
            return s != null && s.isTLSStarted()
                ? passwords.getAuthenticationMechanisms()
                : List.of();
          }

          @Override
          public AuthenticationHandler create() {
            return passwords.create();
          }
        };
    smtp =
        new SMTPServer.Builder()
            .executorService(sessions)
            .serverSocketFactory((ServerSocketCreator) deadlines)
            .sessionHandler(deadlines)
            .bindAddress(InetAddress.getByName(config.bind()))
            .port(config.port())
            .hostName(config.domain())
            .softwareName("pkibench PEC provider")
            .maxConnections(limits.maxConnections())
            .connectionTimeout((int) limits.idleTimeout().toMillis(), TimeUnit.MILLISECONDS)
            .maxRecipients(limits.maxRecipients())
            .maxMessageSize(limits.maxMessageBytes())
            .messageHandlerFactory(Transaction::new)
            .enableTLS()
            .startTlsSocketFactory(this::startTls)
            .showAuthCapabilitiesBeforeSTARTTLS(false)
            .authenticationHandlerFactory(afterTls)
            .build();
    smtp.start();
  }

  /** The port listened on, or null before {@link #start}. */
  Integer port() {
    return smtp == null ? null : smtp.getPortAllocated();
  }

  void stop() {
    if (smtp != null) smtp.stop();
    if (deadlines != null) deadlines.close();
  }

  /**
   * STARTTLS as the server, asking for (not requiring) a client certificate: users have none, peers
   * present theirs.
   */
  private SSLSocket startTls(Socket socket) throws IOException {
    InetSocketAddress remote = (InetSocketAddress) socket.getRemoteSocketAddress();
    SSLSocket s =
        (SSLSocket)
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
      log.say(
          "a client's TLS renegotiation after STARTTLS refused and its session ended: "
              + refused
              + " so far");
    }
  }

  /** The certificate the client presented over STARTTLS, or null. */
  private static X509Certificate peerCertificate(MessageContext context) {
    if (!(context instanceof Session s) || !(s.getSocket() instanceof SSLSocket tls)) return null;
    try {
      Certificate[] chain = tls.getSession().getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate x ? x : null;
    } catch (SSLPeerUnverifiedException e) {
      return null;
    }
  }

  /**
   * SMTP AUTH: a user of ours with its password, and only over TLS, so that no password crosses the
   * wire in clear.
   */
  private void login(String user, String password, MessageContext context)
      throws LoginFailedException {
    if (!(context instanceof Session s) || !s.isTLSStarted()) {
      throw new LoginFailedException("log in after STARTTLS");
    }
    MailAddress address;
    try {
      address = MailAddress.parse(user);
    } catch (IllegalArgumentException e) {
      throw new LoginFailedException();
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
    if (!MessageDigest.isEqual(given, wanted) || expected == null) throw new LoginFailedException();
  }

  /** One SMTP transaction: the sender, the recipients we take, the data on the disk before 250. */
  private final class Transaction implements MessageHandler {
    private String from;
    private final List<String> rcpts = new ArrayList<>();

    private final MessageContext context;

    Transaction(MessageContext context) {
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
        X509Certificate presented = peerCertificate(context);
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
          && PecServer.domainOf(from).equals(config.domain())
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
      byte[] bytes = readAtMost(data, limits.maxMessageBytes(), connection);
      Origin origin = submission() ? Origin.SUBMISSION : Origin.INCOMING;
      String messageId = messageId(bytes);
      // The job id is the duplicate key: the same message from the same sender to the same
      // recipients is one job.
      String id =
          messageId == null
              ? UUID.randomUUID().toString().replace("-", "").substring(0, 24)
              : Maildir.digest(
                  origin.spoolName()
                      + "\n"
                      + from
                      + "\n"
                      + String.join(",", rcpts)
                      + "\n"
                      + messageId);
      boolean stored;
      try {
        stored = spool.store(new PecSpool.Job(id, origin, from == null ? "" : from, rcpts, bytes));
      } catch (IOException e) {
        // not taken, so the sender keeps it and tries again: the disk full is a temporary fault
        // (RFC 3463 4.3.1)
        stats.refused.incrementAndGet();
        log.sayOnce(
            "store",
            "cannot store a message in "
                + config.spool()
                + " ("
                + e.getMessage()
                + "); senders are answered 452 until it can");
        throw new RejectException(452, "4.3.1 insufficient system storage; try again later");
      }
      if (!stored) {
        stats.duplicates.incrementAndGet();
        log.say(
            messageId
                + " from <"
                + from
                + "> again: already taken, acknowledged without a second copy");
        return null;
      }
      stats.accepted.incrementAndGet();
      enqueue.accept(id);
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
        stats.refused.incrementAndGet();
        // read the rest, so the session can answer and go on
        in.transferTo(OutputStream.nullOutputStream());
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
}
