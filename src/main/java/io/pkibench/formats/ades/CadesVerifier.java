package io.pkibench.formats.ades;

import io.pkibench.keys.SigningKey;
import java.security.SignatureException;
import java.util.Collection;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;

/** The independent check of a CAdES signature: BouncyCastle, not DSS, which made it. */
public final class CadesVerifier {
  private CadesVerifier() {}

  /** BouncyCastle's verdict on the CMS: the signer's signature, and for B-T the time-stamp token over it. */
  public static void check(byte[] cms, byte[] content, SigningKey key, boolean expectTimestamp) throws Exception {
    CMSSignedData signed = new CMSSignedData(new CMSProcessableByteArray(content), cms);
    Collection<SignerInformation> signerInfos = signed.getSignerInfos().getSigners();
    if (signerInfos.size() != 1) throw new SignatureException("expected one SignerInfo, found " + signerInfos.size());
    SignerInformation info = signerInfos.iterator().next();
    if (!info.verify(new JcaSimpleSignerInfoVerifierBuilder().build(key.certificate()))) {
      throw new SignatureException("the CAdES signature does not verify with BouncyCastle");
    }
    if (expectTimestamp) {
      var attributes = info.getUnsignedAttributes();
      var stamp = attributes == null ? null : attributes.get(org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers.id_aa_signatureTimeStampToken);
      if (stamp == null) throw new SignatureException("CAdES-B-T without a signature time-stamp");
    }
  }
}
