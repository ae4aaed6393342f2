package io.pkibench.server.pec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.pkibench.formats.pec.PecLogin;
import io.pkibench.formats.pec.PecProvider;
import io.pkibench.formats.pec.ProviderIndex;
import io.pkibench.formats.pec.SmtpClient;
import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.Map;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A user's client submitting message after message to its provider resumes the TLS session of the
 * first STARTTLS.
 */
class SubmissionTlsResumptionTest {
  @TempDir static Path dir;
  static TestKeys keys;

  @BeforeAll
  static void pki() {
    keys = TestKeys.in(dir);
  }

  private static SSLSession session(int port, PecLogin login) throws Exception {
    try (SmtpClient.Connection c =
        SmtpClient.Connection.open(
            "127.0.0.1", port, "pkibench-sender", Duration.ofSeconds(20), login, null)) {
      return c.tlsSession();
    }
  }

  /**
   * pec-send logs each user in through one {@link PecLogin}, one SSLContext, for all its
   * submissions: the JDK's client session cache then resumes the first STARTTLS session, sparing
   * the provider an RSA signature per message.
   */
  @Test
  @Timeout(60)
  void open_secondSubmissionWithTheSameLogin_resumesTheFirstSession() throws Exception {
    var key = keys.keys.key("signer-rsa2048-1");
    var index = new ProviderIndex(Map.of("pec1.test", key.certificate()));
    var provider =
        new PecProvider(
            "pec1.test",
            "pkibench provider pec1.test",
            key,
            index,
            InstantSource.system(),
            ZoneId.of("Europe/Rome"));
    var config =
        PecServer.Config.builder("pec1.test", dir.resolve("spool"), dir.resolve("mail"))
            .bind("127.0.0.1")
            .workers(1)
            .relayDeadline(Duration.ofDays(1))
            .limits(
                SmtpLimits.DEFAULTS
                    .withMaxMessageBytes(1 << 20)
                    .withMaxRecipients(10)
                    .withMaxConnections(20)
                    .withIdleTimeout(Duration.ofSeconds(30)))
            .build();
    PecServer server = new PecServer(config, provider, PecAttacksTest.serverLogins(keys), s -> {});
    server.start();
    try {
      int port =
          Integer.parseInt(server.baseUrl().substring(server.baseUrl().lastIndexOf(':') + 1));
      PecLogin login = PecLogin.testUser(keys.pki, "user1@pec1.test");
      SSLSession first = session(port, login);
      SSLSession second = session(port, login);
      SSLSession fresh = session(port, PecLogin.testUser(keys.pki, "user1@pec1.test"));
      // a resumed TLS 1.3 session gets an id of its own but keeps the creation time of the session
      // it resumes
      assertEquals("TLSv1.3", second.getProtocol());
      assertEquals(
          first.getCreationTime(),
          second.getCreationTime(),
          "the second submission resumed the first one's session");
      assertNotEquals(
          first.getCreationTime(),
          fresh.getCreationTime(),
          "a client with a context of its own makes a full handshake");
      assertArrayEquals(
          first.getPeerCertificates(),
          second.getPeerCertificates(),
          "the provider's identity, as the full handshake checked it");
    } finally {
      server.close();
    }
  }
}
