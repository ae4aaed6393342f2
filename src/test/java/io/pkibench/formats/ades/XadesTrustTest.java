package io.pkibench.formats.ades;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.testing.TestKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SignatureException;
import java.security.cert.CertificateException;
import java.time.InstantSource;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An api spec's {@code xades: trust:}: the signer is the certificate the signature carries, named
 * by its signed properties, chained to the bundle given. DSS's own XAdES signature is accepted; a
 * bundle vouching for another signer, a certificate swapped into the KeyInfo and a signature
 * carrying none are refused, each saying why.
 */
class XadesTrustTest {
  @TempDir static Path tmp;
  static TestKeys fixture;
  static byte[] sent;
  static byte[] signed;

  @BeforeAll
  static void sign() throws Exception {
    fixture = TestKeys.in(tmp.resolve("pki"));
    sent = AdesChecks.sampleDocument(TwoPhaseSigner.Format.XADES, 2048);
    signed =
        new TwoPhaseSigner(null, InstantSource.system())
            .sign(
                TwoPhaseSigner.Format.XADES,
                new InMemoryDocument(sent, "doc.xml"),
                fixture.keys.key("signer-rsa2048-1"),
                null);
  }

  static CertificateTrust trustOf(TestKeys keys) throws Exception {
    return CertificateTrust.of(List.of(keys.pki.certificate("root-ca")));
  }

  @Test
  void check_dssSignatureChainedToItsPki_accepted() throws Exception {
    XadesVerifier.check(signed, sent, trustOf(fixture));
  }

  @Test
  void check_bundleVouchingForAnotherSigner_refusedNamingTheChain() throws Exception {
    // a bundle vouching only for another signer of the same PKI (a bundle without a self-signed
    // certificate is trusted as it is): the signature's own certificate does not chain to it
    CertificateTrust other =
        CertificateTrust.of(List.of(fixture.keys.key("signer-rsa2048-2").certificate()));
    var e =
        assertThrows(CertificateException.class, () -> XadesVerifier.check(signed, sent, other));
    assertTrue(e.getMessage().contains("does not chain to the trusted"), e.getMessage());
  }

  @Test
  void check_anotherCertificateOfTheSamePkiSwappedIntoKeyInfo_refused() throws Exception {
    String mine =
        Base64.getEncoder()
            .encodeToString(fixture.keys.key("signer-rsa2048-1").certificate().getEncoded());
    String theirs =
        Base64.getEncoder()
            .encodeToString(fixture.keys.key("signer-rsa2048-2").certificate().getEncoded());
    byte[] swapped = swapCertificate(new String(signed, StandardCharsets.UTF_8), mine, theirs);
    CertificateTrust trust = trustOf(fixture);
    var e = assertThrows(SignatureException.class, () -> XadesVerifier.check(swapped, sent, trust));
    assertTrue(
        e.getMessage()
            .startsWith(
                "no certificate the XAdES signature carries is the one its signed properties"
                    + " name (by its SHA-"),
        e.getMessage());
  }

  @Test
  void check_signatureCarryingNoCertificate_refusedPointingToKey() throws Exception {
    String xml = new String(signed, StandardCharsets.UTF_8);
    String none =
        xml.replaceAll("(?s)<ds:X509Certificate>.*?</ds:X509Certificate>", "")
            .replaceAll("(?s)<ds:X509Data>\\s*</ds:X509Data>", "");
    var e =
        assertThrows(
            SignatureException.class,
            () ->
                XadesVerifier.check(none.getBytes(StandardCharsets.UTF_8), sent, trustOf(fixture)));
    assertEquals(
        "the XAdES signature carries no certificate (ds:KeyInfo/ds:X509Data/ds:X509Certificate)"
            + " to chain to the trusted certificates: check it with key: instead",
        e.getMessage());
  }

  /** The signer's certificate in KeyInfo replaced by another, however DSS wrapped its base64. */
  static byte[] swapCertificate(String xml, String mine, String theirs) {
    var m = Pattern.compile("(?s)<ds:X509Certificate>(.*?)</ds:X509Certificate>").matcher(xml);
    StringBuilder out = new StringBuilder();
    boolean swapped = false;
    while (m.find()) {
      boolean isMine = m.group(1).replaceAll("\\s", "").equals(mine);
      swapped |= isMine;
      m.appendReplacement(
          out, "<ds:X509Certificate>" + (isMine ? theirs : m.group(1)) + "</ds:X509Certificate>");
    }
    m.appendTail(out);
    assertTrue(swapped, "the signer's certificate is in the KeyInfo");
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }
}
