package io.pkibench.formats.ades;

import io.pkibench.keys.SigningKey;
import java.security.SignatureException;
import java.security.cert.X509Certificate;
import org.apache.pdfbox.Loader;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.interactive.digitalsignature.PDSignature;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;

/** The independent check of a PAdES signature: PDFBox and BouncyCastle, not DSS, which made it. */
public final class PadesVerifier {
  private PadesVerifier() {}

  /**
   * PAdES-B-B: PDFBox finds the last signature and its byte range; BouncyCastle verifies the CMS
   * over those bytes.
   */
  public static void check(byte[] signedPdf, SigningKey key) throws Exception {
    verifiedSigner(signedPdf, key);
  }

  /**
   * PAdES-B-T: the signature as at B-B, and the signature time-stamp inside its CMS: an RFC 3161
   * token whose signature verifies, whose TSA certificate chains to {@code tsaTrustAnchor}, and
   * whose imprint is the hash of the SignerInfo's signature value.
   */
  public static void checkTimestamped(
      byte[] signedPdf, SigningKey key, X509Certificate tsaTrustAnchor) throws Exception {
    SignatureTimeStampCheck.check("PAdES", verifiedSigner(signedPdf, key), tsaTrustAnchor);
  }

  private static SignerInformation verifiedSigner(byte[] signedPdf, SigningKey key)
      throws Exception {
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
      if (!info.verify(new JcaSimpleSignerInfoVerifierBuilder().build(key.certificate()))) {
        throw new SignatureException("the PAdES signature does not verify with BouncyCastle");
      }
      return info;
    }
  }
}
