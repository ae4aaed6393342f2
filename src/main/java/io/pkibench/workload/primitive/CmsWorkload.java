package io.pkibench.workload.primitive;

import io.pkibench.keys.SigningKey;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.SignatureException;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.SplittableRandom;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.cert.jcajce.JcaCertStore;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedData;
import org.bouncycastle.cms.CMSSignedDataGenerator;
import org.bouncycastle.cms.CMSTypedData;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.jcajce.JcaSignerInfoGeneratorBuilder;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.DefaultSignatureAlgorithmIdentifierFinder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;

/**
 * A CMS SignedData (RFC 5652) over {@code size} bytes, signed attributes and the signer's
 * certificate included, with the key of {@code alg}: for ML-DSA the IETF's encoding (RFC 9882: the
 * parameter set's OID, no parameters, SHA-512 message digest), as BouncyCastle writes it. {@code
 * cms-sign} signs (with {@code --verify}, BouncyCastle checks each: one SignerInfo, the content
 * given, the expected signer's certificate); {@code cms-verify} checks one made at set-up.
 */
public final class CmsWorkload implements Workload {
  private static final BouncyCastleProvider BC = new BouncyCastleProvider();
  private final SigningKey key;
  private final KeyAlgorithm algorithm;
  private final int sizeBytes;
  private final boolean sign;
  private final boolean verify;

  private CmsWorkload(
      SigningKey key, KeyAlgorithm algorithm, int sizeBytes, boolean sign, boolean verify) {
    this.key = key;
    this.algorithm = algorithm;
    this.sizeBytes = sizeBytes;
    this.sign = sign;
    this.verify = verify;
  }

  public static final class Factory implements WorkloadFactory {
    private final boolean sign;

    public Factory(boolean sign) {
      this.sign = sign;
    }

    @Override
    public String name() {
      return sign ? "cms-sign" : "cms-verify";
    }

    @Override
    public String description() {
      return sign
          ? "a CMS SignedData (signed attributes, signer's certificate) over size bytes; ML-DSA as RFC 9882"
          : "verifies a CMS SignedData made at set-up, with BouncyCastle";
    }

    @Override
    public List<ParamSpec> params() {
      return new SignWorkload.Factory().params();
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      KeyAlgorithm alg = KeyAlgorithm.parse(params.get("alg"));
      return new CmsWorkload(
          context.keys().key(Entity.signerAlias(alg, 1)),
          alg,
          params.bytes("size"),
          sign,
          context.verify());
    }
  }

  /**
   * The content signature's JCA name: ML-DSA by parameter set (BouncyCastle's CMS picks the OID and
   * digest from it).
   */
  private String contentSignature() {
    return algorithm.isPostQuantum() ? algorithm.jcaKeyType() : algorithm.signatureAlgorithm;
  }

  byte[] signedData(byte[] content) throws Exception {
    var generator = new CMSSignedDataGenerator();
    var signer =
        key.provider().getService("Signature", contentSignature()) != null
                || !algorithm.isPostQuantum()
            ? new JcaContentSignerBuilder(contentSignature())
                .setProvider(key.provider())
                .build(key.privateKey())
            : familySigner();
    generator.addSignerInfoGenerator(
        new JcaSignerInfoGeneratorBuilder(
                new JcaDigestCalculatorProviderBuilder().setProvider(BC).build())
            .build(signer, key.certificate()));
    generator.addCertificates(new JcaCertStore(List.of(key.certificate())));
    return generator.generate(new CMSProcessableByteArray(content), true).getEncoded();
  }

  /**
   * ACCP names only the family ("ML-DSA"), the key fixing the set: its signature, under the set's
   * identifier as BouncyCastle's finder gives it (RFC 9882: the OID, no parameters).
   */
  private ContentSigner familySigner() throws GeneralSecurityException {
    var identifier = new DefaultSignatureAlgorithmIdentifierFinder().find(contentSignature());
    Signature signature = Signature.getInstance(algorithm.signatureAlgorithm, key.provider());
    signature.initSign(key.privateKey());
    var buffer = new ByteArrayOutputStream();
    return new ContentSigner() {
      @Override
      public AlgorithmIdentifier getAlgorithmIdentifier() {
        return identifier;
      }

      @Override
      public OutputStream getOutputStream() {
        return buffer;
      }

      @Override
      public byte[] getSignature() {
        try {
          signature.update(buffer.toByteArray());
          buffer.reset();
          return signature.sign();
        } catch (SignatureException e) {
          throw new IllegalStateException(
              algorithm.flag
                  + " signing by "
                  + key.provider().getName()
                  + " failed: "
                  + e.getMessage(),
              e);
        }
      }
    };
  }

  /**
   * Throws unless {@code encoded} carries exactly one SignerInfo, its encapsulated content is
   * {@code content} (the bytes given to sign) and its signature verifies, with BouncyCastle, under
   * the certificate of {@code expected} (not the one the CMS carries, which a wrong key would bring
   * along).
   */
  static void check(byte[] encoded, byte[] content, SigningKey expected) throws Exception {
    CMSSignedData data = new CMSSignedData(encoded);
    Collection<SignerInformation> signers = data.getSignerInfos().getSigners();
    if (signers.size() != 1)
      throw new SignatureException("expected one SignerInfo in the CMS, found " + signers.size());
    CMSTypedData encapsulated = data.getSignedContent();
    if (encapsulated == null)
      throw new SignatureException("the CMS encapsulates no content: the bytes sent are not in it");
    if (!Arrays.equals((byte[]) encapsulated.getContent(), content))
      throw new SignatureException(
          "the CMS encapsulates other content than the bytes given to sign");
    SignerInformation signer = signers.iterator().next();
    if (!signer.verify(
        new JcaSimpleSignerInfoVerifierBuilder()
            .setProvider(BC)
            .build(new JcaX509CertificateHolder(expected.certificate()))))
      throw new SignatureException(
          "the CMS signature ("
              + signer.getEncryptionAlgOID()
              + ") does not verify with the expected signer's certificate ("
              + expected.certificate().getSubjectX500Principal().getName()
              + ")");
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    byte[] content = new byte[sizeBytes];
    new SplittableRandom(worker).nextBytes(content);
    if (sign) {
      return () -> {
        byte[] signed = signedData(content);
        if (verify) check(signed, content, key);
      };
    }
    byte[] signed = signedData(content);
    return () -> check(signed, content, key);
  }
}
