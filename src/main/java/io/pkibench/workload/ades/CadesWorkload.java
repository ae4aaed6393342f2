package io.pkibench.workload.ades;

import eu.europa.esig.dss.enumerations.SignaturePackaging;
import io.pkibench.keys.SigningKey;
import io.pkibench.workload.ParamSpec;
import io.pkibench.workload.Params;
import io.pkibench.workload.Workload;
import io.pkibench.workload.WorkloadContext;
import java.security.SignatureException;
import java.util.Collection;
import java.util.List;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;

/**
 * {@code cades} (CAdES-B-B) and {@code cades-t} (CAdES-B-T, with an RFC 3161 signature time-stamp
 * from the in-process TSA) over {@code size} bytes, two-phase through DSS. With {@code --verify},
 * BouncyCastle checks the CMS signature (and that B-T carries its time-stamp) independently of DSS.
 */
public final class CadesWorkload {
  private CadesWorkload() {}

  public static final class Factory extends LevelPairFactory {
    public Factory(boolean timestamped) {
      super("cades", timestamped,
          "CAdES-B-B (DSS): getDataToSign, sign with the key source, signDocument",
          "CAdES-B-T (DSS): signature plus an RFC 3161 signature time-stamp from the in-process TSA");
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.free("size", "137k", "bytes of the signed document"),
          ParamSpec.choice("packaging", "detached", "CMS with or without the document inside", "detached", "enveloping"),
          Signers.ALG,
          Signers.CERTS);
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      byte[] content = AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, params.bytes("size"));
      SignaturePackaging packaging = params.get("packaging").equals("detached") ? SignaturePackaging.DETACHED : SignaturePackaging.ENVELOPING;
      boolean t = timestamped();
      return new AdesWorkload(t ? TwoPhaseSigner.Format.CADES_T : TwoPhaseSigner.Format.CADES,
          Signers.of(context, params), content, "document.bin", packaging, t ? Signers.tsa(context) : null,
          context.verify() ? (signed, original, key) -> check(signed, original, key, t) : null, context.clock());
    }
  }

  /** BouncyCastle's verdict on the CMS: the signer's signature, and for B-T the time-stamp token over it. */
  static void check(byte[] cms, byte[] content, SigningKey key, boolean expectTimestamp) throws Exception {
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
