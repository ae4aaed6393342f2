package io.pkibench.formats.ades;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.keys.SigningKey;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Workload;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SignatureException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.interactive.digitalsignature.PDSignature;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.DERSet;
import org.bouncycastle.asn1.cms.Attribute;
import org.bouncycastle.asn1.cms.AttributeTable;
import org.bouncycastle.asn1.cms.ContentInfo;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.SignerInformationStore;
import org.bouncycastle.tsp.TimeStampRequestGenerator;
import org.bouncycastle.tsp.TimeStampResponse;
import org.bouncycastle.tsp.TimeStampToken;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The B-T checks of CAdES and PAdES given each fault a signature time-stamp can have, planted in
 * the unsigned attribute of a signature DSS made with the real TSA; the untouched token is the one
 * {@code openssl ts -verify} accepts.
 */
class SignatureTimeStampCheckTest {
  @TempDir static Path tmp;
  static TestKeys fixture;

  /** Another test PKI, whose TSA is a real one our root never certified. */
  static TestKeys elsewhere;

  static SigningKey signer;
  static X509Certificate root;
  static byte[] content;
  static byte[] cadesT;
  static byte[] padesT;

  /** What is wrong with the planted token, and the words the check must say it with. */
  enum Fault {
    OTHER_IMPRINT(
        "signature time-stamp is over another imprint than the hash of the signature value"),
    UNTRUSTED_TSA("signature time-stamp's TSA certificate does not chain to the trust anchor"),
    NOT_A_TOKEN("signature time-stamp is not an RFC 3161 token"),
    FLIPPED_TOKEN_SIGNATURE("signature time-stamp does not verify with its TSA certificate"),
    /**
     * A real token over the right imprint whose TSA left its certificate out (the request did not
     * ask for it).
     */
    NO_TSA_CERTIFICATE("signature time-stamp carries no TSA certificate"),
    /** The attribute holds two tokens: which one counts is not for a verifier to guess. */
    TWO_TOKENS("signature time-stamp attribute holds 2 values, not one token");

    final String message;

    Fault(String message) {
      this.message = message;
    }
  }

