package io.pkibench.workload.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.PemKeys;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.TestPki;
import io.pkibench.server.pebble.PebbleFixture;
import io.pkibench.server.pebble.PebbleServer;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * acme:renew and acme:revoke against Debian's real Pebble on loopback: renewals get new serials for
 * the same name; a revoked certificate's second revoke is refused alreadyRevoked. Planted faults: a
 * proxy that hands a renewal the previous certificate, and one that answers revocations 200 without
 * sending them; the operations are counted failed.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AcmeRenewRevokeTest {
  @TempDir static Path dir;
  static TestKeys keys;
  static PebbleServer pebble;

  @BeforeAll
  static void startPebble() throws Exception {
    keys = TestKeys.in(dir);
    pebble = PebbleFixture.start(dir.resolve("pebble"), keys.pki);
  }

  @AfterAll
  static void stopPebble() {
    if (pebble != null) pebble.close();
  }

  static Workload workload(AcmeWorkloads.Kind kind, String directory, Map<String, String> params)
      throws Exception {
    return AcmeTestWorkloads.create(kind, pebble, keys.pki, directory, params);
  }

  private static CertificateSwappingProxy proxy(boolean replay) throws Exception {
    TestPki pki = keys.pki;
    SigningKey tls = new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key("tls-server");
    var serverTls = TlsContexts.withIdentity(tls, pki.certificate("root-ca"));
    var clientTls = TlsContexts.trusting(pki.certificate("root-ca"));
    int port = Integer.parseInt(pebble.baseUrl().substring(pebble.baseUrl().lastIndexOf(':') + 1));
    return replay
        ? CertificateSwappingProxy.replayingFirst(serverTls, clientTls, port)
        : CertificateSwappingProxy.droppingRevocations(serverTls, clientTls, port);
  }

  @Test
  void renew_againstPebble_eachRenewalANewSerialForTheSameName() throws Exception {
    Path saved = dir.resolve("renewed");
    try (AcmeOrderWorkload w =
        (AcmeOrderWorkload)
            workload(
                AcmeWorkloads.Kind.RENEW,
                pebble.directoryUrl(),
                Map.of("save", saved.toString()))) {
      Operation op = w.newOperation(0);
      for (int i = 0; i < 4; i++) op.execute();
      assertEquals(4L, w.outcomes().get("orders issued"), w.outcomes().toString());
      assertEquals(List.of(), w.ledger().problems());
      List<X509Certificate> certificates = new ArrayList<>();
      List<X509Certificate> lastChain = new ArrayList<>();
      try (Stream<Path> files = Files.list(saved)) {
        for (Path f : files.sorted().toList()) {
          if (f.endsWith(AcmeOrderWorkload.ISSUER_ROOT)) continue;
          certificates.add(PemKeys.certificate(Files.readAllBytes(f)));
          lastChain.clear();
          try (var in = Files.newInputStream(f)) {
            for (var c : CertificateFactory.getInstance("X.509").generateCertificates(in))
              lastChain.add((X509Certificate) c);
          }
        }
      }
      assertEquals(4, certificates.size());
      Set<Object> serials = new HashSet<>(), names = new HashSet<>(), keys = new HashSet<>();
      for (X509Certificate c : certificates) {
        serials.add(c.getSerialNumber());
        names.add(c.getSubjectAlternativeNames().toString());
        keys.add(c.getPublicKey());
      }
      assertEquals(4, serials.size(), "a new serial each renewal");
      assertEquals(1, names.size(), "the same name each renewal: " + names);
      assertTrue(keys.size() >= 2, "renewed over new keys");
      // the check alone, handed the previous certificate with its own key: the serial is the fault
      X509Certificate last = certificates.get(3);
      var fault =
          assertThrows(
              Exception.class,
              () ->
                  w.checkRenewal(
                      lastChain,
                      new java.security.KeyPair(last.getPublicKey(), null),
                      List.of(w.name(0, "renew")),
                      last));
      assertTrue(fault.getMessage().contains("the previous one's serial"), fault.getMessage());
    }
  }

  @Test
  void renew_handedThePreviousCertificate_countedFailed() throws Exception {
    try (CertificateSwappingProxy proxy = proxy(true);
        Workload w = workload(AcmeWorkloads.Kind.RENEW, proxy.directoryUrl(), Map.of())) {
      MeasuredRun run =
          MeasuredRun.of("acme:renew handed the previous certificate", w, Duration.ofSeconds(1), 3);
      // only the proxy's very first download is the certificate asked for (a run started again
      // for a longer window begins with a fresh worker, whose first order is handed it too)
      assertTrue(run.succeeded() <= 1, "at most the first order gets its name: " + run);
      assertEquals(run.started() - run.succeeded(), run.failed(), run.toString());
      assertTrue(run.failed() >= 2, "renewals counted failed: " + run);
      assertTrue(
          run.errors().keySet().stream()
              .allMatch(
                  e -> e.contains("another key than the CSR's") || e.contains("was issued before")),
          run.errors().toString());
    }
  }

  @Test
  void revoke_againstPebble_revokedAndASecondRevokeRefused() throws Exception {
    try (AcmeRevokeWorkload w =
        (AcmeRevokeWorkload)
            workload(
                AcmeWorkloads.Kind.REVOKE, pebble.directoryUrl(), Map.of("certificates", "3"))) {
      Operation op = w.newOperation(0);
      assertEquals(3L, w.outcomes().get("orders issued"), "issued in set-up: " + w.outcomes());
      for (int i = 0; i < 3; i++) op.execute();
      Map<String, Long> outcomes = w.outcomes();
      assertEquals(3L, outcomes.get("certificates revoked"), outcomes.toString());
      assertEquals(3L, outcomes.get("second revokes refused alreadyRevoked"), outcomes.toString());
      assertTrue(outcomes.containsKey("step revoke p99 µs"), outcomes.toString());
      var used = assertThrows(Exception.class, op::execute);
      assertTrue(used.getMessage().contains("all 3 certificates"), used.getMessage());
      assertEquals(List.of(), w.ledger().problems());
    }
  }

  @Test
  void revoke_notSentToTheCa_countedFailed() throws Exception {
    try (CertificateSwappingProxy proxy = proxy(false);
        Workload w =
            workload(
                AcmeWorkloads.Kind.REVOKE, proxy.directoryUrl(), Map.of("certificates", "2"))) {
      MeasuredRun run = MeasuredRun.of("acme:revoke not sent", w, Duration.ofSeconds(1), 2);
      assertEquals(0, run.succeeded(), run.toString());
      assertEquals(run.started(), run.failed(), run.toString());
      assertTrue(
          run.errors().keySet().stream()
              .anyMatch(
                  e -> e.contains("not refused alreadyRevoked: the first did not take effect")),
          run.errors().toString());
    }
  }

  @Test
  void catalog_knowsRenewAndRevoke() {
    assertTrue(WorkloadCatalog.builtIn().find("acme:renew").isPresent());
    assertTrue(WorkloadCatalog.builtIn().find("acme:revoke").isPresent());
  }
}
