package io.pkibench.workload.ades;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.pkibench.formats.ades.CertificateLogin;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.TestPki;
import io.pkibench.server.crl.RevocationServer;
import io.pkibench.testing.FaultyKeys;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestCertificates;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.security.Signature;
import java.security.cert.CertPathValidatorException;
import java.time.InstantSource;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Certificate login against the test PKI, with CRLs read once or fetched, or OCSP, from a real
 * revocation server on loopback.
 */
@org.junit.jupiter.api.Timeout(
    value = 3,
    unit =
        java.util.concurrent.TimeUnit
            .MINUTES) // talks to the revocation server: a hang fails, said as one
class AuthWorkloadTest {
  @TempDir static Path tmp;
  static TestPki pki;
  static KeySource keys;
  static int crlPort;

  @BeforeAll
  static void setUp() throws Exception {
    try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      crlPort = probe.getLocalPort();
    }
    TestKeys fixture = TestKeys.in(tmp, "http://127.0.0.1:" + crlPort + "/crl/");
    pki = fixture.pki;
    keys = fixture.keys;
  }

  static AuthWorkload workload(String revocation) throws Exception {
    var factory = new AuthWorkload.Factory();
    return (AuthWorkload)
        factory.create(
            new WorkloadContext(keys, false, () -> pki),
            Params.resolve(
                "auth", factory.params(), Map.of("certs", "4", "revocation", revocation)));
  }

  /** The client's answer to a login challenge. */
  static byte[] sign(SigningKey key, byte[] nonce) throws Exception {
    Signature s = Signature.getInstance("SHA256withRSA", key.provider());
    s.initSign(key.privateKey());
    s.update(nonce);
    return s.sign();
  }

  @Test
  void run_validClientsFromBothIntermediates_everyLoginSucceeds() throws Exception {
    try (Workload w = workload("crl")) {
      MeasuredRun.of("auth", w).assertEverySucceeded();
    }
  }

  @Test
  void run_loginSignaturesFlippedByTheProvider_everyLoginCountedFailed() throws Exception {
    var factory = new AuthWorkload.Factory();
    try (Workload w =
        factory.create(
            new WorkloadContext(FaultyKeys.flippingEveryOutput(keys), false, () -> pki),
            Params.resolve("auth", factory.params(), Map.of("certs", "4", "revocation", "crl")))) {
      MeasuredRun.of("auth with flipped signatures", w)
          .assertEveryFailedWith("the login signature does not verify");
    }
  }

  @Test
  void run_clientsOfAnotherPki_everyLoginCountedFailed() throws Exception {
    TestKeys another = TestKeys.in(tmp.resolve("another"));
    var factory = new AuthWorkload.Factory();
    try (Workload w =
        factory.create(
            new WorkloadContext(another.keys, false, () -> pki),
            Params.resolve("auth", factory.params(), Map.of("certs", "2", "revocation", "crl")))) {
      MeasuredRun.of("auth from another PKI", w)
          .assertEveryFailedWith("CertPathValidatorException");
    }
  }

  @Test
  void login_revokedClient_refusedAsRevoked() throws Exception {
    AuthWorkload w = workload("crl");
    SigningKey revoked = keys.key("signer-rsa2048-revoked");
    byte[] nonce = {1, 2, 3};
    byte[] signature = sign(revoked, nonce);
    var e =
        assertThrows(
            CertPathValidatorException.class,
            () -> w.login(nonce, signature, "SHA256withRSA", revoked.chain()));
    assertEquals(CertPathValidatorException.BasicReason.REVOKED, e.getReason(), e.getMessage());
    nonce[0] = 9;
    assertThrows(
        java.security.SignatureException.class,
        () -> w.login(nonce, signature, "SHA256withRSA", keys.key("signer-rsa2048-1").chain()),
        "a signature over another nonce is refused before the path is even looked at");
  }

  @Test
  void login_fetchFromRevocationServer_passesAndFailsClearlyWhenItIsDown() throws Exception {
    AuthWorkload w = workload("crl-fetch");
    Operation op = w.newOperation(0);
    try (RevocationServer server = new RevocationServer(pki, "127.0.0.1", crlPort)) {
      server.start();
      for (int i = 0; i < 4; i++) op.execute();
    }
    assertThrows(
        java.net.ConnectException.class,
        op::execute,
        "with the CRL server gone, a login cannot check revocation");
  }

  @Test
  void login_ocspFromRevocationServer_goodPassesRevokedRefusedDownFailsClearly() throws Exception {
    AuthWorkload w = workload("ocsp");
    Operation op = w.newOperation(0);
    SigningKey revoked = keys.key("signer-rsa2048-revoked");
    byte[] nonce = {4, 5, 6};
    byte[] signature = sign(revoked, nonce);
    try (RevocationServer server = new RevocationServer(pki, "127.0.0.1", crlPort)) {
      server.start();
      for (int i = 0; i < 4; i++)
        op.execute(); // four signers, both intermediates: the JDK's OCSP client asks for leaf and
      // intermediate
      var e =
          assertThrows(
              CertPathValidatorException.class,
              () -> w.login(nonce, signature, "SHA256withRSA", revoked.chain()));
      assertEquals(CertPathValidatorException.BasicReason.REVOKED, e.getReason(), e.getMessage());
    }
    var down =
        assertThrows(
            CertPathValidatorException.class,
            op::execute,
            "with the responder gone, a login cannot check revocation");
    assertEquals(
        CertPathValidatorException.BasicReason.UNDETERMINED_REVOCATION_STATUS,
        down.getReason(),
        down.getMessage());
  }

  @Test
  void ocsp_onAPkiWithoutResponders_refusedUpFrontWithTheFix() throws Exception {
    // A certificate without an AIA extension stands for a test PKI made before OCSP existed here.
    Path old = tmp.resolve("old-pki");
    TestPki.init(old, InstantSource.system(), "http://127.0.0.1:" + crlPort + "/crl/", line -> {});
    java.nio.file.Files.writeString(
        old.resolve("signer-rsa2048-1.pem"),
        TestCertificates.pem(
            TestCertificates.selfSigned(
                "no-aia",
                java.time.Instant.now().minusSeconds(60),
                java.time.Instant.now().plusSeconds(3600))));
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CertificateLogin.of(TestPki.open(old), CertificateLogin.Revocation.OCSP));
    org.junit.jupiter.api.Assertions.assertTrue(
        e.getMessage().contains("predates OCSP") && e.getMessage().contains("pki init --dir"),
        e.getMessage());
    CertificateLogin.of(
        pki, CertificateLogin.Revocation.OCSP); // a PKI as made today names its responders
  }
}
