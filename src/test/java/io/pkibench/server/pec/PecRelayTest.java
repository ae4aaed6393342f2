package io.pkibench.server.pec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.pec.PecMessages;
import io.pkibench.formats.pec.PecProvider;
import io.pkibench.formats.pec.PecSender;
import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.formats.pec.ReliabilityCheck;
import io.pkibench.formats.pec.SmtpClient;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import java.io.IOException;
import java.net.InetAddress;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.subethamail.smtp.MessageHandler;
import org.subethamail.smtp.RejectException;
import org.subethamail.smtp.server.SMTPServer;

/**
 * Our SMTP client against SubEthaSMTP's server (code we did not write): dot-stuffing undone to the
 * same bytes, 4xx and 5xx told apart; and a provider whose peer refuses an envelope for good
 * answers its sender with a signed non-delivery notice rather than retrying forever.
 */
@org.junit.jupiter.api.Timeout(
    value = 3,
    unit =
        java.util.concurrent.TimeUnit.MINUTES) // talks to PEC providers: a hang fails, said as one
class PecRelayTest {
  @TempDir static Path dir;
  static TestKeys keys;

  @BeforeAll
  static void pki() {
    keys = TestKeys.in(dir);
  }

  /**
   * A SubEthaSMTP server on a free loopback port: refuses RCPT with {@code rcptReply} unless null,
   * keeps what it took.
   */
  static SMTPServer peer(String rcptReply, AtomicReference<byte[]> received) throws Exception {
    SMTPServer server =
        new SMTPServer.Builder()
            .bindAddress(InetAddress.getLoopbackAddress())
            .port(0)
            .messageHandlerFactory(
                ctx ->
                    new MessageHandler() {
                      @Override
                      public void from(String from) {}

                      @Override
                      public void recipient(String recipient) throws RejectException {
                        if (rcptReply != null)
                          throw new RejectException(
                              Integer.parseInt(rcptReply.substring(0, 3)), rcptReply.substring(4));
                      }

                      @Override
                      public String data(java.io.InputStream data) throws IOException {
                        received.set(data.readAllBytes());
                        return null;
                      }

                      @Override
                      public void done() {}
                    })
            .build();
    server.start();
    return server;
  }

  @Test
  void smtpClient_dotStuffedLinesArriveAsSent_andRefusalsTellTemporaryFromPermanent()
      throws Exception {
    AtomicReference<byte[]> received = new AtomicReference<>();
    SMTPServer ok = peer(null, received);
    SMTPServer busy = peer("451 4.3.0 try later", new AtomicReference<>());
    SMTPServer gone = peer("550 5.1.1 no such user", new AtomicReference<>());
    try {
      byte[] message =
          ("From: a@x.test\r\nTo: b@y.test\r\nMessage-ID: <d@x.test>\r\n\r\n.a line that starts with a dot\r\n..two\r\n.\r\n"
                  + "middle . and\r\n.\r\nlast")
              .getBytes(StandardCharsets.US_ASCII);
      SmtpClient.send(
          "127.0.0.1",
          ok.getPortAllocated(),
          "test",
          "a@x.test",
          List.of("b@y.test"),
          message,
          Duration.ofSeconds(10));
      String got = new String(received.get(), StandardCharsets.US_ASCII);
      // the server puts its Received: line first (RFC 5321 §4.4); what follows is the message as we
      // sent it, a final CRLF added
      assertTrue(got.startsWith("Received: "), got);
      assertEquals(
          new String(message, StandardCharsets.US_ASCII) + "\r\n",
          got.substring(got.indexOf("From: a@x.test")),
          "dot-stuffing undone");
      var temporary =
          org.junit.jupiter.api.Assertions.assertThrows(
              SmtpClient.Refusal.class,
              () ->
                  SmtpClient.send(
                      "127.0.0.1",
                      busy.getPortAllocated(),
                      "test",
                      "a@x.test",
                      List.of("b@y.test"),
                      message,
                      Duration.ofSeconds(10)));
      assertEquals(451, temporary.code());
      assertFalse(temporary.permanent());
      var permanent =
          org.junit.jupiter.api.Assertions.assertThrows(
              SmtpClient.Refusal.class,
              () ->
                  SmtpClient.send(
                      "127.0.0.1",
                      gone.getPortAllocated(),
                      "test",
                      "a@x.test",
                      List.of("b@y.test"),
                      message,
                      Duration.ofSeconds(10)));
      assertEquals(550, permanent.code());
      assertTrue(
          permanent.permanent()
              && permanent.getMessage().contains("RCPT TO <b@y.test>: 550 5.1.1 no such user"),
          permanent.getMessage());
    } finally {
      ok.stop();
      busy.stop();
      gone.stop();
    }
  }

