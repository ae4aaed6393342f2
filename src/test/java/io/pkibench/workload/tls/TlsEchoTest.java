package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.handler.ssl.SslContext;
import io.pkibench.formats.tls.Connection;
import io.pkibench.formats.tls.EchoProtocol;
import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.formats.tls.TlsServerKeys;
import io.pkibench.keys.TlsContexts;
import io.pkibench.server.tlsecho.TlsEchoServer;
import io.pkibench.testing.Await;
import io.pkibench.testing.OpensslRenegotiation;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Workload;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The echo server and the tls-* workloads over real sockets on loopback, both engines, and what a
 * bad client does to them.
 */
@Timeout(
    value = 3,
    unit =
        java.util.concurrent.TimeUnit
            .MINUTES) // every test talks to an echo server: a hang ends, said as one
class TlsEchoTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  static TlsEchoServer server(
      TlsEngine engine,
      String key,
      List<String> protocols,
      List<String> suites,
      TlsEchoServer.Limits limits)
      throws Exception {
    SslContext context = null;
    if (engine != null) {
      var identity = TlsServerKeys.of(fixture.pki, key);
      context = engine.server(identity.privateKey(), identity.chain(), protocols, suites);
    }
    TlsEchoServer server =
        new TlsEchoServer(
            context, engine == null ? "plain" : engine.flag, "127.0.0.1", 0, 0, limits);
    server.start();
    return server;
  }

  static Workload workload(TlsWorkload.Kind kind, String target, Map<String, String> extra)
      throws Exception {
    Map<String, String> params = new HashMap<>(extra);
    params.put("target", target);
    return fixture.workload(new TlsWorkload.Factory(kind), params);
  }

  /** The server's counters, asked over its own protocol on {@code url}'s port (plain). */
  static String counters(String plainUrl) throws IOException {
    URI u = URI.create(plainUrl);
    try (Connection c =
        new Connection.Plain(
            Connection.connect(new InetSocketAddress(u.getHost(), u.getPort()), 5000))) {
      byte[] ask = EchoProtocol.header(EchoProtocol.COUNTERS, 0, 0);
      c.write(ask, 0, ask.length);
      byte[] length = new byte[4];
      c.readFully(length, 0, 4);
      byte[] json = new byte[java.nio.ByteBuffer.wrap(length).getInt()];
      c.readFully(json, 0, json.length);
      return new String(json, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  /**
   * True when a new connection to {@code plain} is closed by the server unanswered (past the cap);
   * false when it is taken.
   */
  static boolean closedUnanswered(URI plain) throws IOException {
    try (Socket extra = new Socket(plain.getHost(), plain.getPort())) {
      extra.setSoTimeout(1000);
      return extra.getInputStream().read() == -1;
    } catch (java.net.SocketTimeoutException taken) {
      return false;
    } catch (java.net.SocketException reset) {
      return true;
    }
  }

  /**
   * The server's open connections, counting the one that asks; -1 when it refused to answer (at its
   * cap).
   */
  static long openConnections(String plainUrl) {
    try {
      return counter(counters(plainUrl), "open");
    } catch (IOException refused) {
      return -1;
    }
  }

  static long counter(String json, String name) {
    var m = java.util.regex.Pattern.compile("\"" + name + "\":(\\d+)").matcher(json);
    assertTrue(m.find(), name + " in " + json);
    return Long.parseLong(m.group(1));
  }

  @Test
  void transactions_everyKindBothEnginesAndPlain_completeAndCounted() throws Exception {
    for (TlsEngine engine : TlsEngine.values()) {
      try (TlsEchoServer server =
          server(engine, "rsa2048", List.of(), List.of(), TlsEchoServer.Limits.DEFAULT)) {
        int done = 0;
        for (TlsWorkload.Kind kind : TlsWorkload.Kind.values()) {
          for (String target : List.of(server.baseUrl(), server.plainUrl())) {
            Map<String, String> params =
                kind == TlsWorkload.Kind.STREAM
                    ? Map.of("engine", engine.flag, "ack", "4")
                    : Map.of("engine", engine.flag);
            try (Workload w = workload(kind, target, params)) {
              Operation op = w.newOperation(0);
              for (int i = 0; i < 8; i++) op.execute();
              done += 8;
            }
          }
        }
        String json = counters(server.plainUrl());
        assertEquals(done, counter(json, "transactions"), engine + ": " + json);
        assertEquals(0, counter(json, "protocolErrors") + counter(json, "handshakeFailures"), json);
        assertTrue(
            counter(json, "handshakes") >= 8 + 2,
            "ACRR makes a full handshake per transaction: " + json);
      }
    }
  }

  /**
   * The event loops' transport: auto takes epoll on this Linux machine (netty's native library
   * loads), nio is Java's; each serves every kind over TLS and says which it runs on in its details
   * (the ready line's); an unknown transport is refused naming the choices.
   */
  @Test
  void transport_autoIsEpollHere_nioOnRequest_bothServeAndSaySo() throws Exception {
    var identity = TlsServerKeys.of(fixture.pki, "rsa2048");
    for (String asked : List.of("auto", "nio")) {
      SslContext context =
          TlsEngine.OPENSSL.server(identity.privateKey(), identity.chain(), List.of(), List.of());
      try (TlsEchoServer server =
          new TlsEchoServer(context, "openssl", "127.0.0.1", 0, 0, TlsEchoServer.Limits.DEFAULT)
              .onTransport(asked)) {
        server.start();
        String expected = asked.equals("auto") ? "epoll" : "nio";
        assertEquals(expected, server.transport(), asked);
        assertTrue(server.details().contains("transport " + expected), server.details());
        for (TlsWorkload.Kind kind : TlsWorkload.Kind.values()) {
          try (Workload w =
              workload(
                  kind,
                  server.baseUrl(),
                  kind == TlsWorkload.Kind.STREAM
                      ? Map.of("engine", "openssl", "ack", "4")
                      : Map.of("engine", "openssl"))) {
            Operation op = w.newOperation(0);
            for (int i = 0; i < 4; i++) op.execute();
          }
        }
        assertEquals(
            4L * TlsWorkload.Kind.values().length,
            counter(counters(server.plainUrl()), "transactions"),
            asked);
      }
    }
    var e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalArgumentException.class,
            () ->
                new TlsEchoServer(null, "plain", "127.0.0.1", 0, 0, TlsEchoServer.Limits.DEFAULT)
                    .onTransport("io_uring"));
    assertTrue(e.getMessage().contains("auto, epoll, nio"), e.getMessage());
  }

  @Test
  void client_wrongSuite_handshakeFailureNamesIt() throws Exception {
    try (TlsEchoServer server =
            server(TlsEngine.JSSE, "rsa2048", List.of(), List.of(), TlsEchoServer.Limits.DEFAULT);
        Workload w =
            workload(
                TlsWorkload.Kind.RR,
                server.baseUrl(),
                Map.of("suite", "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"))) {
      var e = assertThrows(SSLException.class, () -> w.newOperation(0).execute());
      assertTrue(
          e.getMessage().contains("handshake")
              && e.getMessage().contains("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"),
          e.getMessage());
    }
  }

  @Test
  void client_badTargetOrSize_refusedNamingTheParameter() {
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () -> workload(TlsWorkload.Kind.RR, "https://127.0.0.1:1", Map.of()));
    assertTrue(e.getMessage().contains("tls://HOST:PORT"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> workload(TlsWorkload.Kind.RR, "tcp://127.0.0.1:1", Map.of("size", "2m")));
    assertTrue(e.getMessage().contains("1m"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                workload(
                    TlsWorkload.Kind.RR,
                    "tcp://127.0.0.1:1",
                    Map.of("suite", "TLS_AES_128_GCM_SHA256")));
    assertTrue(e.getMessage().contains("plain TCP"), e.getMessage());
  }

  /**
   * Silence, garbage, a dropped record, an oversized frame and one connection too many: each
   * counted, and the server still serves.
   */
  @Test
  void server_badClients_countedClosedAndStillServing() throws Exception {
    var limits = new TlsEchoServer.Limits(Duration.ofMillis(700), Duration.ofSeconds(2), 3);
    try (TlsEchoServer server =
        server(TlsEngine.OPENSSL, "rsa2048", List.of(), List.of(), limits)) {
      URI tls = URI.create(server.baseUrl()), plain = URI.create(server.plainUrl());
      try (Socket silent = new Socket(tls.getHost(), tls.getPort())) {
        silent.setSoTimeout(5000);
        assertEquals(
            -1,
            silent.getInputStream().read(),
            "a client that sends nothing is closed by the handshake or idle timeout");
      }
      try (Socket garbage = new Socket(tls.getHost(), tls.getPort())) {
        garbage.setSoTimeout(5000);
        garbage.getOutputStream().write("GET / HTTP/1.0\r\n\r\n".getBytes());
        InputStream in = garbage.getInputStream();
        while (in.read() >= 0) {} // an alert at most, then the close
      }
      try (Socket dropped = new Socket(plain.getHost(), plain.getPort())) {
        dropped.getOutputStream().write(EchoProtocol.header(EchoProtocol.REQUEST, 100, 100));
        dropped.getOutputStream().write(new byte[10]);
      }
      try (Socket oversized = new Socket(plain.getHost(), plain.getPort())) {
        oversized.setSoTimeout(5000);
        oversized.getOutputStream().write(EchoProtocol.header(EchoProtocol.REQUEST, 2 << 20, 8));
        assertEquals(
            -1, oversized.getInputStream().read(), "a frame over 1 MiB closes the connection");
      }
      // the server counts each as its connection ends, on its own threads
      Await.until(
          Duration.ofSeconds(15),
          "the dropped, truncated and oversized connections to be counted",
          () -> {
            String now = counters(server.plainUrl());
            return counter(now, "timeouts") + counter(now, "handshakeFailures") >= 2
                && counter(now, "truncated") >= 1
                && counter(now, "protocolErrors") >= 1;
          });
      String json = counters(server.plainUrl());
      assertTrue(counter(json, "timeouts") + counter(json, "handshakeFailures") >= 2, json);
      assertEquals(1, counter(json, "truncated"), json);
      assertEquals(1, counter(json, "protocolErrors"), json);

      // The cap: three open, the fourth refused, and a slot frees when one closes.
      List<Socket> held = new java.util.ArrayList<>();
      try {
        for (int i = 0; i < 3; i++) held.add(new Socket(plain.getHost(), plain.getPort()));
        // the server takes the three in on its own thread; from then on a fourth is closed before a
        // word
        Await.until(
            Duration.ofSeconds(15),
            "a connection past the cap to be closed by the server",
            () -> closedUnanswered(plain));
      } finally {
        for (Socket s : held) s.close();
      }
      Await.until(
          Duration.ofSeconds(15),
          "the three held slots to be freed",
          () -> openConnections(server.plainUrl()) == 1); // the asking one
      try (Workload w =
          workload(TlsWorkload.Kind.RR, server.baseUrl(), Map.of("engine", "openssl"))) {
        w.newOperation(0).execute();
      }
      json = counters(server.plainUrl());
      assertTrue(counter(json, "refused") >= 1, json);
      assertEquals(
          1,
          counter(json, "transactions"),
          "the normal request after all that was served: " + json);
    }
  }

  @Test
  void stream_ackCatchesWhatTheServerDidNotGet() throws Exception {
    try (TlsEchoServer server =
            server(null, null, List.of(), List.of(), TlsEchoServer.Limits.DEFAULT);
        Workload w =
            workload(TlsWorkload.Kind.STREAM, server.baseUrl(), Map.of("size", "1k", "ack", "3"))) {
      Operation op = w.newOperation(0);
      for (int i = 0; i < 9; i++) op.execute();
      assertEquals(9, counter(counters(server.baseUrl()), "transactions"));
    }
  }

  /** One echo request of {@code n} bytes over {@code s}; the answer read back whole. */
  static byte[] echo(java.net.Socket s, int n) throws IOException {
    s.getOutputStream().write(EchoProtocol.header(EchoProtocol.REQUEST, n, n));
    s.getOutputStream().write(new byte[n]);
    s.getOutputStream().flush();
    return s.getInputStream().readNBytes(n);
  }

  /**
   * A JSSE client renegotiates a TLS 1.2 connection (a second startHandshake): the server closes
   * the connection instead, on both engines, and counts it; the connection's first request was
   * served.
   */
  @Test
  @org.junit.jupiter.api.Timeout(60)
  void renegotiation_clientInitiated_refusedOnBothEngines() throws Exception {
    for (TlsEngine engine : List.of(TlsEngine.JSSE, TlsEngine.OPENSSL)) {
      try (TlsEchoServer server =
          server(engine, "rsa2048", List.of("TLSv1.2"), List.of(), TlsEchoServer.Limits.DEFAULT)) {
        URI tls = URI.create(server.baseUrl());
        javax.net.ssl.SSLContext client = TlsContexts.trusting(fixture.pki.certificate("root-ca"));
        int renegotiated = 0;
        try (javax.net.ssl.SSLSocket s =
            (javax.net.ssl.SSLSocket)
                client.getSocketFactory().createSocket(tls.getHost(), tls.getPort())) {
          s.setSoTimeout(10_000);
          s.setEnabledProtocols(new String[] {"TLSv1.2"});
          s.startHandshake();
          assertEquals(16, echo(s, 16).length, engine + ": served before");
          for (int i = 0; i < 20; i++) {
            s.startHandshake(); // a renegotiation on TLS 1.2
            if (echo(s, 16).length == 16) renegotiated++;
          }
        } catch (IOException e) {
          // refused: the connection was closed
        }
        assertEquals(0, renegotiated, engine + ": no request served after a renegotiation");
        String json = counters(server.plainUrl());
        assertEquals(1, counter(json, "transactions"), engine + ": " + json);
      }
    }
  }

  /**
   * testssl.sh's check, as on the signing service and the PEC provider: openssl s_client's TLS 1.2
   * renegotiation is refused on both engines.
   */
  @Test
  @org.junit.jupiter.api.Timeout(60)
  void renegotiation_opensslClientOverTls12_refusedOnBothEngines() throws Exception {
    for (TlsEngine engine : List.of(TlsEngine.JSSE, TlsEngine.OPENSSL)) {
      try (TlsEchoServer server =
          server(engine, "rsa2048", List.of("TLSv1.2"), List.of(), TlsEchoServer.Limits.DEFAULT)) {
        var attempt = OpensslRenegotiation.attempt(URI.create(server.baseUrl()).getPort());
        assertTrue(
            attempt.refused(),
            engine + ": s_client renegotiated, or never connected: " + attempt.output());
        String json = counters(server.plainUrl());
        assertEquals(1, counter(json, "renegotiationsRefused"), engine + ": " + json);
      }
    }
  }

  /**
   * Without --suites the server offers forward-secret suites only, on both engines: openssl asking
   * for RSA key exchange (AES128-GCM-SHA256, BoringSSL's default before) is refused, ECDHE is
   * taken.
   */
  @Test
  @org.junit.jupiter.api.Timeout(60)
  void defaultSuites_rsaKeyExchange_refusedOnBothEngines() throws Exception {
    for (TlsEngine engine : List.of(TlsEngine.JSSE, TlsEngine.OPENSSL)) {
      try (TlsEchoServer server =
          server(engine, "rsa2048", List.of(), List.of(), TlsEchoServer.Limits.DEFAULT)) {
        int port = URI.create(server.baseUrl()).getPort();
        for (String cipher :
            List.of("AES128-GCM-SHA256", "AES128-SHA", "ECDHE-RSA-AES128-GCM-SHA256")) {
          Process p =
              new ProcessBuilder(
                      "openssl",
                      "s_client",
                      "-connect",
                      "127.0.0.1:" + port,
                      "-tls1_2",
                      "-cipher",
                      cipher,
                      "-brief",
                      "-CAfile",
                      fixture.pki.dir().resolve("root-ca.pem").toString())
                  .redirectErrorStream(true)
                  .start();
          p.getOutputStream().close();
          String out =
              new String(
                  p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
          assertTrue(
              p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS),
              engine + " " + cipher + ": s_client did not end");
          boolean negotiated = out.contains("Ciphersuite: " + cipher);
          assertEquals(cipher.startsWith("ECDHE"), negotiated, engine + " " + cipher + ": " + out);
        }
      }
    }
  }

  /**
   * A request trickled one byte a second (each byte inside the 2 s idle timeout) is cut at the 3 s
   * frame deadline; an address past its connection cap is refused; another address is served
   * meanwhile.
   */
  @Test
  @org.junit.jupiter.api.Timeout(60)
  void request_trickled_cutAtTheFrameDeadlineWhileAnotherAddressIsServed() throws Exception {
    var limits =
        new TlsEchoServer.Limits(
            Duration.ofSeconds(2), Duration.ofSeconds(2), 100, Duration.ofSeconds(3), 5);
    try (TlsEchoServer server = server(null, null, List.of(), List.of(), limits)) {
      URI plain = URI.create(server.baseUrl());
      List<Socket> trickles = new java.util.ArrayList<>();
      try {
        for (int i = 0; i < 6; i++) {
          Socket t = new Socket();
          t.bind(new InetSocketAddress("127.0.0.2", 0));
          t.connect(new InetSocketAddress(plain.getHost(), plain.getPort()), 5000);
          t.setSoTimeout(15_000);
          trickles.add(t);
        }
        byte[] frame = EchoProtocol.header(EchoProtocol.REQUEST, 64, 64);
        int cut = 0;
        int bytesSent = 0;
        // Counted in bytes trickled, not seconds: each byte is a second apart at least (more on a
        // loaded machine, when the 3 s deadline comes after fewer of them), and a server that kept
        // a trickle alive byte by byte would take all twelve.
        for (int b = 0; b < 12 && cut < 6; b++) {
          cut = 0;
          for (Socket t : trickles) {
            try {
              t.getOutputStream().write(frame[b % frame.length]);
            } catch (IOException e) {
              cut++;
            }
          }
          bytesSent = b + 1;
          try (Socket other = new Socket()) {
            other.bind(new InetSocketAddress("127.0.0.3", 0));
            other.connect(new InetSocketAddress(plain.getHost(), plain.getPort()), 5000);
            other.setSoTimeout(5000);
            assertEquals(
                64, echo(other, 64).length, "another address is served beside the trickles");
          }
          Thread.sleep(1000);
        }
        for (Socket t : trickles) {
          try {
            assertEquals(-1, t.getInputStream().read(), "closed by the server");
          } catch (IOException e) {
            // reset: closed too
          }
        }
        assertEquals(6, cut, "every trickle cut while it was still trickling");
        assertTrue(
            bytesSent < 12,
            "cut at the 3 s frame deadline, not kept alive byte by byte: "
                + bytesSent
                + " bytes a second apart sent");
        String json = counters(server.baseUrl());
        assertTrue(counter(json, "refused") >= 1, "the sixth from 127.0.0.2 was refused: " + json);
        assertTrue(
            counter(json, "timeouts") >= 5, "the five trickles cut by the deadline: " + json);
      } finally {
        for (Socket t : trickles) t.close();
      }
    }
  }

  @AfterAll
  static void done() {
    // the PKI lives in the temporary directory
  }
}
