package io.pkibench.formats.ades;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.testing.TestCertificates;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The signer's own signing-certificate check refuses what DSS's default check refuses, in every
 * format.
 */
class SigningCertificateCheckTest {
  @Test
  void expiredOrNotYetValidCertificate_refusedBeforeSigning_validOneAccepted() throws Exception {
    Instant now = Instant.now();
    X509Certificate expired =
        TestCertificates.selfSigned(
            "expired", now.minus(Duration.ofDays(20)), now.minus(Duration.ofDays(10)));
    X509Certificate future =
        TestCertificates.selfSigned(
            "future", now.plus(Duration.ofDays(10)), now.plus(Duration.ofDays(20)));
    X509Certificate valid =
        TestCertificates.selfSigned(
            "valid", now.minus(Duration.ofDays(1)), now.plus(Duration.ofDays(1)));
    TwoPhaseSigner signer = new TwoPhaseSigner(null, java.time.InstantSource.system());
    for (TwoPhaseSigner.Format format :
        List.of(
            TwoPhaseSigner.Format.CADES,
            TwoPhaseSigner.Format.PADES,
            TwoPhaseSigner.Format.XADES)) {
      byte[] document = AdesChecks.sampleDocument(format, 1024);
      var e =
          assertThrows(
              SigningCertificateCheck.NotValidAtSigningDate.class,
              () ->
                  signer.start(
                      format,
                      new InMemoryDocument(document),
                      List.of(expired),
                      SignaturePackaging.DETACHED));
      assertTrue(
          e.getMessage().contains("CN=expired") && e.getMessage().contains("expired on"),
          e.getMessage());
      e =
          assertThrows(
              SigningCertificateCheck.NotValidAtSigningDate.class,
              () ->
                  signer.start(
                      format,
                      new InMemoryDocument(document),
                      List.of(future),
                      SignaturePackaging.DETACHED));
      assertTrue(
          e.getMessage().contains("CN=future") && e.getMessage().contains("not valid before"),
          e.getMessage());
      assertDoesNotThrow(
          () ->
              signer.start(
                  format,
                  new InMemoryDocument(document),
                  List.of(valid),
                  SignaturePackaging.DETACHED),
          format.flag);
    }
  }
}