  @BeforeAll
  static void setUp() throws Exception {
    fixture = TestKeys.in(tmp.resolve("ours"));
    elsewhere = TestKeys.in(tmp.resolve("elsewhere"));
    signer = fixture.keys.key("signer-rsa2048-1");
    root = fixture.pki.certificate("root-ca");
    content = AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, 4096);
    TwoPhaseSigner signing =
        new TwoPhaseSigner(
            new TimeStampAuthority(fixture.keys.key("tsa"), InstantSource.system()),
            InstantSource.system());
    cadesT =
        signing.sign(
            TwoPhaseSigner.Format.CADES_T,
            new InMemoryDocument(content, "doc.bin"),
            signer,
            SignaturePackaging.DETACHED);
    padesT =
        signing.sign(
            TwoPhaseSigner.Format.PADES_T,
            new InMemoryDocument(SamplePdf.generate(), "sample.pdf"),
            signer,
            null);
  }

  @Test
  void checkTimestamped_cadesTAndPadesTAsSigned_accepted() throws Exception {
    CadesVerifier.checkTimestamped(cadesT, content, signer, root);
    PadesVerifier.checkTimestamped(padesT, SamplePdf.generate(), signer, root);
  }

  @ParameterizedTest
  @EnumSource(Fault.class)
  void checkTimestamped_cadesTokenWithPlantedFault_rejectedNamingTheFault(Fault fault)
      throws Exception {
    byte[] planted = withTimeStamp(cadesT, fault);
    var e =
        assertThrows(
            SignatureException.class,
            () -> CadesVerifier.checkTimestamped(planted, content, signer, root));
    assertTrue(e.getMessage().startsWith("the CAdES " + fault.message), e.getMessage());
    // the HTTP client workloads reach the same check through AdesChecks
    var viaFormat =
        assertThrows(
            SignatureException.class,
            () -> AdesChecks.check(TwoPhaseSigner.Format.CADES_T, planted, content, signer, root));
    assertEquals(e.getMessage(), viaFormat.getMessage());
    CadesVerifier.check(
        planted, content,
        signer); // the signature itself is untouched: only the time-stamp is at fault
  }

  @ParameterizedTest
  @EnumSource(Fault.class)
  void checkTimestamped_padesTokenWithPlantedFault_rejectedNamingTheFault(Fault fault)
      throws Exception {
    byte[] planted = withCms(padesT, withTimeStamp(cmsOf(padesT), fault));
    var e =
        assertThrows(
            SignatureException.class,
            () -> PadesVerifier.checkTimestamped(planted, SamplePdf.generate(), signer, root));
    assertTrue(e.getMessage().startsWith("the PAdES " + fault.message), e.getMessage());
    var viaFormat =
        assertThrows(
            SignatureException.class,
            () ->
                AdesChecks.check(
                    TwoPhaseSigner.Format.PADES_T, planted, SamplePdf.generate(), signer, root));
    assertEquals(e.getMessage(), viaFormat.getMessage());
    PadesVerifier.check(planted, SamplePdf.generate(), signer);
  }

  /**
   * A TSA behind a key source can be made to sign badly or to be another PKI's (the workload tests
   * run those), but not to stamp another imprint or to answer noise: each planted token is checked
   * here in a run, which must count every operation failed and go on.
   */
  @ParameterizedTest
  @EnumSource(Fault.class)
  void run_cadesTokenWithPlantedFault_everyOperationCountedFailed(Fault fault) throws Exception {
    byte[] planted = withTimeStamp(cadesT, fault);
    Workload checking =
        worker -> () -> CadesVerifier.checkTimestamped(planted, content, signer, root);
    MeasuredRun.of(
            "cades-t check, " + fault,
            checking,
            Duration.ofMillis(400)) // the first, cold, takes a few hundred ms on a loaded machine
        .assertEveryFailedWith("the CAdES " + fault.message);
  }

  @Test
  void checkTimestamped_bbSignatureWithoutTimeStamp_rejected() throws Exception {
    byte[] bb =
        new TwoPhaseSigner(null, InstantSource.system())
            .sign(
                TwoPhaseSigner.Format.CADES,
                new InMemoryDocument(content, "doc.bin"),
                signer,
                SignaturePackaging.DETACHED);
    var e =
        assertThrows(
            SignatureException.class,
            () -> CadesVerifier.checkTimestamped(bb, content, signer, root));
    assertEquals("CAdES-B-T without a signature time-stamp", e.getMessage());
  }

  @Test
  void checkTimestamped_tsaTrustAnchorOfAnotherPki_rejected() throws Exception {
    var e =
        assertThrows(
            SignatureException.class,
            () ->
                CadesVerifier.checkTimestamped(
                    cadesT, content, signer, elsewhere.pki.certificate("root-ca")));
    assertTrue(
        e.getMessage().startsWith("the CAdES " + Fault.UNTRUSTED_TSA.message), e.getMessage());
  }

  /**
   * openssl, an implementation independent of BouncyCastle, agrees: the token DSS embedded stamps
   * the signature value and chains to our root; one over another imprint does not verify.
   */
  @Test
  void cadesTToken_opensslTsVerifyAcceptsItOverTheSignatureValueAndRejectsAnotherImprint()
      throws Exception {
    SignerInformation info = signerOf(new CMSSignedData(cadesT));
    Path signatureValue = Files.write(tmp.resolve("signature-value.bin"), info.getSignature());
    Path token = Files.write(tmp.resolve("token.der"), tokenOf(info).getEncoded());
    String ok =
        Openssl.run(
            "ts",
            "-verify",
            "-token_in",
            "-in",
            token.toString(),
            "-data",
            signatureValue.toString(),
            "-CAfile",
            fixture.pki.certificatePem("root-ca").toString(),
            "-untrusted",
            fixture.pki.caChainPem().toString());
    assertTrue(Openssl.succeeded(ok) && ok.contains("Verification: OK"), ok);

    Path otherImprint =
        Files.write(
            tmp.resolve("other-imprint.der"),
            plantedToken(Fault.OTHER_IMPRINT, info).toASN1Primitive().getEncoded());
    String bad =
        Openssl.run(
            "ts",
            "-verify",
            "-token_in",
            "-in",
            otherImprint.toString(),
            "-data",
            signatureValue.toString(),
            "-CAfile",
            fixture.pki.certificatePem("root-ca").toString(),
            "-untrusted",
            fixture.pki.caChainPem().toString());
    assertFalse(Openssl.succeeded(bad), "openssl must reject a token over another imprint: " + bad);
    assertTrue(bad.contains("message imprint mismatch"), bad);
  }

  /** The CMS with its SignerInfo's signature time-stamp replaced by one with {@code fault}. */
  static byte[] withTimeStamp(byte[] cms, Fault fault) throws Exception {
    CMSSignedData signed = new CMSSignedData(cms);
    SignerInformation info = signerOf(signed);
    ASN1Encodable[] values =
        fault == Fault.TWO_TOKENS
            ? new ASN1Encodable[] {
              plantedToken(Fault.NO_TSA_CERTIFICATE, info),
              plantedToken(Fault.NO_TSA_CERTIFICATE, info)
            } // without certificates: the PDF's room holds both
            : new ASN1Encodable[] {plantedToken(fault, info)};
    var attributes =
        info.getUnsignedAttributes()
            .remove(PKCSObjectIdentifiers.id_aa_signatureTimeStampToken)
            .toASN1EncodableVector();
    attributes.add(
        new Attribute(PKCSObjectIdentifiers.id_aa_signatureTimeStampToken, new DERSet(values)));
    SignerInformation replaced =
        SignerInformation.replaceUnsignedAttributes(info, new AttributeTable(attributes));
    return CMSSignedData.replaceSigners(signed, new SignerInformationStore(replaced)).getEncoded();
  }

  static ASN1Encodable plantedToken(Fault fault, SignerInformation info) throws Exception {
    return switch (fault) {
      case OTHER_IMPRINT ->
          stamp(
              new TimeStampAuthority(fixture.keys.key("tsa"), InstantSource.system()),
              "not this signature's value".getBytes(StandardCharsets.UTF_8));
      case UNTRUSTED_TSA ->
          stamp(
              new TimeStampAuthority(elsewhere.keys.key("tsa"), InstantSource.system()),
              info.getSignature());
      case NO_TSA_CERTIFICATE ->
          stamp(
              new TimeStampAuthority(fixture.keys.key("tsa"), InstantSource.system()),
              info.getSignature(),
              false);
      case TWO_TOKENS ->
          throw new IllegalArgumentException("two tokens are planted by withTimeStamp");
      case NOT_A_TOKEN -> {
        byte[] noise = new byte[2048];
        new SplittableRandom(34).nextBytes(noise);
        yield new DEROctetString(noise);
      }
      case FLIPPED_TOKEN_SIGNATURE -> {
        TimeStampToken real = tokenOf(info);
        byte[] der = real.getEncoded();
        byte[] tokenSignature =
            real.toCMSSignedData().getSignerInfos().getSigners().iterator().next().getSignature();
        int at = indexOf(der, tokenSignature);
        der[at + tokenSignature.length / 2] ^= 0x01;
        yield ContentInfo.getInstance(der);
      }
    };
  }

  /** A real token from {@code authority} over SHA-256 of {@code stamped}. */
  static ContentInfo stamp(TimeStampAuthority authority, byte[] stamped) throws Exception {
    return stamp(authority, stamped, true);
  }

  /**
   * {@code withCertificate}: the request's certReq, without which the TSA leaves its certificate
   * out of the token.
   */
  static ContentInfo stamp(TimeStampAuthority authority, byte[] stamped, boolean withCertificate)
      throws Exception {
    TimeStampRequestGenerator requests = new TimeStampRequestGenerator();
    requests.setCertReq(withCertificate);
    var request =
        requests.generate(
            NISTObjectIdentifiers.id_sha256,
            MessageDigest.getInstance("SHA-256").digest(stamped),
            BigInteger.ONE);
    TimeStampResponse response = new TimeStampResponse(authority.respond(request.getEncoded()));
    return response.getTimeStampToken().toCMSSignedData().toASN1Structure();
  }

  static TimeStampToken tokenOf(SignerInformation info) throws Exception {
    var attribute =
        info.getUnsignedAttributes().get(PKCSObjectIdentifiers.id_aa_signatureTimeStampToken);
    return new TimeStampToken(ContentInfo.getInstance(attribute.getAttrValues().getObjectAt(0)));
  }

  static SignerInformation signerOf(CMSSignedData signed) {
    return signed.getSignerInfos().getSigners().iterator().next();
  }

  static byte[] cmsOf(byte[] pdf) throws Exception {
    try (PDDocument doc = Loader.loadPDF(pdf)) {
      return doc.getLastSignatureDictionary().getContents(pdf);
    }
  }

  /**
   * The PDF with {@code cms} written into its signature's /Contents, padded with zeros as DSS pads
   * it. The byte range leaves /Contents out, so the PDF's signature still covers the same bytes.
   */
  static byte[] withCms(byte[] pdf, byte[] cms) throws Exception {
    int[] range;
    try (PDDocument doc = Loader.loadPDF(pdf)) {
      PDSignature signature = doc.getLastSignatureDictionary();
      range = signature.getByteRange();
    }
    int from = range[1] + 1; // after '<'
    int to = range[2] - 1; // before '>'
    byte[] hex = HexFormat.of().withUpperCase().formatHex(cms).getBytes(StandardCharsets.US_ASCII);
    assertTrue(
        hex.length <= to - from,
        "the planted CMS (" + hex.length + " hex digits) fits the " + (to - from) + " reserved");
    byte[] out = pdf.clone();
    Arrays.fill(out, from, to, (byte) '0');
    System.arraycopy(hex, 0, out, from, hex.length);
    return out;
  }

  static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
      return i;
    }
    throw new AssertionError("the token's signature value is not in its encoding");
  }
}
