package io.pkibench.server.pec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.pec.PecProvider;
import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.testing.Await;
import io.pkibench.testing.TestKeys;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mailbox deliveries are written unforced and made durable by the spool's journal: a provider
 * reopened after a power loss (simulated: the delivered files deleted or cut short, the journal as
 * the disk kept it) rewrites every delivery the journal recorded, byte for byte, and redoes a job
 * whose delivery it did not record, leaving one whole copy.
 */
class MailboxDeliveryRecordTest {
  @TempDir static Path dir;
  static TestKeys keys;

  @BeforeAll
  static void pki() {
    keys = TestKeys.in(dir);
  }

  /** A provider for pec1.test in this JVM, its spool and mailboxes under {@code root}. */
  private static PecServer start(Path root, List<String> log) throws Exception {
    var key = keys.keys.key("signer-rsa2048-1");
    var index =
        new ProviderIndex(
            Map.of(
                "pec1.test",
                key.certificate(),
                "pec2.test",
                keys.keys.key("signer-rsa2048-2").certificate()));
    var provider =
        new PecProvider(
            "pec1.test",
            "pkibench provider pec1.test",
            key,
            index,
            InstantSource.system(),
            ZoneId.of("Europe/Rome"));
    var config =
        PecServer.Config.builder("pec1.test", root.resolve("spool"), root.resolve("mail"))
            .bind("127.0.0.1")
            .workers(2)
            .relayDeadline(Duration.ofDays(1))
            .limits(
                SmtpLimits.DEFAULTS
                    .withMaxMessageBytes(1 << 20)
                    .withMaxRecipients(10)
                    .withMaxConnections(20)
                    .withIdleTimeout(Duration.ofSeconds(30)))
            .build();
    PecServer server = new PecServer(config, provider, PecAttacksTest.serverLogins(keys), log::add);
    server.start();
    return server;
  }

  private static final String BODY = "line of a plain message for the mailbox\r\n".repeat(200);

  private static byte[] message(String id, String... to) {
    return (PecAttacksTest.message("someone@elsewhere.test", String.join(", ", to), id) + BODY)
        .getBytes(StandardCharsets.US_ASCII);
  }

  private static List<Path> files(Path root, String address) throws Exception {
    List<Path> all = new ArrayList<>();
    for (String sub : List.of("new", "cur")) {
      Path d = root.resolve("mail").resolve(address).resolve(sub);
      if (!Files.isDirectory(d)) continue;
      try (Stream<Path> s = Files.list(d)) {
        all.addAll(s.toList());
      }
    }
    return all;
  }

  /** The one delivered file of {@code address}, waiting up to 30 s for it. */
  private static Path awaitOne(Path root, String address) throws Exception {
    Await.until(
        Duration.ofSeconds(30), "a delivery to " + address, () -> files(root, address).size() == 1);
    return files(root, address).getFirst();
  }

  /**
   * The journal without its checkpoint records: as a power loss before any mailbox flush leaves it.
   */
  private static int dropCheckpoints(Path journal) throws Exception {
    ByteBuffer all = ByteBuffer.wrap(Files.readAllBytes(journal));
    ByteBuffer kept = ByteBuffer.allocate(all.capacity());
    int dropped = 0;
    while (all.remaining() >= 8) {
      int length = all.getInt(all.position());
      byte[] record = new byte[8 + length];
      all.get(record);
      if (record[8] == 'S') dropped++;
      else kept.put(record);
    }
    Files.write(journal, Arrays.copyOf(kept.array(), kept.position()));
    return dropped;
  }