  @Test
  void peerRefusesForGood_senderGetsASignedNonDeliveryNotice_nothingRetried() throws Exception {
    SMTPServer refusing =
        peer("550 5.1.1 <user1@pec2.test>: no such user", new AtomicReference<>());
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
    Path spool = dir.resolve("spool1");
    Path mail = dir.resolve("mail1");
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    var config =
        PecServer.Config.builder("pec1.test", spool, mail)
            .bind("127.0.0.1")
            .peers(Map.of("pec2.test", "127.0.0.1:" + refusing.getPortAllocated()))
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
    try {
      int port =
          Integer.parseInt(server.baseUrl().substring(server.baseUrl().lastIndexOf(':') + 1));
      String id = "<refused.1@pec1.test>";
      var outcome =
          new PecSender("127.0.0.1", port, InstantSource.system(), PecAttacksTest.loginsOf(keys))
              .send(
                  "user1@pec1.test",
                  List.of("user1@pec2.test"),
                  id,
                  PecMessages.message(
                      "user1@pec1.test", "user1@pec2.test", id, "refused", 4096, 1));
      assertTrue(outcome.acknowledged(), outcome.problem());
      Path box = mail.resolve("user1@pec1.test").resolve("new");
      Path notice = null;
      for (long deadline = System.nanoTime() + 20_000_000_000L;
          notice == null && System.nanoTime() < deadline;
          Thread.sleep(100)) {
        if (!Files.isDirectory(box)) continue;
        try (Stream<Path> files = Files.list(box)) {
          for (Path f : files.toList())
            if (Files.readString(f, StandardCharsets.ISO_8859_1)
                .contains("X-Ricevuta: errore-consegna")) notice = f;
        }
      }
      assertTrue(notice != null, "a non-delivery notice in the sender's mailbox; log: " + log);
      String text = Files.readString(notice, StandardCharsets.ISO_8859_1);
      assertTrue(
          text.contains("X-Riferimento-Message-ID: " + id), "correlated with the user's message");
      String r =
          Openssl.run(
              "smime",
              "-verify",
              "-in",
              notice.toString(),
              "-CAfile",
              keys.pki.caChainPem().toString(),
              "-purpose",
              "any",
              "-out",
              dir.resolve("notice.txt").toString());
      assertTrue(Openssl.succeeded(r) && r.contains("Verification successful"), r);
      assertTrue(
          Files.readString(dir.resolve("notice.txt"), StandardCharsets.ISO_8859_1)
              .contains("no such user"),
          "the peer's reply is in it");
      Thread.sleep(1500); // the carrier's rounds: a refused envelope must not come back
      assertEquals(0, server.stats().waitingItems(), "nothing left to retry");
      assertTrue(
          log.stream()
              .anyMatch(l -> l.contains("not delivered") && l.contains("non-delivery notice")),
          log.toString());
      var check = ReliabilityCheck.check(List.of(mail), List.of(outcome.sent()));
      assertEquals(
          List.of(id), check.undeliverable(), "told apart from a loss: " + check.findings());
      assertTrue(check.passed(), check.findings().toString());
    } finally {
      server.close();
      refusing.stop();
    }
  }
}
