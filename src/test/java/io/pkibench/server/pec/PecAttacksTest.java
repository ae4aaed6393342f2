package io.pkibench.server.pec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.TestKeys;
import io.pkibench.workload.pec.PecProvider;
import io.pkibench.workload.pec.ProviderIndex;
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
 * The PEC provider attacked over SMTP on loopback as issue 25 found it open: addresses that climb out
 * of the mailboxes, one bad recipient beside a good one.
 */
class PecAttacksTest {
  @TempDir static Path dir;
  static TestKeys keys;

  @BeforeAll
  static void pki() {
    keys = TestKeys.in(dir);
  }

  /** A provider for pec1.test in this JVM, on a free port, its spool and mailboxes under {@code root}. */
  static final class Provider implements AutoCloseable {
    final Path root;
    final PecServer server;
    final List<String> log = Collections.synchronizedList(new ArrayList<>());
    final int port;

    Provider(Path root) throws Exception {
      this.root = root;
      var key = keys.keys.key("signer-rsa2048-1");
      var index = new ProviderIndex(Map.of("pec1.test", key.certificate(), "pec2.test", keys.keys.key("signer-rsa2048-2").certificate()));
      PecProvider provider = new PecProvider("pec1.test", "pkibench provider pec1.test", key, index, InstantSource.system(), ZoneId.of("Europe/Rome"));
      var config = new PecServer.Config("pec1.test", "127.0.0.1", 0, Map.of(), 2, root.resolve("spool"), root.resolve("mail"), 1 << 20, 10, 20,
          Duration.ofSeconds(30), PecServer.TEST_USERS);
      server = new PecServer(config, provider, log::add);
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

  static String message(String from, String to, String id) {
    return "From: " + from + "\r\nTo: " + to + "\r\nMessage-ID: " + id + "\r\nSubject: plain mail\r\n\r\nhello\r\n";
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
    try (Provider p = new Provider(dir.resolve("traversal")); SmtpTalk smtp = new SmtpTalk(p.port)) {
      List<String> bad = List.of(outside + "/abs/esc@pec1.test", "\"../../outside/quoted/esc\"@pec1.test", "../../outside/dots/esc@pec1.test",
          "a/../../x@pec1.test", "a\\..\\..\\x@pec1.test", "..@pec1.test", "user1@pec1.test/../../outside", "user1@../outside");
      List<String> replies = smtp.envelope("someone@elsewhere.test", bad.toArray(String[]::new));
      for (int i = 0; i < bad.size(); i++) assertTrue(replies.get(i).startsWith("553 "), bad.get(i) + " answered: " + replies.get(i));
      assertTrue(replies.get(0).contains("/ or \\"), "the reason is said: " + replies.get(0));
      assertTrue(smtp.say("RCPT TO:<nobody@pec1.test>").startsWith("550 5.1.1"), "a user the provider does not know has no mailbox");
      assertTrue(smtp.say("RCPT TO:<User1@PEC1.test>").startsWith("250"), "a known user, any case");
      assertTrue(smtp.data(message("someone@elsewhere.test", "user1@pec1.test", "<t.1@elsewhere.test>")).startsWith("250"));
      assertEquals(1, awaitFiles(p.mailbox("user1@pec1.test"), 1).size(), "the good recipient is delivered to, folded once");
      try (Stream<Path> boxes = Files.list(p.root.resolve("mail"))) {
        assertEquals(List.of("user1@pec1.test"), boxes.map(b -> b.getFileName().toString()).toList(), "no other mailbox was made");
      }
      assertFalse(Files.exists(outside), "nothing written outside the mailboxes");
      assertFalse(Files.exists(p.root.resolve("outside")), "nothing written beside the mailboxes");
    }
  }

  @Test
  void mailbox_addressOutsideTheRoot_isNotAMailbox() throws Exception {
    Maildir boxes = new Maildir(dir.resolve("second-line"), new Durable());
    for (String a : List.of("/tmp/x/esc@pec1.test", "../esc@pec1.test", "x@..", "\"a\"@pec1.test")) {
      Maildir.NotAMailbox e = org.junit.jupiter.api.Assertions.assertThrows(Maildir.NotAMailbox.class, () -> boxes.deliver(a, "<m@x>", new byte[1]));
      assertTrue(e.getMessage().contains("names no mailbox") || e.getMessage().contains("outside"), e.getMessage());
    }
    assertFalse(Files.exists(dir.resolve("second-line")), "nothing made for them");
  }

  @Test
  @Timeout(60)
  void rcpt_oneBadRecipientBesideAGoodOne_badRefusedGoodDeliveredJobNotSetAside() throws Exception {
    try (Provider p = new Provider(dir.resolve("mixed")); SmtpTalk smtp = new SmtpTalk(p.port)) {
      List<String> replies = smtp.envelope("someone@elsewhere.test", "a/../../x@pec1.test", "user2@pec1.test");
      assertTrue(replies.get(0).startsWith("553"), replies.get(0));
      assertTrue(replies.get(1).startsWith("250"), replies.get(1));
      assertTrue(smtp.data(message("someone@elsewhere.test", "user2@pec1.test", "<t.2@elsewhere.test>")).startsWith("250"));
      assertEquals(1, awaitFiles(p.mailbox("user2@pec1.test"), 1).size(), "the good recipient got the message; log: " + p.log);
      assertEquals(0, awaitFiles(p.root.resolve("spool/failed"), 1).size(), "nothing set aside; log: " + p.log);
    }
  }
}
