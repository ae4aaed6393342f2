package io.pkibench.formats.pec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.TestKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "0 lost, 0 duplicated" oracle over real documents in real Maildirs, without the two-provider
 * SMTP run: two providers in this process make every document of three messages, each is delivered
 * into its mailbox's {@code new/}, and then one receipt is lost and one envelope delivered twice.
 */
class ReliabilityCheckTest {
  @TempDir static Path keysDir;
  @TempDir Path mail;
  static TestKeys keys;
  static final InstantSource CLOCK = InstantSource.fixed(Instant.parse("2026-11-23T09:30:00Z"));
  Path pec1Root;
  PecProvider pec1;
  PecProvider pec2;
  Path pec2Root;
  List<SentMessage> sent;

  /** Where each message's documents went, by Message-ID then document kind. */
  final Map<String, Map<DocumentKind, Path>> delivered = new java.util.HashMap<>();

  @BeforeEach
  void threeMessagesEachFullyReceipted() throws Exception {
    if (keys == null) keys = TestKeys.in(keysDir);
    ProviderIndex index =
        new ProviderIndex(
            Map.of(
                "pec1.test",
                keys.keys.key("signer-rsa2048-1").certificate(),
                "pec2.test",
                keys.keys.key("signer-rsa2048-2").certificate()));
    pec1 =
        new PecProvider(
            "pec1.test",
            "Gestore uno",
            keys.keys.key("signer-rsa2048-1"),
            index,
            CLOCK,
            ZoneId.of("Europe/Rome"));
    pec2 =
        new PecProvider(
            "pec2.test",
            "Gestore due",
            keys.keys.key("signer-rsa2048-2"),
            index,
            CLOCK,
            ZoneId.of("Europe/Rome"));
    pec1Root = mail.resolve("pec1");
    pec2Root = mail.resolve("pec2");
    sent = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      String id = "<m" + i + "@pec1.test>";
      byte[] original =
          PecMessages.message("alice@pec1.test", "bob@pec2.test", id, "Fattura n. " + i, 2048, i);
      sent.add(
          new SentMessage(
              id,
              "alice@pec1.test",
              List.of("bob@pec2.test"),
              original.length,
              CLOCK.instant().toString()));
      List<Outgoing> accepted =
          pec1.accept("job" + i, "alice@pec1.test", List.of("bob@pec2.test"), original);
      Outgoing transport = accepted.get(1);
      List<Outgoing> received =
          pec2.receive(
              "in" + i, "posta-certificata@pec1.test", List.of("bob@pec2.test"), transport.bytes());
      Map<DocumentKind, Path> mine = new java.util.EnumMap<>(DocumentKind.class);
      mine.put(DocumentKind.ACCEPTANCE, deliver(pec1Root, accepted.get(0)));
      for (Outgoing o : received) {
        Path root = o.to().get(0).endsWith("@pec2.test") ? pec2Root : pec1Root;
        mine.put(o.kind() == null ? DocumentKind.TRANSPORT : o.kind(), deliver(root, o));
      }
      delivered.put(id, mine);
    }
  }

  /** Into {@code root/address/new/}, named as a Maildir names a message; the path of the file. */
  static Path deliver(Path root, Outgoing o) throws Exception {
    Path box = root.resolve(o.to().get(0).toLowerCase(Locale.ROOT));
    for (String sub : List.of("tmp", "new", "cur")) Files.createDirectories(box.resolve(sub));
    String name =
        HexFormat.of()
                .formatHex(
                    java.security.MessageDigest.getInstance("SHA-256")
                        .digest(
                            (o.messageId() + "\n" + o.to().get(0))
                                .getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                    0,
                    12)
            + ".pkibench";
    return Files.write(box.resolve("new").resolve(name), o.bytes());
  }

  @Test
  void check_everyDocumentOnce_passesWithNoFinding() throws Exception {
    ReliabilityCheck.Result r = ReliabilityCheck.check(List.of(pec1Root, pec2Root), sent);
    assertTrue(r.passed(), r.findings().toString());
    assertEquals("reliability: 3 messages, 0 lost, 0 duplicated", r.summary());
    assertEquals(
        12,
        r.documentsRead(),
        "four documents per message: acceptance, taking charge, envelope, delivery");
    assertTrue(
        r.findings().isEmpty()
            && r.refused().isEmpty()
            && r.undeliverable().isEmpty()
            && r.anomalies().isEmpty(),
        r.toString());
    assertEquals(
        List.of(
            DocumentKind.ACCEPTANCE,
            DocumentKind.TAKING_CHARGE,
            DocumentKind.DELIVERY,
            DocumentKind.TRANSPORT),
        r.byKind().stream().map(ReliabilityCheck.KindCount::kind).toList(),
        "counted by document type, in the rules' order");
    for (ReliabilityCheck.KindCount k : r.byKind()) {
      assertEquals(3, k.count(), k.kind() + ": one per message");
      long bytes = 0;
      for (var m : delivered.values()) bytes += Files.size(m.get(k.kind()));
      assertEquals(bytes, k.bytes(), k.kind() + ": the bytes of the files delivered");
    }
    assertTrue(r.byKindLine().startsWith("by document type: accettazione 3 ("), r.byKindLine());
  }

  @Test
  void check_oneReceiptLostOneEnvelopeDuplicated_reportsEachByMessageId() throws Exception {
    Files.delete(delivered.get("<m2@pec1.test>").get(DocumentKind.DELIVERY));
    Path envelope = delivered.get("<m3@pec1.test>").get(DocumentKind.TRANSPORT);
    Files.copy(
        envelope,
        envelope.resolveSibling(
            "again." + envelope.getFileName())); // delivered twice under two names

    ReliabilityCheck.Result r = ReliabilityCheck.check(List.of(pec1Root, pec2Root), sent);
    assertFalse(r.passed());
    assertEquals("reliability: 3 messages, 1 lost, 1 duplicated", r.summary());
    assertEquals(List.of("<m2@pec1.test>"), r.lost());
    assertEquals(List.of("<m3@pec1.test>"), r.duplicated());
    assertEquals(
        List.of(
            "<m2@pec1.test>: delivery receipt for bob@pec2.test missing",
            "<m3@pec1.test>: transport envelope for bob@pec2.test found 2 times"),
        r.findings().stream().map(ReliabilityCheck.Finding::describe).toList());
  }

  @Test
  void check_takingChargeLostAndAcceptanceDuplicated_eachOfTheOtherDocumentsCounted()
      throws Exception {
    Files.delete(delivered.get("<m1@pec1.test>").get(DocumentKind.TAKING_CHARGE));
    Path acceptance = delivered.get("<m3@pec1.test>").get(DocumentKind.ACCEPTANCE);
    Files.copy(acceptance, acceptance.resolveSibling("again." + acceptance.getFileName()));

    ReliabilityCheck.Result r = ReliabilityCheck.check(List.of(pec1Root, pec2Root), sent);
    assertEquals(
        List.of(
            "<m1@pec1.test>: taking-charge receipt for pec2.test missing",
            "<m3@pec1.test>: acceptance receipt found 2 times"),
        r.findings().stream().map(ReliabilityCheck.Finding::describe).toList());
  }

  @Test
  @Timeout(
      60) // a wait that did not end on what it waits for would otherwise hold the suite for the ten
  // minutes asked
  void await_aReceiptArrivingDuringTheWait_isNoLoss() throws Exception {
    Path receipt = delivered.get("<m2@pec1.test>").get(DocumentKind.DELIVERY);
    byte[] bytes = Files.readAllBytes(receipt);
    Files.delete(receipt);
    Thread late =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    Thread.sleep(
                        700); // on its way: it arrives after the first round found it missing
                    Files.write(receipt, bytes);
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
    ReliabilityCheck.Result r =
        ReliabilityCheck.await(List.of(pec1Root, pec2Root), sent, Duration.ofMinutes(10));
    late.join();
    assertTrue(r.passed(), "a receipt still on its way is not a loss: " + r.findings());
  }

  @Test
  @Timeout(60)
  void await_aLossOnceTheWaitIsOver_aDuplicateAtOnce_eachReported() throws Exception {
    Files.delete(delivered.get("<m2@pec1.test>").get(DocumentKind.DELIVERY));
    ReliabilityCheck.Result lost =
        ReliabilityCheck.await(List.of(pec1Root, pec2Root), sent, Duration.ofSeconds(1));
    assertEquals(
        List.of("<m2@pec1.test>"),
        lost.lost(),
        "a receipt that never comes is a loss once the wait is over");

    Path envelope = delivered.get("<m3@pec1.test>").get(DocumentKind.TRANSPORT);
    Files.copy(envelope, envelope.resolveSibling("again." + envelope.getFileName()));
    ReliabilityCheck.Result duplicated =
        ReliabilityCheck.await(List.of(pec1Root, pec2Root), sent, Duration.ofMinutes(10));
    assertEquals(
        List.of("<m3@pec1.test>"),
        duplicated.duplicated(),
        "a duplicate ends the wait: waiting cannot remove one");
  }

  /**
   * With nothing in flight a missing document is lost once no file has come for the quiet time,
   * long before the wait is over; while something is in flight, or a file keeps arriving, the wait
   * goes on and a late receipt is still found.
   */
  @Test
  @Timeout(60)
  void await_nothingInFlight_endsAfterTheQuietTime_somethingInFlight_waitsOn() throws Exception {
    Path receipt = delivered.get("<m2@pec1.test>").get(DocumentKind.DELIVERY);
    byte[] bytes = Files.readAllBytes(receipt);
    Files.delete(receipt);
    long start = System.nanoTime();
    ReliabilityCheck.Result lost =
        ReliabilityCheck.await(
            List.of(pec1Root, pec2Root),
            sent,
            Duration.ofMinutes(10),
            () -> true,
            Duration.ofSeconds(1));
    long tookMillis = (System.nanoTime() - start) / 1_000_000;
    assertEquals(List.of("<m2@pec1.test>"), lost.lost());
    assertTrue(
        tookMillis < 30_000, "settled after the quiet second, not the 10 min: " + tookMillis);

    Thread late =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    Thread.sleep(2500); // longer than the quiet time: only "in flight" keeps it
                    Files.write(receipt, bytes);
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                });
    ReliabilityCheck.Result found =
        ReliabilityCheck.await(
            List.of(pec1Root, pec2Root),
            sent,
            Duration.ofMinutes(10),
            () -> Files.exists(receipt),
            Duration.ofSeconds(1));
    late.join();
    assertTrue(found.passed(), "in flight: the wait went on until it came: " + found.lost());
  }

  /**
   * What the rules let end without every receipt (the first mutation run found none of it reached
   * by a test), each reported as itself, none as lost.
   */
  @Test
  void check_notAcceptedUndeliverableAndAnomaly_eachListedNoneCountedLost() throws Exception {
    // a fourth message the sender's provider did not accept: its non-acceptance is all that is due
    String refusedId = "<m4@pec1.test>";
    sent.add(
        new SentMessage(
            refusedId,
            "alice@pec1.test",
            List.of("bob@pec2.test"),
            2048,
            CLOCK.instant().toString()));
    deliver(
        pec1Root,
        pec1.nonAcceptance(
            "job4",
            "alice@pec1.test",
            List.of("bob@pec2.test"),
            "Fattura n. 4",
            refusedId,
            List.of("planted")));

    // m2 refused for good by the recipient's provider: the sender is told, no envelope, taking
    // charge or delivery follow
    Map<DocumentKind, Path> m2 = delivered.get("<m2@pec1.test>");
    byte[] envelope = Files.readAllBytes(m2.get(DocumentKind.TRANSPORT));
    for (DocumentKind k :
        List.of(DocumentKind.TRANSPORT, DocumentKind.TAKING_CHARGE, DocumentKind.DELIVERY))
      Files.delete(m2.get(k));
    deliver(
        pec1Root,
        pec2.nonDelivery("nd2", envelope, List.of("bob@pec2.test"), "no such user", true));

    // m1 also reached bob as an anomaly (a copy that arrived unsigned): listed, not a loss or a
    // duplicate
    byte[] unsigned =
        PecMessages.message(
            "alice@pec1.test", "bob@pec2.test", "<m1@pec1.test>", "Fattura n. 1", 2048, 1);
    for (Outgoing o :
        pec2.receive("an1", "alice@elsewhere.test", List.of("bob@pec2.test"), unsigned))
      deliver(pec2Root, o);

    ReliabilityCheck.Result r = ReliabilityCheck.check(List.of(pec1Root, pec2Root), sent);
    assertEquals(List.of(refusedId), r.refused());
    assertEquals(List.of("<m2@pec1.test>"), r.undeliverable());
    assertEquals(List.of("<m1@pec1.test> to bob@pec2.test"), r.anomalies());
    assertTrue(r.passed(), r.findings().toString());
    assertEquals("reliability: 4 messages, 0 lost, 0 duplicated", r.summary());
  }

  /**
   * An undeliverable message still owes its acceptance receipt: lost or doubled, it is reported
   * (the mutation run found this branch never reached).
   */
  @Test
  void check_undeliverableMessageWhoseAcceptanceIsLostOrDoubled_reportedAsSuch() throws Exception {
    Map<DocumentKind, Path> m2 = delivered.get("<m2@pec1.test>");
    byte[] envelope = Files.readAllBytes(m2.get(DocumentKind.TRANSPORT));
    for (DocumentKind k :
        List.of(DocumentKind.TRANSPORT, DocumentKind.TAKING_CHARGE, DocumentKind.DELIVERY))
      Files.delete(m2.get(k));
    deliver(
        pec1Root,
        pec2.nonDelivery("nd2", envelope, List.of("bob@pec2.test"), "no such user", true));
    Path acceptance = m2.get(DocumentKind.ACCEPTANCE);
    byte[] receipt = Files.readAllBytes(acceptance);

    Files.delete(acceptance);
    ReliabilityCheck.Result lost = ReliabilityCheck.check(List.of(pec1Root, pec2Root), sent);
    assertEquals(List.of("<m2@pec1.test>"), lost.undeliverable());
    assertEquals(List.of("<m2@pec1.test>"), lost.lost(), lost.findings().toString());
    assertEquals(
        List.of("<m2@pec1.test>: acceptance receipt missing"),
        lost.findings().stream().map(ReliabilityCheck.Finding::describe).toList());

    Files.write(acceptance, receipt);
    Files.write(acceptance.resolveSibling("again." + acceptance.getFileName()), receipt);
    ReliabilityCheck.Result doubled = ReliabilityCheck.check(List.of(pec1Root, pec2Root), sent);
    assertEquals(List.of("<m2@pec1.test>"), doubled.duplicated(), doubled.findings().toString());
    assertEquals(List.of(), doubled.lost());
    assertFalse(doubled.passed());
  }
}
