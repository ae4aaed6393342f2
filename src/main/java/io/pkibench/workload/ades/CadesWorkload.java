package io.pkibench.workload.ades;

import eu.europa.esig.dss.cades.CAdESSignatureParameters;
import eu.europa.esig.dss.cades.signature.CAdESService;
import eu.europa.esig.dss.enumerations.DigestAlgorithm;
import eu.europa.esig.dss.enumerations.SignatureAlgorithm;
import eu.europa.esig.dss.enumerations.SignatureLevel;
import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.model.DSSDocument;
import eu.europa.esig.dss.model.InMemoryDocument;
import eu.europa.esig.dss.model.SignatureValue;
import eu.europa.esig.dss.model.ToBeSigned;
import eu.europa.esig.dss.model.x509.CertificateToken;
import eu.europa.esig.dss.spi.validation.CommonCertificateVerifier;
import io.pkibench.keys.SigningKey;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.Operation;
import io.pkibench.workload.ParamSpec;
import io.pkibench.workload.Params;
import io.pkibench.workload.Workload;
import io.pkibench.workload.WorkloadContext;
import io.pkibench.workload.WorkloadFactory;
import java.io.InputStream;
import java.security.Signature;
import java.security.SignatureException;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.SplittableRandom;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;

/**
 * A CAdES baseline signature made the way two-phase signing services make it: DSS computes the
 * signed attributes to sign ({@code getDataToSign}), the key source's provider signs them, DSS
 * assembles the CMS ({@code signDocument}); for {@code cades-t} it adds an RFC 3161 signature
 * time-stamp from the in-process TSA. With {@code --verify}, BouncyCastle checks the CMS signature
 * (and the time-stamp token) independently of DSS.
 */
public final class CadesWorkload implements Workload {
  private final List<SigningKey> signers;
  private final SignatureLevel level;
  private final SignaturePackaging packaging;
  private final int sizeBytes;
  private final TimeStampAuthority tsa;
  private final boolean verify;

  private CadesWorkload(List<SigningKey> signers, SignatureLevel level, SignaturePackaging packaging, int sizeBytes,
      TimeStampAuthority tsa, boolean verify) {
    this.signers = signers;
    this.level = level;
    this.packaging = packaging;
    this.sizeBytes = sizeBytes;
    this.tsa = tsa;
    this.verify = verify;
  }

  /** {@code cades} (CAdES-B-B) or {@code cades-t} (CAdES-B-T). */
  public static final class Factory implements WorkloadFactory {
    private final boolean timestamped;

    public Factory(boolean timestamped) {
      this.timestamped = timestamped;
    }

    @Override
    public String name() {
      return timestamped ? "cades-t" : "cades";
    }

    @Override
    public String description() {
      return timestamped ? "CAdES-B-T (DSS): signature plus an RFC 3161 signature time-stamp from the in-process TSA"
          : "CAdES-B-B (DSS): getDataToSign, sign with the key source, signDocument";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.free("size", "137k", "bytes of the signed document"),
          ParamSpec.choice("packaging", "detached", "CMS with or without the document inside", "detached", "enveloping"),
          ParamSpec.choice("alg", "rsa2048", "signer key type", "rsa2048", "ecdsa-p256"),
          ParamSpec.choice("certs", "1", "signer certificates used in turn (from both intermediates: different CRLs)", "1", "2", "3", "4"));
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      KeyAlgorithm alg = KeyAlgorithm.parse(params.get("alg"));
      List<SigningKey> signers = new ArrayList<>();
      for (int i = 1; i <= Integer.parseInt(params.get("certs")); i++) signers.add(context.keys().key(Entity.signerAlias(alg, i)));
      TimeStampAuthority tsa = timestamped ? new TimeStampAuthority(context.keys().key("tsa"), InstantSource.system()) : null;
      return new CadesWorkload(signers, timestamped ? SignatureLevel.CAdES_BASELINE_T : SignatureLevel.CAdES_BASELINE_B,
          params.get("packaging").equals("detached") ? SignaturePackaging.DETACHED : SignaturePackaging.ENVELOPING,
          params.bytes("size"), tsa, context.verify());
    }
  }

  /** One signature through DSS, the CMS in DER: what a saved sample and the tests check. */
  public byte[] signOnce(CAdESService service, DSSDocument document, SigningKey key) throws Exception {
    CAdESSignatureParameters parameters = new CAdESSignatureParameters();
    parameters.setSignatureLevel(level);
    parameters.setSignaturePackaging(packaging);
    parameters.setDigestAlgorithm(DigestAlgorithm.SHA256);
    parameters.setSigningCertificate(new CertificateToken(key.certificate()));
    List<CertificateToken> chain = new ArrayList<>();
    for (var c : key.chain()) chain.add(new CertificateToken(c));
    parameters.setCertificateChain(chain);
    parameters.bLevel().setSigningDate(new Date());
    ToBeSigned toBeSigned = service.getDataToSign(document, parameters);
    SignatureAlgorithm algorithm = key.privateKey().getAlgorithm().equals("EC") ? SignatureAlgorithm.ECDSA_SHA256 : SignatureAlgorithm.RSA_SHA256;
    Signature signer = Signature.getInstance(algorithm.getJCEId(), key.provider());
    signer.initSign(key.privateKey());
    signer.update(toBeSigned.getBytes());
    DSSDocument signed = service.signDocument(document, parameters, new SignatureValue(algorithm, signer.sign()));
    try (InputStream in = signed.openStream()) {
      return in.readAllBytes();
    }
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    byte[] content = new byte[sizeBytes];
    new SplittableRandom(worker).nextBytes(content);
    DSSDocument document = new InMemoryDocument(content, "document.bin");
    CAdESService service = new CAdESService(new CommonCertificateVerifier());
    if (tsa != null) service.setTspSource(new InProcessTspSource(tsa));
    int[] turn = {worker};
    return () -> {
      SigningKey key = signers.get(turn[0]++ % signers.size());
      byte[] cms = signOnce(service, document, key);
      if (verify) check(cms, content, key, tsa != null);
    };
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
