package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.formats.tls.TlsServerKeys;
import io.pkibench.server.tlsecho.TlsEchoServer;
import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The like-for-like check of {@code study ssl --server pkibench,nginx} on real servers over
 * loopback: a pair configured alike is compared; a planted difference is reported, not compared.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LikeForLikeTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  /** A JSSE {@code serve tlsecho} on a free loopback port, TLS 1.2 and {@code suite} only. */
  static TlsEchoServer server(String suite) throws Exception {
    var identity = TlsServerKeys.of(fixture.pki, TlsServerComparison.KEY);
    var context =
        TlsEngine.JSSE.server(
            identity.privateKey(),
            identity.chain(),
            List.of(TlsServerComparison.PEER_PROTOCOL),
            List.of(suite));
    TlsEchoServer server =
        new TlsEchoServer(
            context,
            TlsEngine.JSSE.flag,
            "127.0.0.1",
            0,
            -1,
            new TlsEchoServer.Limits(Duration.ofSeconds(5), Duration.ofSeconds(5), 64));
    server.start();
    return server;
  }

  @Test
  void aPlantedSuiteDifferenceIsReportedNotCompared() throws Exception {
    String other = "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384";
    try (TlsEchoServer reference = server(TlsServerComparison.PEER_SUITE);
        TlsEchoServer planted = server(other)) {
      var a = TlsFactsProbe.probe("reference", reference.baseUrl());
      var b = TlsFactsProbe.probe("planted", planted.baseUrl());

      assertEquals(TlsServerComparison.PEER_SUITE, a.suite());
      assertEquals(other, b.suite());
      assertEquals(
          List.of(
              "suite differs: reference " + TlsServerComparison.PEER_SUITE + ", planted " + other),
          LikeForLike.differences(a, b));
      String verdict = LikeForLike.verdict(a, b);
      assertTrue(
          verdict.startsWith(
              "planted is NOT like for like with reference, so its cells are not compared"),
          verdict);
      assertTrue(verdict.contains(other), verdict);
    }
  }

  @Test
  void aPairConfiguredAlikeIsComparedWithWhatItSaw() throws Exception {
    try (TlsEchoServer one = server(TlsServerComparison.PEER_SUITE);
        TlsEchoServer two = server(TlsServerComparison.PEER_SUITE)) {
      var a = TlsFactsProbe.probe("one", one.baseUrl());
      var b = TlsFactsProbe.probe("two", two.baseUrl());

      assertEquals(List.of(), LikeForLike.differences(a, b));
      assertTrue(LikeForLike.verdict(a, b).endsWith(": compared"), LikeForLike.verdict(a, b));
      assertEquals(TlsServerComparison.PEER_PROTOCOL, a.protocol());
      assertEquals(128, a.responseBytes());
      assertFalse(a.groups().isEmpty(), "no key-exchange group accepted");
      String expected =
          HexFormat.of()
              .formatHex(
                  MessageDigest.getInstance("SHA-256")
                      .digest(
                          TlsServerKeys.of(fixture.pki, TlsServerComparison.KEY)
                              .chain()
                              .get(0)
                              .getEncoded()));
      assertEquals(expected, a.certificateSha256());
      assertEquals(2, a.fullHandshakes() + a.resumedHandshakes());
    }
  }
}
