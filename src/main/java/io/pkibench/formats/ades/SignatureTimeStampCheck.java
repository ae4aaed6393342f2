package io.pkibench.formats.ades;

import java.io.OutputStream;
import java.security.SignatureException;
import java.security.cert.CertPathBuilder;
import java.security.cert.CertStore;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CertSelector;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.cms.Attribute;
import org.bouncycastle.asn1.cms.ContentInfo;
import org.bouncycastle.asn1.pkcs.PKCSObjectIdentifiers;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cms.SignerInformation;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;
import org.bouncycastle.operator.DigestCalculator;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;
import org.bouncycastle.tsp.TimeStampToken;

/**
 * The signature time-stamp of a CAdES or PAdES B-T signature (RFC 3161 token in the SignerInfo's
 * unsigned attribute id-aa-signatureTimeStampToken), checked as a relying party would: it is a
 * token, its signature verifies with the TSA certificate it names, that certificate chains to the
 * trust anchor the caller gives (PKIX at the token's time), and it stamps the hash of this
 * SignerInfo's signature value. A time-stamp that only has to be present would let a token over
 * another signature, or from any TSA, pass.
 */
final class SignatureTimeStampCheck {
  private SignatureTimeStampCheck() {}

  /**
   * Throws naming {@code format} (e.g. "CAdES") and the first thing wrong with {@code signer}'s
   * time-stamp.
   */
  static void check(String format, SignerInformation signer, X509Certificate trustAnchor)
      throws SignatureException {
    var attributes = signer.getUnsignedAttributes();
    Attribute stamp =
        attributes == null
            ? null
            : attributes.get(PKCSObjectIdentifiers.id_aa_signatureTimeStampToken);
    if (stamp == null) throw new SignatureException(format + "-B-T without a signature time-stamp");
    if (stamp.getAttrValues().size() != 1) {
      throw new SignatureException(
          "the "
              + format
              + " signature time-stamp attribute holds "
              + stamp.getAttrValues().size()
              + " values, not one token");
    }
    TimeStampToken token = parse(format, stamp.getAttrValues().getObjectAt(0));
    X509Certificate tsa = tsaCertificate(format, token);
    try {
      token.validate(
          new JcaSimpleSignerInfoVerifierBuilder()
              .build(tsa)); // signature, ESSCertID, timeStamping EKU, validity at genTime
    } catch (Exception e) {
      throw new SignatureException(
          "the "
              + format
              + " signature time-stamp does not verify with its TSA certificate: "
              + e.getMessage(),
          e);
    }
    chainToAnchor(format, tsa, token, trustAnchor);
    if (!Arrays.equals(
        token.getTimeStampInfo().getMessageImprintDigest(),
        hash(format, token, signer.getSignature()))) {
      throw new SignatureException(
          "the "
              + format
              + " signature time-stamp is over another imprint than the hash of the signature value");
    }
  }

  private static TimeStampToken parse(String format, ASN1Encodable value)
      throws SignatureException {
    try {
      return new TimeStampToken(ContentInfo.getInstance(value));
    } catch (
        Exception
            e) { // BouncyCastle says "not a token" with assorted runtime and checked exceptions
      throw new SignatureException(
          "the " + format + " signature time-stamp is not an RFC 3161 token: " + e.getMessage(), e);
    }
  }

  /** The certificate the token's SignerInfo names, taken from the certificates it carries. */
  private static X509Certificate tsaCertificate(String format, TimeStampToken token)
      throws SignatureException {
    @SuppressWarnings("unchecked")
    var matches = token.getCertificates().getMatches(token.getSID());
    if (matches.isEmpty())
      throw new SignatureException(
          "the " + format + " signature time-stamp carries no TSA certificate");
    try {
      return new JcaX509CertificateConverter()
          .getCertificate((X509CertificateHolder) matches.iterator().next());
    } catch (Exception e) {
      throw new SignatureException(
          "the "
              + format
              + " signature time-stamp's TSA certificate cannot be read: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * PKIX from the TSA certificate to {@code trustAnchor} through the certificates the token
   * carries, at the token's time. Revocation is not checked: B-T carries no revocation data, and
   * the signer's own certificate is not revocation-checked at this level either.
   */
  private static void chainToAnchor(
      String format, X509Certificate tsa, TimeStampToken token, X509Certificate trustAnchor)
      throws SignatureException {
    try {
      List<X509Certificate> carried = new ArrayList<>();
      var converter = new JcaX509CertificateConverter();
      for (Object holder : token.getCertificates().getMatches(null))
        carried.add(converter.getCertificate((X509CertificateHolder) holder));
      X509CertSelector target = new X509CertSelector();
      target.setCertificate(tsa);
      PKIXBuilderParameters parameters =
          new PKIXBuilderParameters(Set.of(new TrustAnchor(trustAnchor, null)), target);
      parameters.addCertStore(
          CertStore.getInstance("Collection", new CollectionCertStoreParameters(carried)));
      parameters.setRevocationEnabled(false);
      parameters.setDate(token.getTimeStampInfo().getGenTime());
      CertPathBuilder.getInstance("PKIX").build(parameters);
    } catch (Exception e) {
      throw new SignatureException(
          "the "
              + format
              + " signature time-stamp's TSA certificate does not chain to the trust anchor "
              + trustAnchor.getSubjectX500Principal().getName()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /** The signature value hashed with the algorithm of the token's imprint. */
  private static byte[] hash(String format, TimeStampToken token, byte[] signatureValue)
      throws SignatureException {
    try {
      DigestCalculator digest =
          new JcaDigestCalculatorProviderBuilder()
              .build()
              .get(token.getTimeStampInfo().getHashAlgorithm());
      try (OutputStream out = digest.getOutputStream()) {
        out.write(signatureValue);
      }
      return digest.getDigest();
    } catch (Exception e) {
      throw new SignatureException(
          "the "
              + format
              + " signature time-stamp's imprint algorithm "
              + token.getTimeStampInfo().getMessageImprintAlgOID()
              + " is not one this JDK offers",
          e);
    }
  }
}
