package io.pkibench.server.pec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.cli.CliContext;
import io.pkibench.cli.Main;
import io.pkibench.formats.pec.PecLogin;
import io.pkibench.formats.pec.PecProvider;
import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.formats.pec.SmtpClient;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.Secret;
import io.pkibench.testing.Await;
import io.pkibench.testing.OpensslRenegotiation;
import io.pkibench.testing.TestKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PEC provider attacked over SMTP on loopback as issue 25 found it open: addresses that climb
 * out of the mailboxes, one bad recipient beside a good one.
 */
class PecAttacksTest {
  @TempDir static Path dir;
  static TestKeys keys;

  @BeforeAll
  static void pki() {
    keys = TestKeys.in(dir);
  }

  /**
   * A provider for pec1.test in this JVM, on a free port, its spool and mailboxes under {@code
   * root}.
   */
  static final class Provider implements AutoCloseable {
    final Path root;
    final PecServer server;
    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    final int port;

    /** The provider's clock: a test moves it past a deadline instead of waiting for it. */
    final OffsetClock clock = new OffsetClock();

    Provider(Path root) throws Exception {
      this(root, root.resolve("spool"));
    }

    Provider(Path root, Path spool) throws Exception {
      this(root, spool, Duration.ofDays(1));
    }

    Provider(Path root, Path spool, Duration relayDeadline) throws Exception {
      this(
          root,
          spool,
          relayDeadline,
          20,
          SmtpLimits.DEFAULTS.commandDeadline(),
          SmtpLimits.DEFAULTS.maxConnectionsPerAddress());
    }

    Provider(
        Path root,
        Path spool,
        Duration relayDeadline,
        int maxConnections,
        Duration commandDeadline,
        int perAddress)
        throws Exception {
      this.root = root;
      var key = keys.keys.key("signer-rsa2048-1");
      var index =
          new ProviderIndex(
              Map.of(
                  "pec1.test",
                  key.certificate(),
                  "pec2.test",
                  keys.keys.key("signer-rsa2048-2").certificate()));
      PecProvider provider =
          new PecProvider(
              "pec1.test",
              "pkibench provider pec1.test",
              key,
              index,
              InstantSource.system(),
              ZoneId.of("Europe/Rome"));
      var config =
          PecServer.Config.builder("pec1.test", spool, root.resolve("mail"))
              .bind("127.0.0.1")
              .workers(2)
              .relayDeadline(relayDeadline)
              .limits(
                  SmtpLimits.DEFAULTS
                      .withMaxMessageBytes(1 << 20)
                      .withMaxRecipients(10)
                      .withMaxConnections(maxConnections)
                      .withIdleTimeout(Duration.ofSeconds(30))
                      .withCommandDeadline(commandDeadline)
                      .withMaxConnectionsPerAddress(perAddress))
              .build();
      server = new PecServer(config, provider, serverLogins(keys), log::add, clock);
      server.start();
      port = Integer.parseInt(server.baseUrl().substring(server.baseUrl().lastIndexOf(':') + 1));
    }

    Path mailbox(String address) {
      return root.resolve("mail").resolve(address).resolve("new");
    }

    @Override
    public void close() {
      server.close();
    }
  }

  /**
   * The provider's side of logging in, as 'serve pec' sets it up: STARTTLS as tls-server, the test
   * users' passwords from the PKI.
   */
  static PecServer.Logins serverLogins(TestKeys keys) throws Exception {
    var root = keys.pki.certificate("root-ca");
    var tls = TlsContexts.withIdentity(keys.keys.key("tls-server"), root);
    return new PecServer.Logins(
        tls,
        address -> PecLogin.testPassword(keys.pki, address),
        TlsContexts.withIdentity(keys.keys.key("signer-rsa2048-1"), root));
  }

  /** Each sender logs in as itself with its test password. */
  static java.util.function.Function<String, PecLogin> loginsOf(TestKeys keys) {
    Map<String, PecLogin> cache = new java.util.concurrent.ConcurrentHashMap<>();
    return from ->
        cache.computeIfAbsent(
            from,
            a -> {
              try {
                return PecLogin.testUser(keys.pki, a);
              } catch (java.security.GeneralSecurityException e) {
                throw new IllegalStateException(e);
              }
            });
  }

  static String message(String from, String to, String id) {
    return "From: "
        + from
        + "\r\nTo: "
        + to
        + "\r\nMessage-ID: "
        + id
        + "\r\nSubject: plain mail\r\n\r\nhello\r\n";
  }

