package io.pkibench.formats.ades;

import io.pkibench.keys.SigningKey;
import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.security.SignatureException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.interactive.digitalsignature.PDSignature;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.SignerInformationVerifier;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;
import org.bouncycastle.util.Selector;

/** The independent check of a PAdES signature: PDFBox and BouncyCastle, not DSS, which made it. */
public final class PadesVerifier {
  private PadesVerifier() {}

  /**
   * PAdES-B-B: PDFBox finds the last signature and its byte range; the signed file must be {@code
   * sentPdf} followed by the signature's own incremental update only, the byte range covering the
   * whole file but the signature's /Contents; BouncyCastle verifies the CMS over those bytes.
   */
  public static void check(byte[] signedPdf, byte[] sentPdf, SigningKey key) throws Exception {
    verifiedSigner(signedPdf, sentPdf, key.certificate());
  }

  /**
   * As {@link #check(byte[], byte[], SigningKey)} for a service whose key is known only by its
   * public key or certificate (an {@code api} spec's {@code key:}): the signature must verify under
   * {@code key}.
   */
  public static void check(byte[] signedPdf, byte[] sentPdf, PublicKey key) throws Exception {
    verifiedSigner(
        signedPdf, sentPdf, (cms, info) -> new JcaSimpleSignerInfoVerifierBuilder().build(key));
  }

  /**
   * As {@link #check(byte[], byte[], PublicKey)}, the signer being the certificate the CMS carries
   * for it, which must chain to {@code trust} (an {@code api} spec's {@code trust:}).
   */
  public static void check(byte[] signedPdf, byte[] sentPdf, CertificateTrust trust)
      throws Exception {
    verifiedSigner(
        signedPdf,
        sentPdf,
        (cms, info) -> {
          JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
          @SuppressWarnings("unchecked")
          var matches =
              cms.getCertificates().getMatches((Selector<X509CertificateHolder>) info.getSID());
          if (matches.isEmpty())
            throw new SignatureException("the PDF's CMS does not carry its signer's certificate");
          List<X509Certificate> carried = new ArrayList<>();
          for (X509CertificateHolder h : cms.getCertificates().getMatches(null))
            carried.add(converter.getCertificate(h));
          X509Certificate signer = converter.getCertificate(matches.iterator().next());
          trust.check(signer, carried, new Date());
          return new JcaSimpleSignerInfoVerifierBuilder().build(signer);
        });
  }

  /** Who the PDF's one SignerInfo is verified against. */
  private interface SignerKey {
    SignerInformationVerifier verifierFor(CMSSignedData cms, SignerInformation info)
        throws Exception;
  }

  private static SignerInformation verifiedSigner(
      byte[] signedPdf, byte[] sentPdf, X509Certificate certificate) throws Exception {
    return verifiedSigner(
        signedPdf,
        sentPdf,
        (cms, info) -> new JcaSimpleSignerInfoVerifierBuilder().build(certificate));
  }

  /**
   * PAdES-B-T: the signature as at B-B, and the signature time-stamp inside its CMS: an RFC 3161
   * token whose signature verifies, whose TSA certificate chains to {@code tsaTrustAnchor}, and
   * whose imprint is the hash of the SignerInfo's signature value.
   */
  public static void checkTimestamped(
      byte[] signedPdf, byte[] sentPdf, SigningKey key, X509Certificate tsaTrustAnchor)
      throws Exception {
    SignatureTimeStampCheck.check(
        "PAdES", verifiedSigner(signedPdf, sentPdf, key.certificate()), tsaTrustAnchor);
  }

