package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.server.nginx.NginxPeer;
import io.pkibench.server.tlsecho.TlsEchoServer;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestCertificates;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client certificates a server must refuse though the test PKI's CA issued them: one expired
 * yesterday, one for serverAuth only. nginx ({@code ssl_verify_client on}) and tlsecho ({@code
 * --client-auth need}, both engines) refuse them; pkibench counts every transaction failed with
 * what the server let it know (nginx's 400 page: nginx logs the why at level info only; tlsecho's
 * alert), and the run goes on.
 */
@org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES)
class RefusedClientCertificatesTest {
  @TempDir static Path dir;
  static TestKeys fixture;
  static Map<String, Path[]> certificates = new HashMap<>();

  @BeforeAll
  static void pkiAndBadCertificates() throws Exception {
    fixture = TestKeys.in(dir);
    SigningKey ca =
        new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK).key("intermediate-b");
    Instant now = Instant.now();
    var expired =
        TestCertificates.tlsClient(
            "expired client",
            ca.chain().get(0),
            ca.privateKey(),
            now.minus(Duration.ofDays(30)),
            now.minus(Duration.ofDays(1)),
            KeyPurposeId.id_kp_clientAuth);
    var serverOnly =
        TestCertificates.tlsClient(
            "server-only client",
            ca.chain().get(0),
            ca.privateKey(),
            now.minus(Duration.ofDays(1)),
            now.plus(Duration.ofDays(1)),
            KeyPurposeId.id_kp_serverAuth);
    for (var e : Map.of("expired", expired, "server-only", serverOnly).entrySet()) {
      Path cert = dir.resolve(e.getKey() + ".pem"), key = dir.resolve(e.getKey() + ".key");
      Files.writeString(
          cert,
          TestCertificates.pem(e.getValue().certificate())
              + TestCertificates.pem(ca.chain().get(0)));
      Files.writeString(key, TestCertificates.pem(e.getValue().key()));
      certificates.put(e.getKey(), new Path[] {cert, key});
    }
  }

  static Workload workload(
      WorkloadFactory factory, String target, String engine, String certificate, String... more)
      throws Exception {
    Map<String, String> given =
        new HashMap<>(
            Map.of(
                "target",
                target,
                "engine",
                engine,
                "client-cert",
                certificates.get(certificate)[0].toString(),
                "client-key",
                certificates.get(certificate)[1].toString()));
    for (int i = 0; i < more.length; i += 2) given.put(more[i], more[i + 1]);
    Params p = Params.resolve(factory.name(), factory.params(), given);
    assertEquals(
        List.of(),
        factory.problems(p, "software"),
        "the files themselves are sound: only a server can refuse them");
    return factory.create(new WorkloadContext(fixture.keys, false, () -> fixture.pki), p);
  }

  @Test
  void nginxVerifyingClients_expiredOrServerOnlyCertificate_everyRequestFailsWithNginxsReason()
      throws Exception {
    try (NginxPeer nginx = HttpsWorkloadTest.nginx(fixture, dir.resolve("nginx"), true)) {
      var rr = new HttpsWorkload.Factory(HttpsWorkload.Kind.RR);
      for (String engine : List.of("jsse", "openssl")) {
        for (String certificate : List.of("expired", "server-only")) {
          try (Workload w =
              workload(
                  rr, nginx.url() + "/bytes/128", engine, certificate, "expect-bytes", "128")) {
            MeasuredRun.of("https-rr " + certificate + " " + engine, w, Duration.ofSeconds(1))
                .assertEveryFailedWith("The SSL certificate error");
          }
        }
      }
    }
  }

  @Test
  void tlsechoNeedingClients_expiredOrServerOnlyCertificate_everyTransactionFailsWithTheAlert()
      throws Exception {
    var rr = new TlsWorkload.Factory(TlsWorkload.Kind.RR);
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
              TlsEchoServer.Limits.DEFAULT,
              "need",
              List.of());
      try (TlsEchoServer server = TlsEchoServer.open(config, fixture.pki, line -> {})) {
        server.start();
        for (String engine : List.of("jsse", "openssl")) {
          for (String certificate : List.of("expired", "server-only")) {
            try (Workload w = workload(rr, server.baseUrl(), engine, certificate)) {
              // JSSE's server sends certificate_unknown whatever the reason (it names only
              // revocation); BoringSSL's names it
              String alert =
                  serverEngine.equals("jsse")
                      ? "certificate_unknown"
                      : certificate.equals("expired")
                          ? "certificate_expired"
                          : "unsupported_certificate";
              MeasuredRun.of(
                      "tls-rr " + certificate + " " + engine + " → " + serverEngine,
                      w,
                      Duration.ofMillis(
                          engine.equals("jsse") && certificate.equals("expired")
                              ? 1500
                              : 500)) // the first pays for class loading
                  .assertEveryFailedWith(
                      engine.equals("jsse")
                          ? "Received fatal alert: " + alert
                          : alert.toUpperCase(java.util.Locale.ROOT));
            }
          }
        }
      }
    }
  }
}