  /** Files in {@code box}, waiting up to 20 s for at least {@code n}. */
  static List<Path> awaitFiles(Path box, int n) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      List<Path> files = List.of();
      if (Files.isDirectory(box)) {
        try (Stream<Path> s = Files.list(box)) {
          files = s.toList();
        }
      }
      if (files.size() >= n || System.nanoTime() > deadline) return files;
      Thread.sleep(50);
    }
  }

  @Test
  @Timeout(60)
  void rcpt_traversalAddresses_refusedAt553AndNothingWrittenOutsideTheMailboxes() throws Exception {
    Path outside = dir.resolve("outside");
    try (Provider p = new Provider(dir.resolve("traversal"));
        SmtpTalk smtp = new SmtpTalk(p.port)) {
      List<String> bad =
          List.of(
              outside + "/abs/esc@pec1.test",
              "\"../../outside/quoted/esc\"@pec1.test",
              "../../outside/dots/esc@pec1.test",
              "a/../../x@pec1.test",
              "a\\..\\..\\x@pec1.test",
              "..@pec1.test",
              "user1@pec1.test/../../outside",
              "user1@../outside");
      List<String> replies = smtp.envelope("someone@elsewhere.test", bad.toArray(String[]::new));
      for (int i = 0; i < bad.size(); i++)
        assertTrue(replies.get(i).startsWith("553 "), bad.get(i) + " answered: " + replies.get(i));
      assertTrue(replies.get(0).contains("/ or \\"), "the reason is said: " + replies.get(0));
      assertTrue(
          smtp.say("RCPT TO:<nobody@pec1.test>").startsWith("550 5.1.1"),
          "a user the provider does not know has no mailbox");
      assertTrue(smtp.say("RCPT TO:<User1@PEC1.test>").startsWith("250"), "a known user, any case");
      assertTrue(
          smtp.data(message("someone@elsewhere.test", "user1@pec1.test", "<t.1@elsewhere.test>"))
              .startsWith("250"));
      assertEquals(
          1,
          awaitFiles(p.mailbox("user1@pec1.test"), 1).size(),
          "the good recipient is delivered to, folded once");
      try (Stream<Path> boxes = Files.list(p.root.resolve("mail"))) {
        assertEquals(
            List.of("user1@pec1.test"),
            boxes.map(b -> b.getFileName().toString()).toList(),
            "no other mailbox was made");
      }
      assertFalse(Files.exists(outside), "nothing written outside the mailboxes");
      assertFalse(Files.exists(p.root.resolve("outside")), "nothing written beside the mailboxes");
    }
  }

  /**
   * testssl.sh's check on the submission port: openssl s_client after STARTTLS over TLS 1.2 asks to
   * renegotiate. The provider refuses (a handshake_failure alert, no second handshake; before, the
   * JDK's socket renegotiated), and a user still logs in over STARTTLS.
   */
  @Test
  @Timeout(60)
  void starttls_clientRenegotiatesOverTls12_refusedAndUsersStillLogIn() throws Exception {
    try (Provider p = new Provider(dir.resolve("renegotiation"))) {
      OpensslRenegotiation.Attempt attempt =
          OpensslRenegotiation.attempt(p.port, "-starttls", "smtp");
      assertTrue(
          attempt.refused(), "s_client renegotiated, or never connected: " + attempt.output());
      assertTrue(
          attempt.afterRenegotiating().contains("alert handshake failure"),
          "told with a fatal alert: " + attempt.afterRenegotiating());
      assertTrue(
          p.log.stream().anyMatch(l -> l.contains("renegotiation after STARTTLS refused")),
          "logged: " + p.log);
      try (SmtpClient.Connection c =
          SmtpClient.Connection.open(
              "127.0.0.1",
              p.port,
              "pkibench-sender",
              Duration.ofSeconds(20),
              PecLogin.testUser(keys.pki, "user1@pec1.test"),
              null)) {
        assertTrue(c.tlsSession().isValid(), "a user logs in over STARTTLS after the refusal");
      }
    }
  }

  @Test
  void mailbox_addressOutsideTheRoot_isNotAMailbox() throws Exception {
    Maildir boxes = new Maildir(dir.resolve("second-line"), new Durable());
    for (String a :
        List.of("/tmp/x/esc@pec1.test", "../esc@pec1.test", "x@..", "\"a\"@pec1.test")) {
      Maildir.NotAMailbox e =
          org.junit.jupiter.api.Assertions.assertThrows(
              Maildir.NotAMailbox.class, () -> boxes.deliver(a, "<m@x>", new byte[1]));
      assertTrue(
          e.getMessage().contains("names no mailbox") || e.getMessage().contains("outside"),
          e.getMessage());
    }
    assertFalse(Files.exists(dir.resolve("second-line")), "nothing made for them");
  }

  @Test
  @Timeout(60)
  void rcpt_oneBadRecipientBesideAGoodOne_badRefusedGoodDeliveredJobNotSetAside() throws Exception {
    try (Provider p = new Provider(dir.resolve("mixed"));
        SmtpTalk smtp = new SmtpTalk(p.port)) {
      List<String> replies =
          smtp.envelope("someone@elsewhere.test", "a/../../x@pec1.test", "user2@pec1.test");
      assertTrue(replies.get(0).startsWith("553"), replies.get(0));
      assertTrue(replies.get(1).startsWith("250"), replies.get(1));
      assertTrue(
          smtp.data(message("someone@elsewhere.test", "user2@pec1.test", "<t.2@elsewhere.test>"))
              .startsWith("250"));
      assertEquals(
          1,
          awaitFiles(p.mailbox("user2@pec1.test"), 1).size(),
          "the good recipient got the message; log: " + p.log);
      assertEquals(
          0,
          awaitFiles(p.root.resolve("spool/failed"), 1).size(),
          "nothing set aside; log: " + p.log);
    }
  }

  /**
   * The spool and the mailboxes on a 3 MB tmpfs this test mounts (we run as root, here and in CI;
   * the mailboxes too, since a worker writes a local delivery straight into its Maildir and commits
   * nothing to the spool): 20 acknowledged jobs wait in it (as a provider restarted finds them),
   * the rest of the disk is filled, the provider starts and cannot process them, and a new message
   * is answered 452; space comes back and every job is delivered once, none set aside. (Before: all
   * 20 set aside as "failed in our code", 0 delivered.)
   */
  @Test
  @Timeout(180)
  void spool_fullDisk_acknowledgedMessagesRetriedAndNoneLost() throws Exception {
    Path root = Files.createDirectories(dir.resolve("fulldisk"));
    mount(root, "3m");
    Path spoolDir = Files.createDirectories(root.resolve("spool"));
    try {
      PecSpool spool = new PecSpool(spoolDir, new Durable());
      List<String> acknowledged = new ArrayList<>();
      String body = "x".repeat(76) + "\r\n";
      for (int n = 0; n < 20; n++) {
        String id = "<full." + n + "@elsewhere.test>";
        String rcpt = "user" + (1 + n % 3) + "@pec1.test";
        byte[] bytes =
            (message("someone@elsewhere.test", rcpt, id) + body.repeat(500))
                .getBytes(StandardCharsets.US_ASCII);
        assertTrue(
            spool.store(
                new PecSpool.Job(
                    Maildir.digest(id),
                    Origin.INCOMING,
                    "someone@elsewhere.test",
                    List.of(rcpt),
                    bytes)));
        acknowledged.add(id);
      }
      spool.close();
      Path filler = root.resolve("filler");
      fill(filler, Long.MAX_VALUE);
      try (Provider p = new Provider(root, spoolDir)) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline
            && p.log.stream()
                .noneMatch(
                    l -> l.contains("No space left on device") && !l.contains("cannot store"))) {
          Thread.sleep(50);
        }
        assertTrue(
            p.log.stream()
                .anyMatch(
                    l -> l.contains("No space left on device") && !l.contains("cannot store")),
            "processing met the full disk: " + p.log);
        String refusal;
        try (SmtpTalk smtp = new SmtpTalk(p.port)) {
          smtp.envelope("someone@elsewhere.test", "user1@pec1.test");
          refusal =
              smtp.data(
                  message("someone@elsewhere.test", "user1@pec1.test", "<full.new@elsewhere.test>")
                      + body.repeat(500));
        }
        Files.delete(filler);
        // space is back: every retry's wait (up to 15 s) is over by the provider's clock
        p.clock.moveAhead(Duration.ofMinutes(1));
        for (String id : acknowledged) awaitDelivered(p, id);
        try (Stream<Path> failed = Files.list(spoolDir.resolve("failed"))) {
          assertEquals(List.of(), failed.toList(), "nothing set aside; log: " + p.log);
        }
        assertTrue(
            p.log.stream().anyMatch(l -> l.contains("retried")), "the retry was said: " + p.log);
        assertTrue(
            refusal.startsWith("452 4.3.1"),
            "a message the full spool cannot store: insufficient system storage, try later: "
                + refusal);
      }
    } finally {
      new ProcessBuilder("umount", "-l", root.toString())
          .inheritIO()
          .start()
          .waitFor(30, TimeUnit.SECONDS);
    }
  }

  /**
   * Mounts a tmpfs of {@code size} at {@code at}; fails (never skips) saying why when it cannot.
   */
  static void mount(Path at, String size) throws Exception {
    Process m =
        new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", at.toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(m.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(
        m.waitFor(30, TimeUnit.SECONDS) && m.exitValue() == 0,
        "this test fills a small filesystem and needs to mount a tmpfs (root or CAP_SYS_ADMIN): mount said "
            + out.strip());
  }

  /** Writes up to {@code bytes} zeros to {@code file}, or until the disk is full. */
  static void fill(Path file, long bytes) throws Exception {
    byte[] block = new byte[64 * 1024];
    try (var out = Files.newOutputStream(file)) {
      for (long written = 0; written < bytes; written += block.length)
        out.write(block, 0, (int) Math.min(block.length, bytes - written));
    } catch (java.io.IOException e) {
      if (!String.valueOf(e.getMessage()).contains("No space left")) throw e;
    }
  }

  /**
   * Waits up to 60 s for the anomaly envelope of {@code messageId} in one mailbox, then checks it
   * is there exactly once.
   */
  static void awaitDelivered(Provider p, String messageId) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int copies = 0;
    while (copies == 0 && System.nanoTime() < deadline) {
      copies = 0;
      for (String user : List.of("user1", "user2", "user3")) {
        Path box = p.mailbox(user + "@pec1.test");
        if (!Files.isDirectory(box)) continue;
        try (Stream<Path> files = Files.list(box)) {
          for (Path f : files.toList()) {
            if (Files.readString(f, StandardCharsets.ISO_8859_1)
                .contains("X-Riferimento-Message-ID: " + messageId + "\r\n")) copies++;
          }
        }
      }
      if (copies == 0) Thread.sleep(100);
    }
    assertEquals(1, copies, messageId + " acknowledged and delivered once; log: " + p.log);
  }

  @Test
  @Timeout(60)
  void mailFrom_ourUserWithoutLogin_refused530AndALoggedInUserOnlyAsItself() throws Exception {
    try (Provider p = new Provider(dir.resolve("auth"))) {
      try (SmtpTalk smtp = new SmtpTalk(p.port)) {
        String ehlo = smtp.say("EHLO attacker.test");
        assertFalse(ehlo.contains("AUTH"), "no AUTH offered before STARTTLS: " + ehlo);
        assertTrue(ehlo.contains("STARTTLS"), ehlo);
        String mail = smtp.say("MAIL FROM:<user1@pec1.test>");
        assertTrue(mail.startsWith("530 5.7.0"), "submission without logging in: " + mail);
        String plainAuth =
            smtp.say(
                "AUTH PLAIN "
                    + java.util.Base64.getEncoder()
                        .encodeToString(
                            ("\0user1@pec1.test\0"
                                    + new String(
                                        PecLogin.testPassword(keys.pki, "user1@pec1.test").chars()))
                                .getBytes(StandardCharsets.UTF_8)));
        assertFalse(
            plainAuth.startsWith("235"),
            "no login before STARTTLS, even with the right password: " + plainAuth);
        assertTrue(
            smtp.say("MAIL FROM:<user1@pec1.test>").startsWith("530"), "still not logged in");
      }
      var wrong =
          new PecLogin(
              "user1@pec1.test",
              Secret.of("guess".toCharArray()),
              TlsContexts.trusting(keys.pki.certificate("root-ca")));
      byte[] m =
          message("user1@pec1.test", "user2@pec1.test", "<auth.1@pec1.test>")
              .getBytes(StandardCharsets.US_ASCII);
      var refused =
          org.junit.jupiter.api.Assertions.assertThrows(
              SmtpClient.Refusal.class,
              () ->
                  SmtpClient.send(
                      "127.0.0.1",
                      p.port,
                      "t",
                      "user1@pec1.test",
                      List.of("user2@pec1.test"),
                      m,
                      Duration.ofSeconds(20),
                      wrong));
      assertEquals(535, refused.code(), refused.getMessage());
      var asUser2 =
          org.junit.jupiter.api.Assertions.assertThrows(
              SmtpClient.Refusal.class,
              () ->
                  SmtpClient.send(
                      "127.0.0.1",
                      p.port,
                      "t",
                      "user1@pec1.test",
                      List.of("user2@pec1.test"),
                      m,
                      Duration.ofSeconds(20),
                      loginsOf(keys).apply("user2@pec1.test")));
      assertEquals(
          553, asUser2.code(), "logged in as user2, sending as user1: " + asUser2.getMessage());
      SmtpClient.send(
          "127.0.0.1",
          p.port,
          "t",
          "user1@pec1.test",
          List.of("user2@pec1.test"),
          m,
          Duration.ofSeconds(20),
          loginsOf(keys).apply("user1@pec1.test"));
      // user1's mailbox gets the acceptance receipt and, user2 being of the same provider, soon the
      // delivery receipt too
      List<Path> receipts = awaitFiles(p.mailbox("user1@pec1.test"), 2);
      List<String> kinds = new java.util.ArrayList<>();
      for (Path r : receipts)
        kinds.add(
            Files.readString(r, StandardCharsets.ISO_8859_1).contains("X-Ricevuta: accettazione")
                ? "acceptance"
                : "other");
      assertTrue(
          kinds.contains("acceptance"),
          "logged in as itself: the acceptance receipt arrives: " + receipts);
      assertFalse(
          String.join("\n", p.log)
              .contains(new String(PecLogin.testPassword(keys.pki, "user1@pec1.test").chars())),
          "no password in the log");
    }
  }

  @Test
  @Timeout(60)
  void relay_domainWithNoRoute_senderGetsANonDeliveryNoticeAtTheDeadline() throws Exception {
    Path root = dir.resolve("noroute");
    try (Provider p = new Provider(root, root.resolve("spool"), Duration.ofHours(1))) {
      byte[] m =
          message("user1@pec1.test", "user1@nowhere.test", "<noroute.1@pec1.test>")
              .getBytes(StandardCharsets.US_ASCII);
      SmtpClient.send(
          "127.0.0.1",
          p.port,
          "t",
          "user1@pec1.test",
          List.of("user1@nowhere.test"),
          m,
          Duration.ofSeconds(20),
          loginsOf(keys).apply("user1@pec1.test"));
      Path box = p.mailbox("user1@pec1.test");
      Await.until(
          Duration.ofSeconds(30),
          "the carrier finds no route",
          () -> p.log.stream().anyMatch(l -> l.contains("no route to nowhere.test")));
      Await.until(
          Duration.ofSeconds(30),
          "the acceptance receipt",
          () -> PecProvidersTest.firstWithOrNull(box, "X-Ricevuta: accettazione") != null);
      assertEquals(
          null,
          PecProvidersTest.firstWithOrNull(box, "X-Ricevuta: errore-consegna"),
          "before the deadline the envelope waits: no notice");
      assertEquals(1, p.server.stats().waitingItems(), "the envelope waits in the spool");
      p.clock.moveAhead(Duration.ofHours(1)); // past the relay deadline, by the provider's clock
      Path[] notice = new Path[1];
      Await.until(
          Duration.ofSeconds(30),
          "a non-delivery notice in the sender's mailbox; log: " + p.log,
          () ->
              (notice[0] = PecProvidersTest.firstWithOrNull(box, "X-Ricevuta: errore-consegna"))
                  != null);
      assertTrue(
          Files.readString(notice[0], StandardCharsets.ISO_8859_1)
              .contains("no route to nowhere.test"),
          "it says why: " + Files.readString(notice[0], StandardCharsets.ISO_8859_1));
      Await.until(
          Duration.ofSeconds(10),
          "nothing waits any more",
          () -> p.server.stats().waitingItems() == 0);
    }
  }

  /**
   * 30 connections from 127.0.0.2 dripping a byte every 300 ms (never ending a line, each byte
   * under the 30 s idle timeout): 20 are taken (the per-address cap) and 10 refused at once; a
   * client from 127.0.0.3 is served meanwhile; every drip is cut at the 2 s command deadline.
   */
  @Test
  @Timeout(90)
  void smtp_dripConnections_cutAtTheCommandDeadlineWhileANormalClientIsServed() throws Exception {
    Path root = dir.resolve("drip");
    try (Provider p =
        new Provider(
            root, root.resolve("spool"), Duration.ofDays(1), 30, Duration.ofSeconds(2), 20)) {
      List<java.net.Socket> drips = new ArrayList<>();
      List<String> greetings = new ArrayList<>();
      try {
        for (int i = 0; i < 30; i++) {
          java.net.Socket s = new java.net.Socket();
          s.bind(new java.net.InetSocketAddress("127.0.0.2", 0));
          s.connect(new java.net.InetSocketAddress("127.0.0.1", p.port), 5000);
          s.setSoTimeout(10_000);
          drips.add(s);
          greetings.add(
              new java.io.BufferedReader(
                      new java.io.InputStreamReader(
                          s.getInputStream(), StandardCharsets.ISO_8859_1))
                  .readLine());
        }
        assertEquals(
            20,
            greetings.stream().filter(g -> g != null && g.startsWith("220")).count(),
            "20 taken from one address: " + greetings);
        assertEquals(
            10,
            greetings.stream().filter(g -> g != null && g.startsWith("421")).count(),
            "the rest refused at once: " + greetings);
        long start = System.nanoTime();
        Thread dripper =
            Thread.ofPlatform()
                .daemon()
                .start(
                    () -> {
                      byte[] ehlo = "EHLO drip.test".getBytes(StandardCharsets.US_ASCII);
                      for (int b = 0;
                          b < ehlo.length * 10 && !Thread.currentThread().isInterrupted();
                          b++) {
                        for (java.net.Socket s : drips) {
                          try {
                            s.getOutputStream().write(ehlo[b % ehlo.length]);
                          } catch (java.io.IOException e) {
                            // cut: as it should be
                          }
                        }
                        try {
                          Thread.sleep(300);
                        } catch (InterruptedException e) {
                          return;
                        }
                      }
                    });
        try (SmtpTalk normal = new SmtpTalk(p.port, "127.0.0.3")) {
          assertTrue(
              normal.greeting.startsWith("220"),
              "a normal client is taken beside the drips: " + normal.greeting);
          normal.envelope("someone@elsewhere.test", "user1@pec1.test");
          assertTrue(
              normal
                  .data(
                      message(
                          "someone@elsewhere.test", "user1@pec1.test", "<drip.1@elsewhere.test>"))
                  .startsWith("250"));
        }
        int cut = 0;
        for (java.net.Socket s : drips.subList(0, 30)) {
          try {
            java.io.InputStream in = s.getInputStream();
            while (in.read() >= 0) {} // the rest of the greeting, then the end
            cut++;
          } catch (java.net.SocketTimeoutException e) {
            // still open 10 s on: not cut
          } catch (java.io.IOException e) {
            cut++; // reset: cut
          }
        }
        dripper.interrupt();
        double seconds = (System.nanoTime() - start) / 1e9;
        assertEquals(30, cut, "every drip cut (or refused)");
        assertTrue(
            seconds < 8, "cut at the 2 s deadline, not the 30 s idle timeout: " + seconds + " s");
      } finally {
        for (java.net.Socket s : drips) s.close();
      }
    }
  }

  /**
   * SIZE= past an int in MAIL FROM broke SubEthaSMTP's parser with a stack trace on stderr: now one
   * line in the log, and the provider serves on.
   */
  @Test
  @Timeout(60)
  void mailFrom_sizeParameterPastAnInt_oneLineNoStackTraceAndStillServing() throws Exception {
    java.io.PrintStream stderr = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    try (Provider p = new Provider(dir.resolve("size"))) {
      System.setErr(new java.io.PrintStream(captured, true));
      try (SmtpTalk smtp = new SmtpTalk(p.port)) {
        smtp.say("EHLO attacker.test");
        try {
          String reply = smtp.say("MAIL FROM:<someone@elsewhere.test> SIZE=99999999999");
          assertFalse(reply.startsWith("250"), reply);
        } catch (java.io.IOException e) {
          // the connection dropped: allowed, the point is what the server printed and that it
          // serves on
        }
      }
      try (SmtpTalk smtp = new SmtpTalk(p.port)) {
        smtp.envelope("someone@elsewhere.test", "user1@pec1.test");
        assertTrue(
            smtp.data(
                    message("someone@elsewhere.test", "user1@pec1.test", "<size.1@elsewhere.test>"))
                .startsWith("250"),
            "still serving");
      }
      // said by the session thread's uncaught-exception handler as the thread dies, which may
      // come after the client saw the connection close and even after the next session's message
      io.pkibench.testing.Await.until(
          java.time.Duration.ofSeconds(20),
          "the provider saying in one line what it could not take (its log: "
              + p.log
              + " when the wait began)",
          () -> p.log.stream().anyMatch(l -> l.contains("could not take (NumberFormatException")));
    } finally {
      System.setErr(stderr);
    }
    String printed = captured.toString(StandardCharsets.UTF_8);
    assertFalse(
        printed.contains("\tat ") || printed.contains("Exception in thread"),
        "no stack trace on stderr: " + printed);
  }

  /**
   * Mail in a peer provider's name (pec2.test is in the index) is taken only from that provider:
   * over STARTTLS with the certificate the index lists for it. A stranger without TLS, or with
   * another certificate of the same PKI, is refused 530; pec2.test's own certificate is taken.
   */
  @Test
  @Timeout(60)
  void mailFrom_aPeerProvidersDomain_onlyWithThePeersIndexCertificate() throws Exception {
    try (Provider p = new Provider(dir.resolve("peer"))) {
      byte[] m =
          message("posta-certificata@pec2.test", "user1@pec1.test", "<peer.1@pec2.test>")
              .getBytes(StandardCharsets.US_ASCII);
      var root = keys.pki.certificate("root-ca");
      for (String alias : new String[] {null, "tls-client", "signer-rsa2048-3"}) {
        var identity = alias == null ? null : TlsContexts.withIdentity(keys.keys.key(alias), root);
        var e =
            org.junit.jupiter.api.Assertions.assertThrows(
                SmtpClient.Refusal.class,
                () ->
                    SmtpClient.send(
                        "127.0.0.1",
                        p.port,
                        "forger.test",
                        "posta-certificata@pec2.test",
                        List.of("user1@pec1.test"),
                        m,
                        Duration.ofSeconds(20),
                        null,
                        identity));
        assertEquals(530, e.code(), (alias == null ? "no TLS" : alias) + ": " + e.getMessage());
      }
      SmtpClient.send(
          "127.0.0.1",
          p.port,
          "pec2.test",
          "posta-certificata@pec2.test",
          List.of("user1@pec1.test"),
          m,
          Duration.ofSeconds(20),
          null,
          TlsContexts.withIdentity(keys.keys.key("signer-rsa2048-2"), root));
      assertEquals(
          1,
          awaitFiles(p.mailbox("user1@pec1.test"), 1).size(),
          "pec2.test's provider, known by its certificate, is taken");
    }
  }

  /**
   * 'pkibench pec send' logs in as the test user by itself (its password from the test PKI); a
   * wrong one from the environment is refused 535.
   */
  @Test
  @Timeout(60)
  void pecSend_logsInAsTheTestUser_andAWrongPasswordIsRefused() throws Exception {
    try (Provider p = new Provider(dir.resolve("pecsend"))) {
      for (boolean wrong : new boolean[] {false, true}) {
        java.io.StringWriter out = new java.io.StringWriter(), err = new java.io.StringWriter();
        Map<String, String> env =
            wrong ? Map.of("PKIBENCH_PEC_PASSWORD", "not-the-password") : Map.of();
        var ctx =
            new CliContext(
                new java.io.PrintWriter(out, true),
                new java.io.PrintWriter(err, true),
                env,
                InstantSource.system(),
                p.root,
                false);
        int code =
            Main.execute(
                ctx,
                "pec",
                "send",
                "--from",
                "user1@pec1.test",
                "--to",
                "user2@pec1.test",
                "--via",
                "127.0.0.1:" + p.port,
                "--size",
                "4k",
                "--pki",
                keys.pki.dir().toString(),
                "--sent",
                "sent.jsonl");
        if (wrong) {
          assertEquals(1, code, out + "\n" + err);
          assertTrue(err.toString().contains("535"), err.toString());
          assertFalse((out + "" + err).contains("not-the-password"), "the password is not printed");
        } else {
          assertEquals(0, code, out + "\n" + err);
          assertTrue(out.toString().contains("1 of 1 messages acknowledged"), out.toString());
        }
      }
    }
  }
}
