package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.tls.Connection;
import io.pkibench.formats.tls.EchoProtocol;
import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.formats.tls.TlsServerKeys;
import io.pkibench.server.tlsecho.TlsEchoServer;
import io.pkibench.testing.Await;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.CountedOutcomes;
import io.pkibench.workload.api.LiveCounts;
import io.pkibench.workload.api.Paced;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * tls-hold against a real serve tlsecho on loopback: connections held, spread over source
 * addresses, and lost when the server closes them.
 */
@Timeout(
    value = 2,
    unit =
        java.util.concurrent.TimeUnit
            .MINUTES) // every test talks to an echo server: a hang ends, said as one
class HoldWorkloadTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  static TlsEchoServer server(TlsEchoServer.Limits limits) throws Exception {
    var identity = TlsServerKeys.of(fixture.pki, "rsa2048");
    var context =
        TlsEngine.JSSE.server(identity.privateKey(), identity.chain(), List.of(), List.of());
    TlsEchoServer server = new TlsEchoServer(context, "jsse", "127.0.0.1", 0, 0, limits);
    server.start();
    return server;
  }

  /** Waits for the operation's own time, as the engine's worker does, then runs it. */
  static void runWhenDue(Paced op) throws Exception {
    long due = op.dueNanos();
    while (due - System.nanoTime() > 0) LockSupport.parkNanos(due - System.nanoTime());
    op.execute();
  }

  /**
   * The server's counter {@code name}, asked from {@code source} (an address of its own, so that
   * the asking is not refused).
   */
  static long counter(String plainUrl, String source, String name) throws IOException {
    URI u = URI.create(plainUrl);
    try (Connection c =
        new Connection.Plain(
            Connection.connect(
                new InetSocketAddress(u.getHost(), u.getPort()),
                InetAddress.getByName(source),
                5000))) {
      byte[] ask = EchoProtocol.header(EchoProtocol.COUNTERS, 0, 0);
      c.write(ask, 0, ask.length);
      byte[] length = new byte[4];
      c.readFully(length, 0, 4);
      byte[] json = new byte[java.nio.ByteBuffer.wrap(length).getInt()];
      c.readFully(json, 0, json.length);
      return TlsEchoTest.counter(new String(json, java.nio.charset.StandardCharsets.UTF_8), name);
    }
  }

  @Test
  void hold_sourceAddressesGiven_theServerTakesOneConnectionFromEach() throws Exception {
    // One connection per address, as the server counts them: three held connections must come from
    // three addresses.
    var limits =
        new TlsEchoServer.Limits(
            Duration.ofSeconds(30), Duration.ofSeconds(10), 100, Duration.ofSeconds(30), 1);
    try (TlsEchoServer server = server(limits);
        Workload w =
            fixture.workload(
                new HoldWorkload.Factory(),
                Map.of(
                    "target",
                    server.baseUrl(),
                    "source-addresses",
                    "127.0.0.1-127.0.0.3",
                    "handshake-rate",
                    "1000",
                    "interval",
                    "10ms"))) {
      List<Paced> ops = new ArrayList<>();
      for (int i = 0; i < 3; i++) ops.add((Paced) w.newOperation(i));
      for (int round = 0; round < 2; round++) for (Paced op : ops) runWhenDue(op);
      assertEquals(
          0,
          counter(server.plainUrl(), "127.0.0.9", "refused"),
          "no connection past one per address");
      // The server may count the asking before it has closed the last one: ask again, each time
      // from a new address (one
      // connection per address), until it counts the three held and this asking, or fail naming it.
      int[] asker = {10};
      Await.until(
          Duration.ofSeconds(30), // a bound, not a measure: a loaded machine's server counts late
          "the server to count 4 open: three held, and this asking",
          () -> counter(server.plainUrl(), "127.0.0." + asker[0]++, "open") == 4);
      Map<String, Long> out = ((CountedOutcomes) w).outcomes();
      assertEquals(3L, out.get("3 held: most open at once"), out.toString());
      assertEquals(0L, out.get("3 held: failed handshakes"), out.toString());
      assertEquals(0L, out.get("3 held: held connections lost"), out.toString());
    }
  }

  @Test
  void hold_theServerClosesAHeldConnection_countedFailedAndLostNotOpen() throws Exception {
    // The server closes a connection idle for a second; the client asks every three: each ask finds
    // its connection closed.
    var limits = new TlsEchoServer.Limits(Duration.ofSeconds(1), Duration.ofSeconds(10), 100);
    try (TlsEchoServer server = server(limits);
        Workload w =
            fixture.workload(
                new HoldWorkload.Factory(), Map.of("target", server.baseUrl(), "interval", "3s"))) {
      Paced op = (Paced) w.newOperation(0);
      runWhenDue(op);
      assertEquals(Map.of("open", 1L, "failed", 0L), ((LiveCounts) w).liveCounts());
      Await.until(
          Duration.ofSeconds(20),
          "the server closing the idle connection",
          () -> counter(server.plainUrl(), "127.0.0.1", "timeouts") >= 1);
      IOException failed = assertThrows(IOException.class, () -> runWhenDue(op));
      assertTrue(failed.getMessage().startsWith("a held connection failed"), failed.getMessage());
      assertEquals(Map.of("open", 0L, "failed", 1L), ((LiveCounts) w).liveCounts());
      Map<String, Long> out = ((CountedOutcomes) w).outcomes();
      assertEquals(1L, out.get("1 held: held connections lost"), out.toString());
      assertEquals(0L, out.get("1 held: open at the end"), out.toString());
      runWhenDue(op); // opened again in the ramp's next slot
      assertEquals(1L, ((LiveCounts) w).liveCounts().get("open"));
    }
  }

  @Test
  void hold_serverPidGiven_itsMemoryPerConnectionReported() throws Exception {
    // The server here is this JVM: its RSS is read before and after; growth per connection is
    // reported as a number.
    long self = ProcessHandle.current().pid();
    try (TlsEchoServer server = server(TlsEchoServer.Limits.DEFAULT);
        Workload w =
            fixture.workload(
                new HoldWorkload.Factory(),
                Map.of(
                    "target",
                    server.baseUrl(),
                    "server-pid",
                    Long.toString(self),
                    "handshake-rate",
                    "1000"))) {
      List<Paced> ops = new ArrayList<>();
      for (int i = 0; i < 4; i++) ops.add((Paced) w.newOperation(i));
      for (Paced op : ops) runWhenDue(op);
      Map<String, Long> out = ((CountedOutcomes) w).outcomes();
      assertTrue(
          out.containsKey("4 held: server KB per connection")
              && out.containsKey("4 held: server RSS growth KB"),
          out.toString());
      assertTrue(out.get("4 held: handshakes/s in the ramp") > 0, out.toString());
    }
  }

  @Test
  void hold_serverGoneBeforeTheEnd_memorySaidUnknownNoFigure() throws Exception {
    // -p server-pid names a python3 child that ends once read: its memory at the end is unknown,
    // said so, never a growth or per-connection figure computed from a -1
    Process sleeper =
        new ProcessBuilder("python3", "-c", "import sys; print('up', flush=True); sys.stdin.read()")
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try (TlsEchoServer server = server(TlsEchoServer.Limits.DEFAULT)) {
      assertEquals(
          "up",
          new BufferedReader(new InputStreamReader(sleeper.getInputStream())).readLine(),
          "python3 is needed on PATH");
      try (Workload w =
          fixture.workload(
              new HoldWorkload.Factory(),
              Map.of(
                  "target",
                  server.baseUrl(),
                  "server-pid",
                  Long.toString(sleeper.pid()),
                  "handshake-rate",
                  "1000"))) {
        runWhenDue((Paced) w.newOperation(0));
        sleeper.getOutputStream().close();
        assertTrue(sleeper.waitFor(20, TimeUnit.SECONDS), "the child ends once its stdin closes");
        Map<String, Long> out = ((CountedOutcomes) w).outcomes();
        assertEquals(
            1L,
            out.get("1 held: server memory unknown: pid " + sleeper.pid() + " gone"),
            out.toString());
        assertTrue(
            out.keySet().stream()
                .noneMatch(k -> k.contains("RSS growth") || k.contains("per connection")),
            out.toString());
      }
    } finally {
      sleeper.destroyForcibly();
    }
  }

  @Test
  void hold_mutualTls_heldWithTheClientCertificateAndCountedFailedWithout() throws Exception {
    // tlsecho --client-auth need on BoringSSL: the test PKI's tls-client certificate from --keys,
    // as the other tls-* workloads take it.
    var config =
        new TlsEchoServer.Config(
            "127.0.0.1",
            0,
            0,
            "openssl",
            "rsa2048",
            List.of(),
            List.of(),
            TlsEchoServer.Limits.DEFAULT,
            "need",
            List.of());
    try (TlsEchoServer server = TlsEchoServer.open(config, fixture.pki, line -> {})) {
      server.start();
      try (Workload w =
          fixture.workload(
              new HoldWorkload.Factory(),
              Map.of("target", server.baseUrl(), "client", "tls-client", "engine", "openssl"))) {
        Paced op = (Paced) w.newOperation(0);
        runWhenDue(op);
        runWhenDue(op);
        assertEquals(Map.of("open", 1L, "failed", 0L), ((LiveCounts) w).liveCounts());
        assertEquals(1, counter(server.plainUrl(), "127.0.0.1", "clientCertificates"));
      }
      try (Workload w =
          fixture.workload(
              new HoldWorkload.Factory(),
              Map.of("target", server.baseUrl(), "engine", "openssl"))) {
        Paced op = (Paced) w.newOperation(0);
        assertThrows(
            IOException.class,
            () ->
                runWhenDue(
                    op)); // TLS 1.3: the refusal may come with the first request rather than the
        // handshake
        assertEquals(Map.of("open", 0L, "failed", 1L), ((LiveCounts) w).liveCounts());
      }
    }
  }

  @Test
  void problems_badParameters_eachNamedWithItsFlag() {
    var f = new HoldWorkload.Factory();
    List<String> problems =
        f.problems(
            Params.resolve(
                f.name(),
                f.params(),
                Map.of(
                    "target",
                    "tls://127.0.0.1:8444",
                    "handshake-rate",
                    "fast",
                    "interval",
                    "0s",
                    "server-pid",
                    "abc",
                    "source-addresses",
                    "10.0.0.1-10.0.0.4")),
            "software");
    assertEquals(4, problems.size(), problems.toString());
    assertTrue(problems.get(0).startsWith("-p handshake-rate=fast"), problems.toString());
    assertTrue(problems.get(1).startsWith("-p interval=0s"), problems.toString());
    assertTrue(problems.get(2).startsWith("-p server-pid=abc"), problems.toString());
    assertTrue(
        problems
            .get(3)
            .startsWith("-p source-addresses 10.0.0.1-10.0.0.4: 10.0.0.1 is not on loopback"),
        problems.toString());
  }
}
