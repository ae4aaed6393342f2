package io.pkibench.formats.ades;

import io.pkibench.keys.SigningKey;
import java.security.SignatureException;
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

  /** PDFBox finds the last signature and its byte range; BouncyCastle verifies the CMS over those bytes. */
  public static void check(byte[] signedPdf, SigningKey key) throws Exception {
    try (PDDocument doc = Loader.loadPDF(signedPdf)) {
      PDSignature signature = doc.getLastSignatureDictionary();
      if (signature == null) throw new SignatureException("the signed PDF has no signature dictionary");
      byte[] signedContent = signature.getSignedContent(signedPdf);
      CMSSignedData cms = new CMSSignedData(new CMSProcessableByteArray(signedContent), signature.getContents(signedPdf));
      SignerInformation info = cms.getSignerInfos().getSigners().iterator().next();
      if (!info.verify(new JcaSimpleSignerInfoVerifierBuilder().build(key.certificate()))) {
        throw new SignatureException("the PAdES signature does not verify with BouncyCastle");
      }
    }
  }
}
