package io.pkibench.workload.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.SigningKey;
import io.pkibench.server.crl.RevocationServer;
import io.pkibench.testing.Await;
import io.pkibench.testing.DerFront;
import io.pkibench.testing.Flip;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.OpensslServices;
import io.pkibench.testing.TestCertificates;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.CountedOutcomes;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ocsp} against responders on loopback: OpenSSL's ({@code openssl ocsp -index}, signing as
 * the CA, as a delegate, or as a key the CA never authorised) behind a minimal front, ours ({@code
 * serve crl}'s server), and a front that answers as broken services do. One certificate of the
 * index is revoked.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class OcspWorkloadTest {
  static final Duration LONG = Duration.ofSeconds(1);
  @TempDir static Path tmp;
  static TestKeys fixture;
  static SigningKey ca;
  static X509Certificate good1, good3, revoked;
  static String goodPems, revokedPem, caPem;
  static DerFront.Backend byCa;
  static DerFront caFront;

  @BeforeAll
  static void setUp() throws Exception {
    fixture =
        TestKeys.in(tmp, "http://127.0.0.1:" + io.pkibench.testing.ReservedPorts.one() + "/crl/");
    ca = fixture.keys.key("intermediate-a");
    good1 = fixture.pki.certificate("signer-rsa2048-1");
    good3 = fixture.pki.certificate("signer-rsa2048-3");
    revoked = fixture.pki.certificate("signer-rsa2048-revoked");
    goodPems =
        fixture.pki.certificatePem("signer-rsa2048-1")
            + ","
            + fixture.pki.certificatePem("signer-rsa2048-3");
    revokedPem = fixture.pki.certificatePem("signer-rsa2048-revoked").toString();
    caPem = fixture.pki.certificatePem("intermediate-a").toString();
    byCa = opensslSigningAs("by-ca", ca.certificate(), ca.privateKey());
    caFront = new DerFront(OcspWorkload.REPLY_TYPE, byCa);
  }

  @AfterAll
  static void tearDown() {
    if (caFront != null) caFront.close();
  }

  static DerFront.Backend opensslSigningAs(
      String name, X509Certificate signer, java.security.PrivateKey key) throws Exception {
    return OpensslServices.ocsp(
        tmp.resolve("openssl-" + name),
        ca.certificate(),
        signer,
        key,
        List.of(good1, good3),
        List.of(revoked),
        4);
  }

  static Workload ocsp(String target, String certs, Map<String, String> extra) throws Exception {
    var factory = new OcspWorkload.Factory();
    Map<String, String> params = new HashMap<>(extra);
    params.put("target", target);
    params.put("cert", certs);
    params.put("issuer", caPem);
    Params resolved = Params.resolve("ocsp", factory.params(), params);
    assertEquals(List.of(), factory.problems(resolved, "software"));
    return factory.create(new WorkloadContext(null, false, () -> fixture.pki), resolved);
  }

  static Map<String, Long> outcomes(Workload w) {
    return ((CountedOutcomes) w).outcomes();
  }

  static Path pem(String name, X509Certificate c) throws Exception {
    Path file = tmp.resolve(name + ".pem");
    Files.writeString(file, TestCertificates.pem(c));
    return file;
  }

  @Test
  void run_opensslSignedByTheCa_postWithNonce_everyAnswerGoodAndVerified() throws Exception {
    try (Workload w = ocsp(caFront.url("/"), goodPems, Map.of("expect", "good"))) {
      MeasuredRun run = MeasuredRun.of("ocsp POST against openssl", w, LONG).assertEverySucceeded();
      assertEquals(
          run.started(), outcomes(w).get("good"), "every answer counted good: " + outcomes(w));
    }
  }

  @Test
  void run_opensslRevokedCertificate_getWithoutNonce_expectRevokedPasses_expectGoodCountsFailures()
      throws Exception {
    try (Workload w =
        ocsp(
            caFront.url("/ocsp"),
            revokedPem,
            Map.of("method", "get", "nonce", "false", "expect", "revoked"))) {
      MeasuredRun.of("ocsp GET, revoked expected", w, LONG).assertEverySucceeded();
      assertEquals(0L, outcomes(w).get("good"));
    }
    try (Workload w =
        ocsp(caFront.url("/ocsp"), revokedPem, Map.of("method", "get", "expect", "good"))) {
      MeasuredRun run =
          MeasuredRun.of("ocsp GET, good expected of a revoked certificate", w, LONG)
              .assertEveryFailedWith("expected good, the responder says revoked");
      assertEquals(
          run.started(), outcomes(w).get("revoked"), "still counted as revoked: " + outcomes(w));
    }
  }

  @Test
  void run_opensslDelegatedResponder_answersAccepted() throws Exception {
    TestCertificates.Issued delegate =
        TestCertificates.responder("ocsp delegate", ca.certificate(), ca.privateKey(), true);
    try (DerFront front =
            new DerFront(
                OcspWorkload.REPLY_TYPE,
                opensslSigningAs("delegate", delegate.certificate(), delegate.key()));
        Workload w = ocsp(front.url("/"), goodPems + "," + revokedPem, Map.of())) {
      MeasuredRun.of("ocsp, delegated responder", w, LONG).assertEverySucceeded();
      assertTrue(
          outcomes(w).get("good") > 0 && outcomes(w).get("revoked") > 0,
          "both statuses seen: " + outcomes(w));
    }
  }

  @Test
  void run_responderTheCaNeverAuthorised_everyAnswerRefused_unlessNamedWithResponder()
      throws Exception {
    SigningKey otherCa = fixture.keys.key("intermediate-b");
    TestCertificates.Issued stranger =
        TestCertificates.responder(
            "ocsp stranger", otherCa.certificate(), otherCa.privateKey(), true);
    try (DerFront front =
        new DerFront(
            OcspWorkload.REPLY_TYPE,
            opensslSigningAs("stranger", stranger.certificate(), stranger.key()))) {
      try (Workload w = ocsp(front.url("/"), goodPems, Map.of())) {
        MeasuredRun.of("ocsp, unauthorised responder", w, LONG)
            .assertEveryFailedWith("is not certified by the CA");
      }
      try (Workload w =
          ocsp(
              front.url("/"),
              goodPems,
              Map.of("responder", pem("stranger", stranger.certificate()).toString()))) {
        MeasuredRun.of("ocsp, the same responder named with -p responder", w, LONG)
            .assertEverySucceeded();
      }
    }
  }

  @Test
  void run_delegateWithoutTheOcspSigningPurpose_everyAnswerRefused() throws Exception {
    TestCertificates.Issued notResponder =
        TestCertificates.responder("not a responder", ca.certificate(), ca.privateKey(), false);
    try (DerFront front =
            new DerFront(
                OcspWorkload.REPLY_TYPE,
                opensslSigningAs("no-eku", notResponder.certificate(), notResponder.key()));
        Workload w = ocsp(front.url("/"), goodPems, Map.of())) {
      MeasuredRun.of("ocsp, certificate without OCSPSigning", w, LONG)
          .assertEveryFailedWith("without the OCSPSigning purpose");
    }
  }

  @Test
  void run_ourServeCrlResponder_postAndGet_statusesCounted() throws Exception {
    int port =
        Integer.parseInt(fixture.pki.manifest().crlBaseUrl().replaceAll(".*:(\\d+)/.*", "$1"));
    try (RevocationServer server = new RevocationServer(fixture.pki, "127.0.0.1", port)) {
      server.start();
      for (String method : List.of("post", "get")) {
        try (Workload w =
            ocsp(
                server.baseUrl() + "/ocsp/intermediate-a",
                goodPems + "," + revokedPem,
                Map.of("method", method))) {
          MeasuredRun.of("ocsp " + method + " against serve crl", w, LONG).assertEverySucceeded();
          assertTrue(
              outcomes(w).get("good") > 0 && outcomes(w).get("revoked") > 0,
              method + ": both statuses counted: " + outcomes(w));
          assertEquals(0L, outcomes(w).get("unknown"));
        }
      }
    }
  }

  /**
   * A responder that answers for another serial (the request rewritten for the revoked certificate,
   * its nonce kept), and one whose signature had a bit flipped on the way: each answer refused with
   * its reason.
   */
  @Test
  void run_answerForAnotherSerialOrWithAFlippedSignature_everyOperationCountedWithTheReason()
      throws Exception {
    String good1Pem = fixture.pki.certificatePem("signer-rsa2048-1").toString();
    DerFront.Backend anotherSerial =
        request -> {
          var asked = new org.bouncycastle.cert.ocsp.OCSPReq(request);
          var builder = new org.bouncycastle.cert.ocsp.OCSPReqBuilder();
          builder.addRequest(
              org.bouncycastle.cert.ocsp.CertificateID.deriveCertificateID(
                  asked.getRequestList()[0].getCertID(), revoked.getSerialNumber()));
          var nonce =
              asked.getExtension(
                  org.bouncycastle.asn1.ocsp.OCSPObjectIdentifiers.id_pkix_ocsp_nonce);
          if (nonce != null)
            builder.setRequestExtensions(new org.bouncycastle.asn1.x509.Extensions(nonce));
          return byCa.answer(builder.build().getEncoded());
        };
    try (DerFront front = new DerFront(OcspWorkload.REPLY_TYPE, anotherSerial);
        Workload w = ocsp(front.url("/"), good1Pem, Map.of())) {
      MeasuredRun.of("ocsp, answer for another serial", w, LONG)
          .assertEveryFailedWith("the response does not answer for the certificate asked about");
    }
    try (DerFront front =
            new DerFront(
                OcspWorkload.REPLY_TYPE, request -> Flip.inOcspSignature(byCa.answer(request)));
        Workload w = ocsp(front.url("/"), good1Pem, Map.of())) {
      MeasuredRun.of("ocsp, signature flipped", w, LONG)
          .assertEveryFailedWith("the response's signature does not verify with");
    }
  }

  @Test
  void run_responderAnswering500_htmlOrTruncated_eachCountedWithItsReason() throws Exception {
    try (DerFront front = new DerFront(OcspWorkload.REPLY_TYPE, byCa);
        Workload w = ocsp(front.url("/"), goodPems, Map.of())) {
      front.fault(DerFront.Fault.HTTP_500);
      MeasuredRun.of("ocsp, HTTP 500", w, LONG)
          .assertEveryFailedWith("HTTP 500 from " + front.url("/"));
      front.fault(DerFront.Fault.HTML);
      MeasuredRun.of("ocsp, HTML", w, LONG)
          .assertEveryFailedWith("answered text/html, not application/ocsp-response: <html>");
      front.fault(DerFront.Fault.TRUNCATED);
      MeasuredRun.of("ocsp, truncated", w, LONG)
          .assertEveryFailedWith("the reply is not a DER OCSPResponse");
    }
  }

  @Test
  void run_responderGoingDownMidRun_laterOperationsCountedAndTheRunGoesOn() throws Exception {
    DerFront front = new DerFront(OcspWorkload.REPLY_TYPE, byCa);
    try (Workload w = ocsp(front.url("/"), goodPems, Map.of())) {
      // warm first (a cold first answer took 2 s on the loaded machine), then down once it has
      // answered two more:
      // not after a guessed pause, which a loaded machine may spend before the first answer
      MeasuredRun.of("ocsp, warming", w, Duration.ofMillis(500)).assertEverySucceeded();
      long warm = front.answered();
      Thread.ofPlatform()
          .start(
              () -> {
                try {
                  Await.until(
                      Duration.ofSeconds(30), "two answers", () -> front.answered() >= warm + 2);
                } catch (Throwable notAnswered) {
                  // the run's own assertions below say what it saw
                }
                front.close();
              });
      MeasuredRun run = MeasuredRun.of("ocsp, responder stopped", w, Duration.ofMillis(3000));
      assertTrue(run.succeeded() > 0, "answered before it went down: " + run);
      assertTrue(
          run.failed() > 1, "every later operation counted as failed, the run going on: " + run);
    } finally {
      front.close();
    }
  }

  @Test
  void problems_missingCertOrIssuer_eachNamed() {
    var factory = new OcspWorkload.Factory();
    List<String> problems =
        factory.problems(
            Params.resolve("ocsp", factory.params(), Map.of("target", "http://127.0.0.1:1/")),
            "software");
    assertEquals(2, problems.size(), problems.toString());
    assertTrue(
        problems.get(0).startsWith("-p cert:") && problems.get(1).startsWith("-p issuer:"),
        problems.toString());
  }
}