  private static void cutToHalf(Path file) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.setLength(f.length() / 2);
    }
  }

  @Test
  @Timeout(120)
  void start_recordedDeliveriesDeletedAndCutShort_rewrittenWholeFromTheJournal() throws Exception {
    Path root = dir.resolve("recorded");
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    PecServer first = start(root, log);
    byte[] one;
    byte[] two;
    try (SmtpTalk smtp =
        new SmtpTalk(
            Integer.parseInt(first.baseUrl().substring(first.baseUrl().lastIndexOf(':') + 1)))) {
      smtp.envelope("someone@elsewhere.test", "user1@pec1.test", "user2@pec1.test");
      String reply =
          smtp.data(
              new String(
                  message("<recorded.1@elsewhere.test>", "user1@pec1.test", "user2@pec1.test"),
                  StandardCharsets.US_ASCII));
      assertTrue(reply.startsWith("250"), reply);
      one = Files.readAllBytes(awaitOne(root, "user1@pec1.test"));
      two = Files.readAllBytes(awaitOne(root, "user2@pec1.test"));
      Await.until(
          Duration.ofSeconds(30),
          "the job done",
          () -> first.stats().processed() == 1 && first.stats().waitingJobs() == 0);
    } finally {
      first.close();
    }
    assertTrue(
        dropCheckpoints(root.resolve("spool/journal")) >= 1,
        "the clean stop flushed the mailboxes and said so in the journal");
    Files.delete(files(root, "user1@pec1.test").getFirst());
    cutToHalf(files(root, "user2@pec1.test").getFirst());

    log.clear();
    PecServer second = start(root, log);
    try {
      assertArrayEquals(
          one,
          Files.readAllBytes(awaitOne(root, "user1@pec1.test")),
          "the deleted delivery rewritten, byte for byte; log: " + log);
      assertArrayEquals(
          two,
          Files.readAllBytes(awaitOne(root, "user2@pec1.test")),
          "the cut delivery rewritten whole; log: " + log);
      assertTrue(
          log.stream().anyMatch(l -> l.contains("2 mailbox deliveries the journal recorded")),
          "said once, with the count: " + log);
      assertEquals(0, second.stats().waitingJobs(), "the job stays done: nothing redone");
    } finally {
      second.close();
    }
  }

  @Test
  @Timeout(120)
  void start_deliveryNotInTheJournalAndItsCopyCutShort_jobRedoneLeavingOneWholeCopy()
      throws Exception {
    Path root = dir.resolve("unrecorded");
    String messageId = "<unrecorded.1@elsewhere.test>";
    try (PecSpool spool = new PecSpool(root.resolve("spool"), new Durable())) {
      assertTrue(
          spool.store(
              new PecSpool.Job(
                  Maildir.digest(messageId),
                  Origin.INCOMING,
                  "someone@elsewhere.test",
                  List.of("user1@pec1.test"),
                  message(messageId, "user1@pec1.test"))));
    }
    Path journal = root.resolve("spool/journal");
    byte[] acknowledgedOnly = Files.readAllBytes(journal);
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    PecServer first = start(root, log);
    long whole;
    try {
      whole = Files.size(awaitOne(root, "user1@pec1.test"));
      Await.until(Duration.ofSeconds(30), "the job done", () -> first.stats().processed() == 1);
    } finally {
      first.close();
    }
    assertTrue(
        Files.size(journal) > acknowledgedOnly.length,
        "the delivery and the job's end were journalled");
    Files.write(
        journal,
        acknowledgedOnly); // the power loss took every record after the job's, and half the copy
    cutToHalf(files(root, "user1@pec1.test").getFirst());

    log.clear();
    PecServer second = start(root, log);
    try {
      Await.until(Duration.ofSeconds(30), "the job redone", () -> second.stats().processed() == 1);
      List<Path> copies = files(root, "user1@pec1.test");
      assertEquals(1, copies.size(), "one copy: " + copies);
      String copy = Files.readString(copies.getFirst(), StandardCharsets.ISO_8859_1);
      // the redone envelope is signed anew (its times may differ by a few bytes), and carries the
      // message whole
      assertTrue(
          Math.abs(Files.size(copies.getFirst()) - whole) < 64,
          "whole again: "
              + Files.size(copies.getFirst())
              + " bytes, first copy "
              + whole
              + "; log: "
              + log);
      assertTrue(copy.contains(BODY), "the message inside the envelope whole");
      assertTrue(
          copy.contains("X-Riferimento-Message-ID: " + messageId + "\r\n"),
          "the redone job's envelope of the message");
    } finally {
      second.close();
    }
  }
}
