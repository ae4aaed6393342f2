package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.formats.pec.TestProviders;
import io.pkibench.server.pec.PecServer;
import io.pkibench.server.pec.SmtpLimits;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pkibench pec send|check|index} in-process: each with its bad input (every problem at once,
 * exit 2, nothing sent), and together against two real providers mailing each other on loopback.
 */
@Timeout(
    value = 3,
    unit =
        java.util.concurrent.TimeUnit.MINUTES) // talks to SMTP servers: a hang fails, said as one
class PecCommandTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            InstantSource.system(),
            dir,
            false);
    return Main.execute(ctx, args);
  }

  @Test
  void pec_noSubcommand_exit2NamingTheThree() {
    assertEquals(2, run("pec"));
    assertTrue(
        err.toString().contains("name a subcommand: pec send, pec check or pec index"),
        err.toString());
  }

  @Test
  void send_everyFlagWrong_exit2NamingEachAtOnceAndNothingWritten() {
    assertEquals(
        2,
        run(
            "pec",
            "send",
            "--to",
            "nobody,user1@pec2.test",
            "--from",
            "user1",
            "--via",
            "localhost",
            "--count",
            "0",
            "--concurrency",
            "257",
            "--size",
            "lots"));
    String e = err.toString();
    for (String named :
        List.of(
            "--count 0: give 1 to 10000000",
            "--concurrency 257: give 1 to 256",
            "--size ",
            "--via localhost: write HOST:PORT",
            "--from user1: write a mail address",
            "--to nobody: write a mail address")) {
      assertTrue(e.contains(named), "'" + named + "' in:\n" + e);
    }
    assertFalse(
        e.lines().anyMatch(l -> l.startsWith("--to user1@pec2.test")),
        "a good recipient is not a problem:\n" + e);
    assertFalse(Files.exists(dir.resolve("sent.jsonl")), "nothing sent, nothing listed");
    assertEquals(2, run("pec", "send"));
    assertTrue(err.toString().contains("Missing required option: '--to"), err.toString());
  }

  @Test
  void send_noProviderListening_exit1EachMessageNamedNotSent() throws Exception {
    int closedPort = freePort();
    assertEquals(
        1,
        run(
            "pec",
            "send",
            "--to",
            "user1@pec2.test",
            "--via",
            "127.0.0.1:" + closedPort,
            "--count",
            "2",
            "--size",
            "4k"));
    assertTrue(
        out.toString().contains("0 of 2 messages acknowledged by 127.0.0.1:" + closedPort),
        out.toString());
    assertEquals(
        2,
        err.toString().lines().filter(l -> l.startsWith("not sent: <pkibench.")).count(),
        err.toString());
  }

  @Test
  void check_everyFlagWrong_exit2NamingEachAtOnce() {
    assertEquals(
        2,
        run(
            "pec",
            "check",
            "--mailboxes",
            "no-such-box,other-box",
            "--sent",
            "missing.jsonl",
            "--wait",
            "a while"));
    String e = err.toString();
    for (String named :
        List.of(
            "--wait a while",
            "--mailboxes no-such-box: no such directory",
            "--mailboxes other-box: no such directory",
            "--sent missing.jsonl: no such file; 'pkibench pec send' writes it")) {
      assertTrue(e.contains(named), "'" + named + "' in:\n" + e);
    }
    assertFalse(
        out.toString().contains("reliability:"), "no check made on input it could not read");
  }

  @Test
  void check_damagedSentList_exit2NamingTheFile() throws Exception {
    Files.createDirectories(dir.resolve("box"));
    Files.writeString(dir.resolve("sent.jsonl"), "{\"messageId\": \n");
    assertEquals(2, run("pec", "check", "--mailboxes", "box"));
    assertTrue(err.toString().contains("--sent sent.jsonl: "), err.toString());
  }

  @Test
  void index_writesBothProvidersCertificatesOpensslReads_andAnUnwritablePlaceFails()
      throws Exception {
    assertEquals(0, run("pec", "index", "--out", "providers.pem", "--pki", "pki"));
    assertTrue(
        out.toString()
            .contains(
                "provider index of pec1.test and pec2.test written to "
                    + dir.resolve("providers.pem")),
        out.toString());
    String certs = Openssl.run(dir, "crl2pkcs7", "-nocrl", "-certfile", "providers.pem");
    assertTrue(Openssl.succeeded(certs), certs);
    String printed = Openssl.run(dir, "storeutl", "-noout", "-text", "-certs", "providers.pem");
    assertTrue(printed.contains("Total found: 2"), "two providers, two certificates: " + printed);

    assertEquals(2, run("pec", "index"));
    assertTrue(err.toString().contains("Missing required option: '--out=FILE'"), err.toString());
    Files.writeString(dir.resolve("a-file"), "not a directory");
    assertTrue(
        run("pec", "index", "--out", "a-file/providers.pem", "--pki", "pki") != 0,
        "a place it cannot write is not success: " + out + err);
  }

  /**
   * Two providers in this process on loopback, as {@code serve pec} starts them: {@code pec send}
   * submits to the first, {@code pec check} finds every receipt once; with one delivery receipt
   * removed it names the message lost.
   */
  @Test
  void sendThenCheck_twoRealProviders_zeroLostThenTheRemovedReceiptNamed() throws Exception {
    TestKeys keys = TestKeys.in(dir);
    var index = TestProviders.index(keys.pki);
    Path mail1 = dir.resolve("mail1");
    Path mail2 = dir.resolve("mail2");
    // a provider makes its mailbox directory at its first delivery; check, started at once, is
    // given them
    Files.createDirectories(mail1);
    Files.createDirectories(mail2);
    // pec2 sends its receipts back to pec1, so it is told pec1's port before either listens
    int port1 = freePort();
    try (PecServer pec2 =
        provider(
            keys,
            index,
            TestProviders.RECIPIENT_DOMAIN,
            TestProviders.RECIPIENT_KEY,
            0,
            Map.of(TestProviders.SENDER_DOMAIN, "127.0.0.1:" + port1),
            mail2)) {
      try (PecServer pec1 =
          provider(
              keys,
              index,
              TestProviders.SENDER_DOMAIN,
              TestProviders.SENDER_KEY,
              port1,
              Map.of(TestProviders.RECIPIENT_DOMAIN, hostPort(pec2)),
              mail1)) {
        assertEquals(
            0,
            run(
                "pec",
                "send",
                "--from",
                "user1@pec1.test",
                "--to",
                "user1@pec2.test",
                "--via",
                hostPort(pec1),
                "--count",
                "3",
                "--size",
                "8k",
                "--concurrency",
                "2",
                "--pki",
                "pki"),
            err.toString());
        assertTrue(
            out.toString().startsWith("3 of 3 messages acknowledged by " + hostPort(pec1)),
            out.toString());
        assertEquals(3, Files.readAllLines(dir.resolve("sent.jsonl")).size());

        assertEquals(
            0,
            run("pec", "check", "--mailboxes", "mail1,mail2", "--wait", "60s"),
            out + "\n" + err);
        assertTrue(
            out.toString().contains("reliability: 3 messages, 0 lost, 0 duplicated"),
            out.toString());
      }
    }
    Path receipt = onlyDocument(mail1, "X-Ricevuta: avvenuta-consegna");
    Files.delete(receipt);
    assertEquals(1, run("pec", "check", "--mailboxes", "mail1,mail2"));
    assertTrue(
        out.toString().contains("reliability: 3 messages, 1 lost, 0 duplicated"), out.toString());
    assertTrue(out.toString().contains("delivery"), "the finding names the document: " + out);
  }

  PecServer provider(
      TestKeys keys,
      ProviderIndex index,
      String domain,
      String key,
      int port,
      Map<String, String> peers,
      Path mail)
      throws Exception {
    var config =
        PecServer.Config.builder(domain, dir.resolve("spool-" + domain), mail)
            .bind("127.0.0.1")
            .port(port)
            .peers(peers)
            .workers(2)
            .relayDeadline(Duration.ofDays(1))
            .limits(
                SmtpLimits.DEFAULTS
                    .withMaxMessageBytes(1 << 20)
                    .withMaxRecipients(10)
                    .withMaxConnections(20)
                    .withIdleTimeout(Duration.ofSeconds(30)))
            .build();
    var signing = keys.keys.key(key);
    PecServer server =
        PecServer.forKey(
            config,
            signing,
            index,
            null,
            InstantSource.system(),
            TestProviders.ZONE,
            PecServer.Logins.forTestPki(keys.pki, signing, line -> {}),
            line -> {});
    server.start();
    return server;
  }

  static int freePort() throws Exception {
    return io.pkibench.testing.ReservedPorts.one();
  }

  static String hostPort(PecServer server) {
    return server.baseUrl().substring("smtp://".length());
  }

  /** The first mailbox file under {@code root} holding {@code header}. */
  static Path onlyDocument(Path root, String header) throws Exception {
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(Files::isRegularFile).toList()) {
        if (Files.readString(f, StandardCharsets.ISO_8859_1).contains(header)) return f;
      }
    }
    throw new AssertionError("no document with " + header + " under " + root);
  }
}
