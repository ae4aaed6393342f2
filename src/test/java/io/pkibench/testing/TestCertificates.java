package io.pkibench.testing;

import java.math.BigInteger;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.Date;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Certificates the test PKI never issues, made by BouncyCastle for one test. */
public final class TestCertificates {
  private TestCertificates() {}

  /** A self-signed P-256 certificate valid from {@code notBefore} to {@code notAfter}. */
  public static X509Certificate selfSigned(String commonName, Instant notBefore, Instant notAfter)
      throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    var pair = generator.generateKeyPair();
    X500Principal name = new X500Principal("CN=" + commonName);
    var holder =
        new JcaX509v3CertificateBuilder(
                name,
                BigInteger.valueOf(notBefore.toEpochMilli()),
                Date.from(notBefore),
                Date.from(notAfter),
                name,
                pair.getPublic())
            .build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate()));
    return new JcaX509CertificateConverter().getCertificate(holder);
  }

  /** A certificate and its key, for a test that must sign as it. */
  public record Issued(X509Certificate certificate, java.security.PrivateKey key) {}

  /**
   * An OCSP responder's P-256 certificate issued by {@code issuer} (valid a day either side of
   * now), with the id-kp-OCSPSigning purpose when {@code ocspSigning}: a delegated responder, or
   * one the CA never authorised.
   */
  public static Issued responder(
      String commonName,
      X509Certificate issuer,
      java.security.PrivateKey issuerKey,
      boolean ocspSigning)
      throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    var pair = generator.generateKeyPair();
    Instant now = Instant.now();
    var builder =
        new JcaX509v3CertificateBuilder(
            issuer.getSubjectX500Principal(),
            BigInteger.valueOf(now.toEpochMilli()),
            Date.from(now.minus(java.time.Duration.ofDays(1))),
            Date.from(now.plus(java.time.Duration.ofDays(1))),
            new X500Principal("CN=" + commonName),
            pair.getPublic());
    builder.addExtension(
        org.bouncycastle.asn1.x509.Extension.extendedKeyUsage,
        false,
        new org.bouncycastle.asn1.x509.ExtendedKeyUsage(
            ocspSigning
                ? org.bouncycastle.asn1.x509.KeyPurposeId.id_kp_OCSPSigning
                : org.bouncycastle.asn1.x509.KeyPurposeId.id_kp_clientAuth));
    String algorithm = issuerKey.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
    var holder = builder.build(new JcaContentSignerBuilder(algorithm).build(issuerKey));
    return new Issued(new JcaX509CertificateConverter().getCertificate(holder), pair.getPrivate());
  }

  /**
   * A TLS client's P-256 certificate issued by {@code issuer}, valid from {@code notBefore} to
   * {@code notAfter}, for {@code purpose} only (id-kp-clientAuth, or another to make one a server
   * must refuse).
   */
  public static Issued tlsClient(
      String commonName,
      X509Certificate issuer,
      java.security.PrivateKey issuerKey,
      Instant notBefore,
      Instant notAfter,
      org.bouncycastle.asn1.x509.KeyPurposeId purpose)
      throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    var pair = generator.generateKeyPair();
    var builder =
        new JcaX509v3CertificateBuilder(
            issuer.getSubjectX500Principal(),
            BigInteger.valueOf(System.nanoTime()),
            Date.from(notBefore),
            Date.from(notAfter),
            new X500Principal("CN=" + commonName),
            pair.getPublic());
    builder.addExtension(
        org.bouncycastle.asn1.x509.Extension.basicConstraints,
        true,
        new org.bouncycastle.asn1.x509.BasicConstraints(false));
    builder.addExtension(
        org.bouncycastle.asn1.x509.Extension.keyUsage,
        true,
        new org.bouncycastle.asn1.x509.KeyUsage(
            org.bouncycastle.asn1.x509.KeyUsage.digitalSignature));
    builder.addExtension(
        org.bouncycastle.asn1.x509.Extension.extendedKeyUsage,
        false,
        new org.bouncycastle.asn1.x509.ExtendedKeyUsage(purpose));
    String algorithm = issuerKey.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
    var holder = builder.build(new JcaContentSignerBuilder(algorithm).build(issuerKey));
    return new Issued(new JcaX509CertificateConverter().getCertificate(holder), pair.getPrivate());
  }

  /** {@code key} as an unencrypted PKCS#8 PEM, for openssl's -rkey and signer_key. */
  public static String pem(java.security.PrivateKey key) {
    return "-----BEGIN PRIVATE KEY-----\n"
        + java.util.Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(key.getEncoded())
        + "\n-----END PRIVATE KEY-----\n";
  }

  /** {@code certificate} as PEM text. */
  public static String pem(X509Certificate certificate) throws Exception {
    return "-----BEGIN CERTIFICATE-----\n"
        + java.util.Base64.getMimeEncoder(64, "\n".getBytes())
            .encodeToString(certificate.getEncoded())
        + "\n-----END CERTIFICATE-----\n";
  }
}
