package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.ListeningPorts;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.OpensslServer;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS workloads against servers we did not write: {@code tls-handshake -p resume=true} resumes
 * sessions with {@code openssl s_server} (which says "Reused session-id" for each), and {@code
 * tls-stream -p ack=echo} checks every byte socat's TLS echo returns (a server that alters them
 * fails each send).
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = TimeUnit.MINUTES)
class SocketTargetsTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  static long count(String text, String what) {
    return text.lines().filter(l -> l.contains(what)).count();
  }

  @Test
  void handshake_withResume_resumesAtOpensslServer_andWithoutItNever() throws Exception {
    WorkloadContext context = new WorkloadContext(fixture.keys, false, () -> fixture.pki);
    var factory = new HandshakeWorkload.Factory();
    for (String protocol : List.of("TLSv1.2", "TLSv1.3")) {
      for (String engine : List.of("jsse", "openssl")) {
        for (boolean resume : List.of(false, true)) {
          try (OpensslServer server = OpensslServer.start(fixture, dir)) {
            MeasuredRun run;
            try (Workload w =
                factory.create(
                    context,
                    Params.resolve(
                        "tls-handshake",
                        factory.params(),
                        Map.of(
                            "target",
                            "tls://127.0.0.1:" + server.port,
                            "engine",
                            engine,
                            "protocol",
                            protocol,
                            "resume",
                            Boolean.toString(resume))))) {
              run =
                  MeasuredRun.of("tls-handshake", w, Duration.ofMillis(700)).assertEverySucceeded();
            }
            String what = protocol + " " + engine + " resume=" + resume;
            long reused = count(server.output(), "Reused session-id");
            if (resume)
              assertTrue(
                  run.succeeded() > 2 && reused >= run.succeeded() / 2,
                  what + ": " + reused + " of " + run.succeeded() + " resumed");
            else assertEquals(0, reused, what + ": a full handshake each time");
          }
        }
      }
    }
  }

  /**
   * socat terminating TLS with the test PKI's server certificate in front of cat, or of a filter
   * that alters bytes.
   */
  static Process socat(String behind) throws Exception {
    Path key = OpensslServer.serverKeyPem(fixture, dir);
    Path both = dir.resolve("socat-cert.pem");
    Files.writeString(
        both,
        Files.readString(fixture.pki.certificatePem("tls-server"))
            + Files.readString(fixture.pki.caChainPem())
            + Files.readString(key));
    // port 0: socat binds a port the kernel picks, read back from the kernel (port(Process))
    Process p =
        new ProcessBuilder(
                "socat",
                "OPENSSL-LISTEN:0,bind=127.0.0.1,reuseaddr,fork,verify=0,cert=" + both,
                behind)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("socat.log").toFile())
            .start();
    try {
      ListeningPorts.await(p, Duration.ofSeconds(60), dir.resolve("socat.log"));
    } catch (AssertionError notListening) {
      p.destroyForcibly();
      throw notListening;
    }
    return p;
  }

  /** The port {@code socat} listens on. */
  static int port(Process socat) throws Exception {
    return ListeningPorts.of(socat).iterator().next();
  }

  @Test
  void streamAckEcho_againstSocatEcho_everySendComparedAndAnAlteredEchoCountedFailed()
      throws Exception {
    WorkloadContext context = new WorkloadContext(fixture.keys, false, () -> fixture.pki);
    var stream = new TlsWorkload.Factory(TlsWorkload.Kind.STREAM);
    Process echo = socat("EXEC:cat");
    int port = port(echo);
    try {
      for (String engine : List.of("jsse", "openssl")) {
        try (Workload w =
            stream.create(
                context,
                Params.resolve(
                    "tls-stream",
                    stream.params(),
                    Map.of(
                        "target",
                        "tls://127.0.0.1:" + port,
                        "size",
                        "4k",
                        "ack",
                        "echo",
                        "engine",
                        engine)))) {
          MeasuredRun.of("tls-stream ack=echo " + engine, w, Duration.ofMillis(500))
              .assertEverySucceeded();
        }
      }
    } finally {
      echo.destroy();
      echo.waitFor(5, TimeUnit.SECONDS);
    }
    // random bytes: some are lower-case letters, changed on the way back
    Process altering = socat("EXEC:tr a-z A-Z");
    int alteringPort = port(altering);
    try (Workload w =
        stream.create(
            context,
            Params.resolve(
                "tls-stream",
                stream.params(),
                Map.of(
                    "target", "tls://127.0.0.1:" + alteringPort, "size", "4k", "ack", "echo")))) {
      MeasuredRun.of("tls-stream ack=echo altered", w, Duration.ofSeconds(1))
          .assertEveryFailedWith("the echo differs from what was sent at byte");
    } finally {
      altering.destroy();
      altering.waitFor(5, TimeUnit.SECONDS);
    }
  }

  /**
   * tls-rr runs against a plain echo (socat in front of tee, which keeps what it echoed): with the
   * default -p framing=auto the first request on the kept connection comes back whole, header and
   * all, and every later one is the bare size bytes (the echoed byte count shows it), each
   * compared; an echo that alters bytes is counted failed. framing=tlsecho refuses a plain echo
   * naming framing=auto, and tls-acrr, which needs tlsecho's protocol, names https-acrr.
   */
  @Test
  void rrAgainstAPlainEcho_rawAfterTheFirstFrameAndAlteredEchoOrFramingTlsechoCountedFailed()
      throws Exception {
    WorkloadContext context = new WorkloadContext(fixture.keys, false, () -> fixture.pki);
    var rr = new TlsWorkload.Factory(TlsWorkload.Kind.RR);
    for (String engine : List.of("jsse", "openssl")) {
      Path echoed = dir.resolve("echoed-" + engine + ".bin");
      Process echo = socat("EXEC:tee -a " + echoed);
      int port = port(echo);
      try {
        MeasuredRun run;
        try (Workload w =
            rr.create(
                context,
                Params.resolve(
                    "tls-rr",
                    rr.params(),
                    Map.of(
                        "target", "tls://127.0.0.1:" + port, "size", "128", "engine", engine)))) {
          run =
              MeasuredRun.of("tls-rr against a plain echo " + engine, w, Duration.ofSeconds(2))
                  .assertEverySucceeded();
        }
        // one worker, one connection: a 137-byte frame first, then 128 raw bytes per transaction
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        long bytes = Files.size(echoed);
        while ((bytes < 9 + 128 * run.succeeded() || (bytes - 9) % 128 != 0)
            && System.nanoTime() < deadline) {
          echo.waitFor(
              20, TimeUnit.MILLISECONDS); // the echo's tee may still be writing the last bytes
          bytes = Files.size(echoed);
        }
        assertTrue(run.succeeded() >= 2, engine + ": " + run.succeeded() + " transactions");
        assertEquals(
            0,
            (bytes - 9) % 128,
            engine + ": " + bytes + " bytes echoed is one 9-byte header and 128 per transaction");
        assertTrue(
            bytes >= 9 + 128 * run.succeeded() && bytes <= 9 + 128 * (run.started() + 1),
            engine + ": " + bytes + " bytes echoed for " + run.succeeded() + " transactions");
      } finally {
        echo.destroy();
        echo.waitFor(5, TimeUnit.SECONDS);
      }
    }
    Process echo = socat("EXEC:cat");
    int port = port(echo);
    try {
      try (Workload w =
          rr.create(
              context,
              Params.resolve(
                  "tls-rr",
                  rr.params(),
                  Map.of("target", "tls://127.0.0.1:" + port, "size", "1", "framing", "none")))) {
        MeasuredRun.of("tls-rr framing=none against a plain echo", w, Duration.ofMillis(500))
            .assertEverySucceeded();
      }
      try (Workload w =
          rr.create(
              context,
              Params.resolve(
                  "tls-rr",
                  rr.params(),
                  Map.of(
                      "target", "tls://127.0.0.1:" + port, "size", "128", "framing", "tlsecho")))) {
        MeasuredRun.of("tls-rr framing=tlsecho against a plain echo", w, Duration.ofMillis(700))
            .assertEveryFailedWith(
                "a plain echo, not serve tlsecho's protocol; -p framing=auto (the default) or none runs tls-rr against a plain echo");
      }
      var acrr = new TlsWorkload.Factory(TlsWorkload.Kind.ACRR);
      try (Workload w =
          acrr.create(
              context,
              Params.resolve(
                  "tls-acrr", acrr.params(), Map.of("target", "tls://127.0.0.1:" + port)))) {
        MeasuredRun.of("tls-acrr against a plain echo", w, Duration.ofMillis(700))
            .assertEveryFailedWith("tls-acrr needs serve tlsecho's protocol");
      }
    } finally {
      echo.destroy();
      echo.waitFor(5, TimeUnit.SECONDS);
    }
    // random bytes: some are lower-case letters, changed on the way back; unbuffered, since tr
    // holds a short answer otherwise
    Process altering = socat("EXEC:stdbuf -o0 tr a-z A-Z");
    int alteringPort = port(altering);
    try (Workload w =
        rr.create(
            context,
            Params.resolve(
                "tls-rr",
                rr.params(),
                Map.of("target", "tls://127.0.0.1:" + alteringPort, "size", "128")))) {
      MeasuredRun.of("tls-rr against an altering echo", w, Duration.ofSeconds(1))
          .assertEveryFailedWith("the echo differs from what was sent at byte");
    } finally {
      altering.destroy();
      altering.waitFor(5, TimeUnit.SECONDS);
    }
  }
}
