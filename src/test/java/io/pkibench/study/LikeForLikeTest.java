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
      LikeForLikeCheck.Seen seen = new LikeForLikeCheck.Seen();
      seen.add(a);
      seen.add(b);
      assertEquals(
          "suite differs: reference " + TlsServerComparison.PEER_SUITE + ", planted " + other,
          seen.notComparedBecause("reference", "planted"),
          "the planted pair's cells are marked not compared, saying why");
    }
  }

  @Test
  void aPairConfiguredAlikeIsComparedWithWhatItSaw() throws Exception {
    try (TlsEchoServer one = server(TlsServerComparison.PEER_SUITE);
        TlsEchoServer two = server(TlsServerComparison.PEER_SUITE)) {
      var a = TlsFactsProbe.probe("one", one.baseUrl());
      var b = TlsFactsProbe.probe("two", two.baseUrl());

      assertEquals(List.of(), LikeForLike.differences(a, b));
      LikeForLikeCheck.Seen seen = new LikeForLikeCheck.Seen();
      seen.add(a);
      seen.add(b);
      assertEquals(null, seen.notComparedBecause("one", "two"), "a like pair is compared");
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

  /**
   * {@code serve tlsecho} as the study starts it, on {@code engine}: TLS 1.2, the study's suite and
   * (BoringSSL) groups, sessions resumable or not.
   */
  static TlsEchoServer asTheStudyStartsIt(String engine, boolean resumption) throws Exception {
    var config =
        new TlsEchoServer.Config(
            "127.0.0.1",
            0,
            -1,
            engine,
            TlsServerComparison.KEY,
            List.of(TlsServerComparison.PEER_PROTOCOL),
            List.of(TlsServerComparison.PEER_SUITE),
            new TlsEchoServer.Limits(Duration.ofSeconds(5), Duration.ofSeconds(5), 64),
            "none",
            engine.equals("openssl") ? TlsServerComparison.PEER_GROUPS : List.of());
    assertEquals(List.of(), config.problems());
    TlsEchoServer server =
        TlsEchoServer.open(
            resumption ? config : config.withoutResumption(), fixture.pki, note -> {});
    server.start();
    return server;
  }

  /**
   * --resumption off, as nginx's session cache and tickets off: the probe's second connection
   * offers the first one's session and is given a full handshake, on either engine; with resumption
   * on, the same probe sees it resumed (so the probe can tell).
   */
  @Test
  void resumptionOff_everyHandshakeInFull_onBothEngines_whileOnResumes() throws Exception {
    for (String engine : List.of("jsse", "openssl")) {
      try (TlsEchoServer off = asTheStudyStartsIt(engine, false);
          TlsEchoServer on = asTheStudyStartsIt(engine, true)) {
        var none = TlsFactsProbe.probe(engine + "-off", off.baseUrl());
        var resumed = TlsFactsProbe.probe(engine + "-on", on.baseUrl());
        assertEquals(2, none.fullHandshakes(), engine + ": " + none.describe());
        assertEquals(0, none.resumedHandshakes(), engine + ": " + none.describe());
        assertEquals(1, resumed.resumedHandshakes(), engine + ": " + resumed.describe());
        assertTrue(off.details().contains("no session resumption"), off.details());
      }
    }
    assertEquals(
        null,
        System.getProperty("jdk.tls.server.enableSessionTicketExtension"),
        "the JDK's ticket switch put back as it was once the JSSE server's context is made");
  }

  /**
   * BoringSSL's groups on the openssl engine and resumption off: the facts the study's verdict
   * rests on match a JSSE server's but for the groups JSSE adds (x448), which the study takes away
   * with jdk.tls.namedGroups in that server's JVM; the check names that difference alone.
   */
  @Test
  void theStudysOpensslServer_acceptsBoringSslsGroups_andTheCheckNamesWhatDiffers()
      throws Exception {
    try (TlsEchoServer openssl = asTheStudyStartsIt("openssl", false);
        TlsEchoServer jsse = asTheStudyStartsIt("jsse", false)) {
      var a = TlsFactsProbe.probe("openssl", openssl.baseUrl());
      var b = TlsFactsProbe.probe("jsse", jsse.baseUrl());
      assertEquals(TlsServerComparison.PEER_GROUPS, a.groups(), a.describe());
      LikeForLikeCheck.Seen seen = new LikeForLikeCheck.Seen();
      seen.add(a);
      seen.add(b);
      String why = seen.notComparedBecause("openssl", "jsse");
      assertTrue(
          why != null && why.startsWith("key-exchange groups differs: openssl x25519/"),
          String.valueOf(why));
      assertFalse(why.contains("handshakes"), why);
      assertEquals(
          "the like-for-like checking run did not see nginx",
          seen.notComparedBecause("nginx", "jsse"));
    }
  }
}
