package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.tls.TlsServerKeys;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.TestPki;
import io.pkibench.pki.WorkerIdentities;
import io.pkibench.server.nginx.NginxPeer;
import io.pkibench.server.tlsecho.TlsEchoServer;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * https-rr, https-acrr and https-stream against our tlsecho's HTTP answers and against Debian's
 * nginx demanding a client certificate (with it: no failure; without: every request fails with
 * nginx's reason), and what must be counted failed: HTTP 500, a body shorter than expected, a
 * server closing mid-response.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = TimeUnit.MINUTES)
class HttpsWorkloadTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  static Workload https(HttpsWorkload.Kind kind, String target, String... params) throws Exception {
    var factory = new HttpsWorkload.Factory(kind);
    Map<String, String> given = new HashMap<>(Map.of("target", target));
    for (int i = 0; i < params.length; i += 2) given.put(params[i], params[i + 1]);
    Params p = Params.resolve(factory.name(), factory.params(), given);
    assertEquals(List.of(), factory.problems(p, "software"));
    return factory.create(new WorkloadContext(fixture.keys, false, () -> fixture.pki), p);
  }

  static int freePort() throws Exception {
    return io.pkibench.testing.ReservedPorts.one();
  }

  @Test
  void everyKind_againstTlsechoHttp_bothEngines_noFailure() throws Exception {
    for (String serverEngine : List.of("jsse", "openssl")) {
      var config =
          new TlsEchoServer.Config(
              "127.0.0.1",
              0,
              -1,
              serverEngine,
              "rsa2048",
              List.of(),
              List.of(),
              TlsEchoServer.Limits.DEFAULT);
      try (TlsEchoServer server = TlsEchoServer.open(config, fixture.pki, line -> {})) {
        server.start();
        String url = server.baseUrl().replace("tls://", "https://");
        for (String engine : List.of("jsse", "openssl")) {
          try (Workload w =
              https(HttpsWorkload.Kind.RR, url, "engine", engine, "expect-bytes", "128")) {
            MeasuredRun.of("https-rr " + engine, w).assertEverySucceeded();
          }
          try (Workload w = https(HttpsWorkload.Kind.ACRR, url, "engine", engine)) {
            MeasuredRun.of("https-acrr " + engine, w).assertEverySucceeded();
          }
          try (Workload w =
              https(HttpsWorkload.Kind.STREAM, url, "engine", engine, "size", "16k")) {
            MeasuredRun.of("https-stream " + engine, w).assertEverySucceeded();
          }
        }
        // the same server still speaks its frames on the same port
        var rr = new TlsWorkload.Factory(TlsWorkload.Kind.RR);
        try (Workload w =
            rr.create(
                new WorkloadContext(fixture.keys, false, () -> fixture.pki),
                Params.resolve("tls-rr", rr.params(), Map.of("target", server.baseUrl())))) {
          MeasuredRun.of("tls-rr beside http", w).assertEverySucceeded();
        }
      }
    }
  }

  static NginxPeer nginx(Path runDir, boolean verifyClient) throws Exception {
    return nginx(fixture, runDir, verifyClient);
  }

  /**
   * nginx on a free loopback port with the test PKI's RSA server identity, asking {@code fixture}'s
   * CAs for a client certificate when {@code verifyClient}.
   */
  static NginxPeer nginx(TestKeys fixture, Path runDir, boolean verifyClient) throws Exception {
    Path chain = runDir.resolve("chain.pem"), key = runDir.resolve("key.pem");
    java.nio.file.Files.createDirectories(runDir);
    NginxPeer.writeIdentity(TlsServerKeys.of(fixture.pki, "rsa2048"), chain, key);
    return NginxPeer.start(
        runDir,
        new NginxPeer.Config(
            freePort(),
            chain,
            key,
            verifyClient ? fixture.pki.caChainPem() : null,
            List.of("TLSv1.2", "TLSv1.3"),
            List.of(),
            1,
            List.of(128, 8192)));
  }

  @Test
  void nginxVerifyingClients_withTheCertificateNoFailure_withoutItEveryRequestFailsWithTheReason()
      throws Exception {
    assertEquals(null, NginxPeer.problem(), "./test installs nginx-light");
    try (NginxPeer nginx = nginx(dir.resolve("nginx-mtls"), true)) {
      assertEquals(1, nginx.workerPids().size(), "the one worker asked for");
      for (String engine : List.of("jsse", "openssl")) {
        try (Workload w =
            https(
                HttpsWorkload.Kind.RR,
                nginx.url() + "/bytes/128",
                "expect-bytes",
                "128",
                "client",
                "tls-client",
                "engine",
                engine)) {
          MeasuredRun.of("https-rr mTLS " + engine, w).assertEverySucceeded();
        }
        try (Workload w =
            https(
                HttpsWorkload.Kind.ACRR,
                nginx.url() + "/bytes/8192",
                "expect-bytes",
                "8k",
                "client",
                "tls-client",
                "engine",
                engine)) {
          MeasuredRun.of("https-acrr mTLS " + engine, w).assertEverySucceeded();
        }
        try (Workload w =
            https(
                HttpsWorkload.Kind.STREAM,
                nginx.url(),
                "size",
                "16k",
                "client",
                "tls-client",
                "engine",
                engine)) {
          MeasuredRun.of("https-stream mTLS " + engine, w).assertEverySucceeded();
        }
        try (Workload w =
            https(
                HttpsWorkload.Kind.RR,
                nginx.url() + "/bytes/128",
                "expect-bytes",
                "128",
                "engine",
                engine)) {
          MeasuredRun.of("https-rr without certificate " + engine, w, Duration.ofSeconds(1))
              .assertEveryFailedWith("HTTP 400 from " + nginx.url() + "/bytes/128");
        }
        try (Workload w =
            https(
                HttpsWorkload.Kind.RR,
                nginx.url() + "/bytes/128",
                "expect-bytes",
                "128",
                "engine",
                engine)) {
          MeasuredRun.of("https-rr without certificate " + engine, w, Duration.ofSeconds(1))
              .assertEveryFailedWith("No required SSL certificate was sent");
        }
      }
    }
  }

  /**
   * https-rr with {@code -p identities=per-worker} against nginx verifying clients: each worker's
   * transactions pass on a certificate the test PKI issued for that worker alone (three workers,
   * three certificates kept); a directory with fewer pairs than workers refuses the worker past its
   * count, naming the directory.
   */
  @Test
  void nginxVerifyingClients_identitiesPerWorker_eachWorkerItsOwnCertificate() throws Exception {
    try (NginxPeer nginx = nginx(dir.resolve("nginx-per-worker"), true);
        Workload w =
            https(
                HttpsWorkload.Kind.RR,
                nginx.url() + "/bytes/128",
                "expect-bytes",
                "128",
                "client",
                "tls-client",
                "identities",
                "per-worker")) {
      for (int worker = 0; worker < 3; worker++) {
        var op = w.newOperation(worker);
        for (int i = 0; i < 3; i++) op.execute();
      }
    }
    java.util.Set<java.math.BigInteger> serials = new java.util.HashSet<>();
    var issued = new WorkerIdentities(fixture.pki, "tls-client", java.time.InstantSource.system());
    for (int worker = 0; worker < 3; worker++) {
      assertTrue(
          java.nio.file.Files.exists(issued.file(worker)),
          "worker " + worker + " asked for its own identity");
      serials.add(issued.forWorker(worker).chain().get(0).getSerialNumber());
    }
    assertEquals(3, serials.size(), "three workers, three certificates");
    assertTrue(
        !java.nio.file.Files.exists(issued.file(3)),
        "no identity issued for a worker that never ran");

    Path one = java.nio.file.Files.createDirectories(dir.resolve("one-pair"));
    java.nio.file.Files.writeString(
        one.resolve("a.crt"), TestPki.pem(List.of(fixture.pki.certificate("tls-client"))));
    String exported =
        Openssl.run(
            "pkcs12",
            "-in",
            fixture.pki.keystore("tls-client").toString(),
            "-nocerts",
            "-nodes",
            "-passin",
            "file:" + fixture.pki.dir().resolve("keystore.pass"),
            "-out",
            one.resolve("a.key").toString());
    assertTrue(Openssl.succeeded(exported), exported);
    try (Workload w =
        https(
            HttpsWorkload.Kind.RR,
            "https://127.0.0.1:1/bytes/128",
            "expect-bytes",
            "128",
            "identities",
            one.toString())) {
      w.newOperation(0);
      var e =
          org.junit.jupiter.api.Assertions.assertThrows(
              IllegalArgumentException.class, () -> w.newOperation(1));
      assertEquals(
          "-p identities="
              + one
              + " holds 1 identity (PEM pairs); this run has more workers than that (worker 2): add pairs to "
              + one
              + " or lower --concurrency",
          e.getMessage());
    }
  }

  @Test
  void http500AndShortBody_countedFailedWithTheReason() throws Exception {
    try (NginxPeer nginx = nginx(dir.resolve("nginx-plain"), false)) {
      try (Workload w = https(HttpsWorkload.Kind.RR, nginx.url() + "/fail", "expect-bytes", "18")) {
        MeasuredRun.of("https-rr 500", w, Duration.ofSeconds(1))
            .assertEveryFailedWith("HTTP 500 from " + nginx.url() + "/fail: failing on purpose");
      }
      try (Workload w =
          https(HttpsWorkload.Kind.ACRR, nginx.url() + "/bytes/128", "expect-bytes", "8k")) {
        MeasuredRun.of("https-acrr short", w, Duration.ofSeconds(1))
            .assertEveryFailedWith("body of 128 bytes, not the 8192 expected");
      }
    }
  }

  @Test
  void serverClosingMidResponse_countedFailedNamingHowFarItGot() throws Exception {
    var context =
        TlsContexts.withIdentity(
            TlsServerKeys.of(fixture.pki, "rsa2048"), fixture.pki.certificate("root-ca"));
    try (SSLServerSocket listener =
        (SSLServerSocket)
            context
                .getServerSocketFactory()
                .createServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread server =
          Thread.ofVirtual()
              .start(
                  () -> {
                    while (!listener.isClosed()) {
                      try (SSLSocket s = (SSLSocket) listener.accept()) {
                        s.getInputStream().read(new byte[4096]);
                        OutputStream out = s.getOutputStream();
                        out.write(
                            "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789"
                                .getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                      } catch (Exception closed) {
                        // the next client
                      }
                    }
                  });
      try (Workload w =
          https(
              HttpsWorkload.Kind.RR,
              "https://127.0.0.1:" + listener.getLocalPort() + "/bytes/1000",
              "expect-bytes",
              "1000")) {
        MeasuredRun.of("https-rr cut", w, Duration.ofMillis(700))
            .assertEveryFailedWith("the server closed the connection after 10 of 1000 body bytes");
      } finally {
        listener.close();
        server.join(5000);
      }
    }
  }
}
