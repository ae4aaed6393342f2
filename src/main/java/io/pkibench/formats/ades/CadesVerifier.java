package io.pkibench.formats.ades;

import io.pkibench.keys.SigningKey;
import java.security.SignatureException;
import java.security.cert.X509Certificate;
import java.util.Collection;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;

/** The independent check of a CAdES signature: BouncyCastle, not DSS, which made it. */
public final class CadesVerifier {
  private CadesVerifier() {}

  /** CAdES-B-B: BouncyCastle's verdict on the CMS, the signer's signature over {@code content}. */
  public static void check(byte[] cms, byte[] content, SigningKey key) throws Exception {
    verifiedSigner(cms, content, key);
  }

  /**
   * CAdES-B-T: the signer's signature, and its signature time-stamp: an RFC 3161 token whose
   * signature verifies, whose TSA certificate chains to {@code tsaTrustAnchor}, and whose imprint
   * is the hash of the SignerInfo's signature value.
   */
  public static void checkTimestamped(
      byte[] cms, byte[] content, SigningKey key, X509Certificate tsaTrustAnchor) throws Exception {
    SignatureTimeStampCheck.check("CAdES", verifiedSigner(cms, content, key), tsaTrustAnchor);
  }

  private static SignerInformation verifiedSigner(byte[] cms, byte[] content, SigningKey key)
      throws Exception {
    CMSSignedData signed = new CMSSignedData(new CMSProcessableByteArray(content), cms);
    Collection<SignerInformation> signerInfos = signed.getSignerInfos().getSigners();
    if (signerInfos.size() != 1)
      throw new SignatureException("expected one SignerInfo, found " + signerInfos.size());
    SignerInformation info = signerInfos.iterator().next();
    if (!info.verify(new JcaSimpleSignerInfoVerifierBuilder().build(key.certificate()))) {
      throw new SignatureException("the CAdES signature does not verify with BouncyCastle");
    }
    return info;
  }
}
