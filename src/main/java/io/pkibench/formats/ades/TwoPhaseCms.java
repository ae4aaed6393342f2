package io.pkibench.formats.ades;

import io.pkibench.pki.KeyAlgorithm;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.ASN1EncodableVector;
import org.bouncycastle.asn1.DERSet;
import org.bouncycastle.asn1.cms.Attribute;
import org.bouncycastle.asn1.cms.AttributeTable;
import org.bouncycastle.asn1.cms.CMSAttributes;
import org.bouncycastle.asn1.cms.Time;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.jcajce.JcaCertStore;
import org.bouncycastle.cms.CMSException;
import org.bouncycastle.cms.CMSProcessableByteArray;
import org.bouncycastle.cms.CMSSignedDataGenerator;
import org.bouncycastle.cms.DefaultSignedAttributeTableGenerator;
import org.bouncycastle.cms.jcajce.JcaSignerInfoGeneratorBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.DefaultSignatureAlgorithmIdentifierFinder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;

/**
 * Two-phase CMS SignedData (RFC 5652) without DSS, for the keys DSS 6.4 does not know: ML-DSA as
 * RFC 9882 has it (the parameter set's OID without parameters, SHA-512 message digest), and the
 * classical keys the same way. {@link #start} returns the DER of the signed attributes, which the
 * key holder signs; {@link #finish} builds the same SignedData around that value. The signing time
 * is fixed at start, so the attributes finish signs over are the ones start handed out (checked,
 * byte for byte).
 */
public final class TwoPhaseCms {
  private static final BouncyCastleProvider BC = new BouncyCastleProvider();

  /**
   * What travels between the phases. {@code signatureAlgorithm} is the JCA name the key holder
   * signs with.
   */
  public record Pending(
      byte[] content,
      boolean attached,
      List<X509Certificate> chain,
      Date signingTime,
      byte[] toSign,
      String signatureAlgorithm) {
    public X509Certificate signingCertificate() {
      return chain.get(0);
    }
  }

  private final InstantSource clock;

  public TwoPhaseCms(InstantSource clock) {
    this.clock = clock;
  }

  /**
   * Phase one: {@code chain} leaf first; the content inside the SignedData when {@code attached},
   * else detached.
   */
  public Pending start(byte[] content, List<X509Certificate> chain, boolean attached)
      throws CMSException {
    Date signingTime = Date.from(clock.instant());
    X509Certificate leaf = chain.get(0);
    Capture capture = new Capture(identifier(leaf), null);
    generate(content, attached, chain, signingTime, capture);
    return new Pending(
        content.clone(),
        attached,
        List.copyOf(chain),
        signingTime,
        capture.written(),
        KeyAlgorithm.signatureAlgorithmFor(leaf.getPublicKey()));
  }

  /**
   * Phase two: the SignedData's DER, {@code signatureValue} as its signature (the caller has
   * checked it).
   */
  public byte[] finish(Pending pending, byte[] signatureValue) throws CMSException, IOException {
    Capture capture = new Capture(identifier(pending.signingCertificate()), signatureValue);
    byte[] signed =
        generate(
            pending.content(), pending.attached(), pending.chain(), pending.signingTime(), capture);
    if (!Arrays.equals(capture.written(), pending.toSign())) {
      throw new CMSException("the signed attributes changed between start and finish");
    }
    return signed;
  }

  /**
   * The signature's identifier as RFC 9882 (ML-DSA: the set's OID, no parameters) and RFC 5754 give
   * it, found by the certificate's key: the set's name for ML-DSA (the JCA family name "ML-DSA"
   * fixes no OID).
   */
  static AlgorithmIdentifier identifier(X509Certificate leaf) {
    String jca = KeyAlgorithm.signatureAlgorithmFor(leaf.getPublicKey());
    if (jca.equals("ML-DSA") || jca.equals("SLH-DSA")) {
      var oid = SubjectPublicKeyInfo.getInstance(leaf.getPublicKey().getEncoded()).getAlgorithm();
      return new AlgorithmIdentifier(oid.getAlgorithm());
    }
    return new DefaultSignatureAlgorithmIdentifierFinder().find(jca);
  }

  private static byte[] generate(
      byte[] content,
      boolean attached,
      List<X509Certificate> chain,
      Date signingTime,
      Capture signer)
      throws CMSException {
    try {
      ASN1EncodableVector time = new ASN1EncodableVector();
      time.add(new Attribute(CMSAttributes.signingTime, new DERSet(new Time(signingTime))));
      var attributes =
          new DefaultSignedAttributeTableGenerator(
              new AttributeTable(time)); // ours kept: no new time at finish
      var generator = new CMSSignedDataGenerator();
      generator.addSignerInfoGenerator(
          new JcaSignerInfoGeneratorBuilder(
                  new JcaDigestCalculatorProviderBuilder().setProvider(BC).build())
              .setSignedAttributeGenerator(attributes)
              .build(signer, chain.get(0)));
      generator.addCertificates(new JcaCertStore(chain));
      return generator.generate(new CMSProcessableByteArray(content), attached).getEncoded();
    } catch (OperatorCreationException | CertificateEncodingException | IOException e) {
      throw new CMSException("cannot build the SignedData: " + e.getMessage(), e);
    }
  }

  /** Records what it is asked to sign; answers {@code value} (or nothing, in phase one). */
  private static final class Capture implements ContentSigner {
    private final AlgorithmIdentifier identifier;
    private final byte[] value;
    private final ByteArrayOutputStream written = new ByteArrayOutputStream();

    Capture(AlgorithmIdentifier identifier, byte[] value) {
      this.identifier = identifier;
      this.value = value;
    }

    @Override
    public AlgorithmIdentifier getAlgorithmIdentifier() {
      return identifier;
    }

    @Override
    public OutputStream getOutputStream() {
      return written;
    }

    @Override
    public byte[] getSignature() {
      return value == null ? new byte[0] : value.clone();
    }

    byte[] written() {
      return written.toByteArray();
    }
  }
}