  private static SignerInformation verifiedSigner(
      byte[] signedPdf, byte[] sentPdf, SignerKey signerKey) throws Exception {
    try (PDDocument doc = Loader.loadPDF(signedPdf)) {
      PDSignature signature = doc.getLastSignatureDictionary();
      if (signature == null)
        throw new SignatureException("the signed PDF has no signature dictionary");
      byte[] signedContent = signature.getSignedContent(signedPdf);
      CMSSignedData cms =
          new CMSSignedData(
              new CMSProcessableByteArray(signedContent), signature.getContents(signedPdf));
      var signers = cms.getSignerInfos().getSigners();
      if (signers.size() != 1)
        throw new SignatureException(
            "expected one SignerInfo in the PDF's CMS, found " + signers.size());
      SignerInformation info = signers.iterator().next();
      if (!info.verify(signerKey.verifierFor(cms, info))) {
        throw new SignatureException("the PAdES signature does not verify with BouncyCastle");
      }
      requireSentPdfPlusOwnUpdate(signedPdf, sentPdf, signature.getByteRange());
      return info;
    }
  }

  /**
   * A valid signature proves nothing about the document sent unless the signed revision is that
   * document plus the signature's own update, and nothing was appended after it: an incremental
   * update after signing can change every page a viewer shows while the byte range still verifies.
   */
  static void requireSentPdfPlusOwnUpdate(byte[] signedPdf, byte[] sentPdf, int[] byteRange)
      throws SignatureException {
    if (byteRange == null || byteRange.length != 4)
      throw new SignatureException(
          "the PDF signature's /ByteRange is not four numbers: " + Arrays.toString(byteRange));
    long firstStart = byteRange[0];
    long holeStart = firstStart + byteRange[1];
    long holeEnd = byteRange[2];
    long coveredEnd = holeEnd + byteRange[3];
    if (firstStart != 0)
      throw new SignatureException(
          "the PDF signature's byte range starts at byte " + firstStart + ", not 0");
    if (coveredEnd != signedPdf.length)
      throw new SignatureException(
          "the PDF signature's byte range ends at byte "
              + coveredEnd
              + " of "
              + signedPdf.length
              + ": bytes "
              + coveredEnd
              + " to "
              + signedPdf.length
              + " are not covered (an update appended after signing)");
    if (holeEnd < holeStart
        || signedPdf[(int) holeStart] != '<'
        || signedPdf[(int) holeEnd - 1] != '>')
      throw new SignatureException(
          "the PDF signature's byte range leaves out bytes "
              + holeStart
              + " to "
              + holeEnd
              + ", which are not its /Contents hex string");
    int differs = Arrays.mismatch(signedPdf, sentPdf);
    if (differs >= 0 && differs < sentPdf.length)
      throw new SignatureException(
          "the signed revision is not the PDF sent: it differs from it at byte "
              + differs
              + " of the "
              + sentPdf.length
              + " sent");
    if (holeStart < sentPdf.length)
      throw new SignatureException(
          "the PDF's last signature is not in an update appended to the PDF sent: its /Contents"
              + " starts at byte "
              + holeStart
              + ", inside the "
              + sentPdf.length
              + " bytes sent");
    // An update slipped in between the PDF sent and the signature's own (a page turned, a form
    // filled) is signed too, so the byte range alone cannot see it; every update ends in '%%EOF'
    // (ISO 32000-1 7.5.6), and the /Contents hole is hex digits, so counting the markers outside
    // it counts the updates.
    int updates =
        count(signedPdf, EOF_MARKER, sentPdf.length, (int) holeStart)
            + count(signedPdf, EOF_MARKER, (int) holeEnd, signedPdf.length);
    if (updates != 1)
      throw new SignatureException(
          "the signed revision is not the PDF sent plus the signature's own update: "
              + updates
              + " updates follow the "
              + sentPdf.length
              + " bytes sent ("
              + updates
              + " '%%EOF' markers), the signature's own is the only one allowed");
  }

  private static final byte[] EOF_MARKER = "%%EOF".getBytes(StandardCharsets.US_ASCII);

  private static int count(byte[] in, byte[] marker, int from, int to) {
    int found = 0;
    for (int i = from; i + marker.length <= to; i++) {
      if (Arrays.equals(in, i, i + marker.length, marker, 0, marker.length)) found++;
    }
    return found;
  }
}
