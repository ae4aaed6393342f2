package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.server.tlsecho.TlsEchoServer;
import io.pkibench.testing.ListeningPorts;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Workload;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bench/ssl-peers' set-up, briefly: Debian's stunnel4 (OpenSSL) terminating TLS in front of our
 * plain echo server, and every tls-* workload with both client engines through it. The benchmark
 * compares CPU per transaction; this shows the peer is a working one.
 */
@org.junit.jupiter.api.Timeout(
    value = 3,
    unit = java.util.concurrent.TimeUnit.MINUTES) // talks to stunnel: a hang fails, said as one
class StunnelPeerTest {
  @TempDir Path dir;

  @Test
  void everyKind_bothClientEngines_throughStunnel() throws Exception {
    TestKeys fixture = TestKeys.in(dir);
    Path key = dir.resolve("key.pem"), chain = dir.resolve("chain.pem");
    String r =
        Openssl.run(
            "pkcs12",
            "-in",
            fixture.pki.keystore("tls-server").toString(),
            "-nocerts",
            "-nodes",
            "-passin",
            "file:" + fixture.pki.dir().resolve("keystore.pass"),
            "-out",
            key.toString());
    assertTrue(Openssl.succeeded(r), r);
    Files.writeString(
        chain,
        Files.readString(fixture.pki.certificatePem("tls-server"))
            + Files.readString(fixture.pki.certificatePem("intermediate-a")));
    try (TlsEchoServer plain =
        new TlsEchoServer(null, "plain", "127.0.0.1", 0, -1, TlsEchoServer.Limits.DEFAULT)) {
      plain.start();
      Path conf = dir.resolve("stunnel.conf");
      Files.writeString(
          conf,
          String.join(
              "\n",
              "foreground = yes",
              "pid =",
              "[echo]",
              "accept = 127.0.0.1:0", // the port it binds, read back from the kernel
              "connect = " + URI.create(plain.baseUrl()).getAuthority(),
              "cert = " + chain,
              "key = " + key,
              ""));
      Process stunnel =
          new ProcessBuilder("stunnel4", conf.toString())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("stunnel.log").toFile())
              .start();
      try {
        int port =
            ListeningPorts.await(stunnel, Duration.ofSeconds(60), dir.resolve("stunnel.log"));
        int done = 0;
        for (String engine : List.of("jsse", "openssl")) {
          for (TlsWorkload.Kind kind : TlsWorkload.Kind.values()) {
            Map<String, String> params =
                Map.of("target", "tls://127.0.0.1:" + port, "engine", engine);
            try (Workload w = fixture.workload(new TlsWorkload.Factory(kind), params)) {
              Operation op = w.newOperation(0);
              for (int i = 0; i < 32; i++)
                op.execute(); // two whole acknowledgement windows of tls-stream's default 16
              done += 32;
            }
          }
        }
        assertEquals(
            done, TlsEchoTest.counter(TlsEchoTest.counters(plain.baseUrl()), "transactions"));
      } finally {
        stunnel.destroy();
        stunnel.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }
}
