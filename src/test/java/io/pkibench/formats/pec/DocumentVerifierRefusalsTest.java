package io.pkibench.formats.pec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.SigningKey;
import io.pkibench.testing.TestKeys;
import jakarta.mail.internet.ContentType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.InstantSource;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.bouncycastle.cert.jcajce.JcaCertStore;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedDataGenerator;
import org.bouncycastle.cms.jcajce.JcaSignerInfoGeneratorBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link DocumentVerifier}'s refusals that only a document made to break one rule reaches: a
 * signature of two signers, one without its signer's certificate, and a provider's document whose
 * From names another provider's domain. Each starts from a genuine envelope of pec1.test, which
 * passes when reassembled unchanged (the control), and changes that one thing.
 */
class DocumentVerifierRefusalsTest {
  @TempDir static Path dir;
  static TestKeys keys;
  static PecProvider pec1;
  static PecProvider pec2;
  static SigningKey key1;
  static SigningKey key2;

  @BeforeAll
  static void providers() throws Exception {
    keys = TestKeys.in(dir);
    key1 = keys.keys.key("signer-rsa2048-1");
    key2 = keys.keys.key("signer-rsa2048-2");
    ProviderIndex index =
        new ProviderIndex(Map.of("pec1.test", key1.certificate(), "pec2.test", key2.certificate()));
    InstantSource clock = InstantSource.fixed(Instant.parse("2026-11-23T09:30:00Z"));
    pec1 =
        new PecProvider("pec1.test", "Gestore uno", key1, index, clock, ZoneId.of("Europe/Rome"));
    pec2 =
        new PecProvider("pec2.test", "Gestore due", key2, index, clock, ZoneId.of("Europe/Rome"));
  }

  /** A genuine envelope of pec1.test, cut into its header block, body and boundary. */
  record Envelope(String headers, byte[] body, String boundary) {
    static Envelope of(byte[] raw) throws Exception {
      String text = new String(raw, StandardCharsets.ISO_8859_1);
      int end = text.indexOf("\r\n\r\n");
      String headers = text.substring(0, end);
      String contentType = PecProviderTest.parse(raw).getContentType().replaceAll("\\s+", " ");
      return new Envelope(
          headers,
          Arrays.copyOfRange(raw, end + 4, raw.length),
          new ContentType(contentType).getParameter("boundary"));
    }

    ClearSigned.Parts parts() {
      return ClearSigned.split(body, boundary);
    }

    /** The same headers and signed part, with {@code signatureDer} as the signature. */
    byte[] signedBy(String headerBlock, byte[] signatureDer) {
      return ClearSigned.message(
          List.of(headerBlock), parts().signedPart(), signatureDer, boundary);
    }
  }

  private static Envelope envelope(String job) throws Exception {
    byte[] message =
        PecMessages.message(
            "alice@pec1.test", "bob@pec2.test", "<" + job + "@pec1.test>", "Fattura", 4000, 7);
    return Envelope.of(
        pec1.accept(job, "alice@pec1.test", List.of("bob@pec2.test"), message).get(1).bytes());
  }

  /** A detached CMS signature over {@code content} by each of {@code signers}. */
  private static byte[] cms(
      byte[] content, List<SigningKey> signers, List<SigningKey> certificatesOf) throws Exception {
    CMSSignedDataGenerator generator = new CMSSignedDataGenerator();
    var digests = new JcaDigestCalculatorProviderBuilder().build();
    for (SigningKey k : signers)
      generator.addSignerInfoGenerator(
          new JcaSignerInfoGeneratorBuilder(digests)
              .build(
                  new JcaContentSignerBuilder("SHA256withRSA").build(k.privateKey()),
                  k.certificate()));
    List<X509Certificate> certificates = new ArrayList<>();
    for (SigningKey k : certificatesOf) certificates.add(k.certificate());
    if (!certificates.isEmpty()) generator.addCertificates(new JcaCertStore(certificates));
    return generator.generate(new CMSProcessableByteArray(content), false).getEncoded();
  }

  @Test
  void verify_reassembledUnchangedOrResignedByOneSigner_verified() throws Exception {
    Envelope e = envelope("control");
    Verification same = pec2.verify(e.signedBy(e.headers(), e.parts().signature()));
    assertTrue(same.verified(), "the envelope reassembled as it was: " + same.problem());
    Verification resigned =
        pec2.verify(
            e.signedBy(e.headers(), cms(e.parts().signedPart(), List.of(key1), List.of(key1))));
    assertTrue(resigned.verified(), "signed again by pec1 alone, here: " + resigned.problem());
    assertEquals("pec1.test", resigned.signedBy().orElseThrow());
  }

  @Test
  void verify_twoSigners_refusedAsNotOneSigner() throws Exception {
    Envelope e = envelope("two-signers");
    Verification v =
        pec2.verify(
            e.signedBy(
                e.headers(),
                cms(e.parts().signedPart(), List.of(key1, key2), List.of(key1, key2))));
    assertFalse(v.verified(), "two signers, both providers of the index, each signature good");
    assertEquals("the signature has 2 signers, not one", v.problem());
    assertTrue(v.securityFailure(), v.problem());
  }

  @Test
  void verify_signerCertificateLeftOut_refusedAsCarryingNone() throws Exception {
    Envelope e = envelope("no-certificate");
    Verification v =
        pec2.verify(e.signedBy(e.headers(), cms(e.parts().signedPart(), List.of(key1), List.of())));
    assertFalse(v.verified());
    assertEquals("the signature carries no signer certificate", v.problem());
  }

  @Test
  void verify_fromInAnotherProvidersDomain_refusedNamingBoth() throws Exception {
    Envelope e = envelope("from-elsewhere");
    // From is outside the signed part: changed, the signature still verifies; only the rule on the
    // signer's domain refuses it
    String headers =
        e.headers().replace("<posta-certificata@pec1.test>", "<posta-certificata@pec2.test>");
    assertNotEquals(e.headers(), headers, "the test changed From");
    Verification v = pec2.verify(e.signedBy(headers, e.parts().signature()));
    assertFalse(v.verified());
    assertEquals("signed by the provider of pec1.test but From is in pec2.test", v.problem());
  }
}
