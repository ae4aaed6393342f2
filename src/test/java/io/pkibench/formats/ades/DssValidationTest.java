package io.pkibench.formats.ades;

import static org.junit.jupiter.api.Assertions.assertEquals;

import eu.europa.esig.dss.enumerations.Indication;
import eu.europa.esig.dss.enumerations.SignatureLevel;
import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.model.FileDocument;
import eu.europa.esig.dss.model.InMemoryDocument;
import eu.europa.esig.dss.model.x509.CertificateToken;
import eu.europa.esig.dss.spi.validation.CommonCertificateVerifier;
import eu.europa.esig.dss.spi.x509.CommonCertificateSource;
import eu.europa.esig.dss.spi.x509.CommonTrustedCertificateSource;
import eu.europa.esig.dss.spi.x509.revocation.crl.ExternalResourcesCRLSource;
import eu.europa.esig.dss.validation.SignedDocumentValidator;
import eu.europa.esig.dss.validation.reports.Reports;
import io.pkibench.keys.KeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DSS's own ETSI validation of what the two-phase signer makes: TOTAL_PASSED at the level asked
 * for, trust and revocation checked.
 */
class DssValidationTest {
  @TempDir static Path tmp;
  static TestKeys fixture;
  static TestPki pki;
  static KeySource keys;
  static TwoPhaseSigner signer;

  @BeforeAll
  static void setUp() throws Exception {
    fixture = TestKeys.in(tmp);
    pki = fixture.pki;
    keys = fixture.keys;
    signer =
        new TwoPhaseSigner(
            new TimeStampAuthority(keys.key("tsa"), InstantSource.system()),
            InstantSource.system());
  }

  static Reports validate(byte[] signed, byte[] detachedContent) {
    SignedDocumentValidator validator =
        SignedDocumentValidator.fromDocument(new InMemoryDocument(signed));
    if (detachedContent != null)
      validator.setDetachedContents(List.of(new InMemoryDocument(detachedContent)));
    CommonCertificateVerifier verifier = new CommonCertificateVerifier();
    CommonTrustedCertificateSource trusted = new CommonTrustedCertificateSource();
    trusted.addCertificate(new CertificateToken(pki.certificate("root-ca")));
    verifier.setTrustedCertSources(trusted);
    CommonCertificateSource intermediates = new CommonCertificateSource();
    intermediates.addCertificate(new CertificateToken(pki.certificate("intermediate-a")));
    intermediates.addCertificate(new CertificateToken(pki.certificate("intermediate-b")));
    verifier.setAdjunctCertSources(intermediates);
    // The CRLs as a server that downloaded them would have them: offline, no network.
    verifier.setCrlSource(
        new ExternalResourcesCRLSource(
            new FileDocument(pki.crl("intermediate-a").toFile()),
            new FileDocument(pki.crl("intermediate-b").toFile()),
            new FileDocument(pki.crl("root-ca").toFile())));
    validator.setCertificateVerifier(verifier);
    return validator.validateDocument();
  }

  void assertPassedAt(byte[] signed, byte[] content, SignatureLevel level) {
    Reports reports = validate(signed, content);
    var simple = reports.getSimpleReport();
    String id = simple.getFirstSignatureId();
    assertEquals(
        Indication.TOTAL_PASSED,
        simple.getIndication(id),
        level + ": " + simple.getSubIndication(id) + " " + simple.getAdESValidationErrors(id));
    assertEquals(level, simple.getSignatureFormat(id));
  }

  @Test
  void everyFormat_totalPassedAtItsLevel() throws Exception {
    byte[] content = AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, 4096);
    var key = keys.key("signer-rsa2048-2");
    assertPassedAt(
        signer.sign(
            TwoPhaseSigner.Format.CADES,
            new InMemoryDocument(content),
            key,
            SignaturePackaging.DETACHED),
        content,
        SignatureLevel.CAdES_BASELINE_B);
    assertPassedAt(
        signer.sign(
            TwoPhaseSigner.Format.CADES_T,
            new InMemoryDocument(content),
            key,
            SignaturePackaging.DETACHED),
        content,
        SignatureLevel.CAdES_BASELINE_T);
    byte[] pdf = SamplePdf.generate();
    assertPassedAt(
        signer.sign(TwoPhaseSigner.Format.PADES, new InMemoryDocument(pdf), key, null),
        null,
        SignatureLevel.PAdES_BASELINE_B);
    assertPassedAt(
        signer.sign(TwoPhaseSigner.Format.PADES_T, new InMemoryDocument(pdf), key, null),
        null,
        SignatureLevel.PAdES_BASELINE_T);
    byte[] xml = SampleXml.generate(4096);
    assertPassedAt(
        signer.sign(TwoPhaseSigner.Format.XADES, new InMemoryDocument(xml), key, null),
        null,
        SignatureLevel.XAdES_BASELINE_B);
  }

  @Test
  void revokedSigner_isNotTotalPassed() throws Exception {
    byte[] content = AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, 1024);
    byte[] signed =
        signer.sign(
            TwoPhaseSigner.Format.CADES,
            new InMemoryDocument(content),
            keys.key("signer-rsa2048-revoked"),
            SignaturePackaging.DETACHED);
    var simple = validate(signed, content).getSimpleReport();
    String id = simple.getFirstSignatureId();
    assertEquals(
        Indication.INDETERMINATE,
        simple.getIndication(id),
        "revoked, and no proof the signature came before: " + simple.getSubIndication(id));
    assertEquals(
        eu.europa.esig.dss.enumerations.SubIndication.REVOKED_NO_POE, simple.getSubIndication(id));
  }
}
