package io.pkibench.workload.ades;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.ades.CertificateLogin;
import io.pkibench.formats.ades.CertificateTrust;
import io.pkibench.formats.ades.HttpTimeStampResponder;
import io.pkibench.formats.ades.TimeStampCheck;
import io.pkibench.keys.SigningKey;
import io.pkibench.server.signer.SignerServer;
import io.pkibench.testing.DerFront;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.OpensslServices;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.http.HttpSigningWorkload;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The in-process signing and login workloads pointed at services pkibench did not write: {@code
 * cades-t} and {@code pades-t} time-stamped by OpenSSL's TSA ({@code -p tsa}), {@code auth} asking
 * OpenSSL's OCSP responder ({@code -p ocsp}); --verify on, so every B-T token is checked against
 * {@code -p tsa-trust}.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class OutsideServicesTest {
  static final Duration LONG = Duration.ofSeconds(2);
  @TempDir static Path tmp;
  static TestKeys fixture;
  static DerFront tsa;
  static DerFront.Backend opensslTs;
  static String rootPem;

  @BeforeAll
  static void setUp() throws Exception {
    try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      fixture = TestKeys.in(tmp, "http://127.0.0.1:" + probe.getLocalPort() + "/crl/");
    }
    SigningKey key = fixture.keys.key("tsa");
    opensslTs =
        OpensslServices.tsa(
            tmp.resolve("openssl-ts"), key.certificate(), key.privateKey(), key.chain(), 2);
    tsa = new DerFront("application/timestamp-reply", opensslTs);
    rootPem = fixture.pki.certificatePem("root-ca").toString();
  }

  @AfterAll
  static void tearDown() {
    if (tsa != null) tsa.close();
  }

  @Test
  void run_cadesTAndPadesTStampedByOpensslTsa_everySignatureAndTokenVerifies() throws Exception {
    for (WorkloadFactory factory :
        List.of(new CadesWorkload.Factory(true), new PadesWorkload.Factory(true))) {
      long before = tsa.answered();
      try (Workload w =
          fixture.workload(factory, Map.of("tsa", tsa.url("/tsa"), "tsa-trust", rootPem))) {
        MeasuredRun run =
            MeasuredRun.of(factory.name() + " -p tsa=openssl", w, LONG).assertEverySucceeded();
        assertEquals(
            run.started(),
            tsa.answered() - before,
            factory.name() + ": every signature time-stamped by openssl");
      }
    }
  }

  @Test
  void run_cadesTWithATsaAnsweringAnotherNonce_everySignatureCountedFailed() throws Exception {
    try (DerFront tampering =
            new DerFront(
                "application/timestamp-reply",
                OpensslServices.answeringAnotherRequest(opensslTs, true));
        Workload w =
            fixture.workload(
                new CadesWorkload.Factory(true),
                Map.of("tsa", tampering.url("/tsa"), "tsa-trust", rootPem))) {
      MeasuredRun.of("cades-t, TSA answering another nonce", w, LONG)
          .assertEveryFailedWith("does not echo the request's nonce");
    }
  }

  @Test
  void create_verifyWithOutsideTsaButNoTrust_refusedNamingTsaTrust() {
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                fixture.workload(new CadesWorkload.Factory(true), Map.of("tsa", tsa.url("/tsa"))));
    assertTrue(e.getMessage().contains("-p tsa-trust"), e.getMessage());
    var factory = new CadesWorkload.Factory(true);
    assertTrue(
        factory
            .notes(Params.resolve("cades-t", factory.params(), Map.of("tsa", tsa.url("/tsa"))))
            .get(0)
            .contains("not verified"));
    assertTrue(
        factory
            .problems(
                Params.resolve("cades-t", factory.params(), Map.of("tsa-trust", rootPem)),
                "software")
            .get(0)
            .contains("only with -p tsa=URL"));
    assertEquals(
        List.of(),
        new CadesWorkload.Factory(false)
            .params().stream().filter(p -> p.name().startsWith("tsa")).toList(),
        "B-B has no TSA");
  }

  /**
   * {@code serve signer --tsa URL --tsa-trust PEM}: the service's B-T signatures stamped by
   * openssl's TSA, checked by http:cades-t --verify.
   */
  @Test
  void run_httpCadesTThroughASignerUsingOpensslTsa_everySignatureAndTokenVerifies()
      throws Exception {
    var trust = CertificateTrust.of(List.of(fixture.pki.certificate("root-ca")));
    try (var signer =
        SignerServer.forTestPki(
            fixture.pki,
            new HttpTimeStampResponder(java.net.URI.create(tsa.url("/tsa"))),
            new TimeStampCheck(trust),
            CertificateLogin.Revocation.CRL,
            "127.0.0.1",
            0,
            java.time.InstantSource.system())) {
      signer.start();
      long before = tsa.answered();
      try (Workload w =
          fixture.workload(
              new HttpSigningWorkload.Factory("cades-t"),
              Map.of("target", signer.baseUrl(), "tsa-trust", rootPem, "size", "4k"))) {
        MeasuredRun run =
            MeasuredRun.of("http:cades-t, serve signer --tsa openssl", w, LONG)
                .assertEverySucceeded();
        assertEquals(
            run.started(), tsa.answered() - before, "every signature time-stamped by openssl");
      }
    }
  }

  @Test
  void run_authAskingOpensslOcspResponder_goodLogsIn_revokedCountedFailed() throws Exception {
    SigningKey ca = fixture.keys.key("intermediate-a");
    X509Certificate signer = fixture.pki.certificate("signer-rsa2048-1");
    for (boolean revoked : new boolean[] {false, true}) {
      try (DerFront responder =
              new DerFront(
                  "application/ocsp-response",
                  OpensslServices.ocsp(
                      tmp.resolve("ocsp-" + revoked),
                      ca.certificate(),
                      ca.certificate(),
                      ca.privateKey(),
                      revoked ? List.of() : List.of(signer),
                      revoked ? List.of(signer) : List.of(),
                      2));
          Workload w =
              fixture.workload(
                  new AuthWorkload.Factory(),
                  Map.of("revocation", "ocsp", "ocsp", responder.url("/"), "certs", "1"))) {
        MeasuredRun run =
            MeasuredRun.of("auth -p ocsp=openssl, " + (revoked ? "revoked" : "good"), w, LONG);
        if (revoked) run.assertEveryFailedWith("revoked");
        else run.assertEverySucceeded();
        assertEquals(run.started(), responder.answered(), "every login asked openssl once");
      }
    }
  }
}
