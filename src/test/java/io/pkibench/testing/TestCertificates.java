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
  public static X509Certificate selfSigned(String commonName, Instant notBefore, Instant notAfter) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    var pair = generator.generateKeyPair();
    X500Principal name = new X500Principal("CN=" + commonName);
    var holder = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(notBefore.toEpochMilli()), Date.from(notBefore), Date.from(notAfter),
        name, pair.getPublic()).build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate()));
    return new JcaX509CertificateConverter().getCertificate(holder);
  }

  /** {@code certificate} as PEM text. */
  public static String pem(X509Certificate certificate) throws Exception {
    return "-----BEGIN CERTIFICATE-----\n" + java.util.Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(certificate.getEncoded())
        + "\n-----END CERTIFICATE-----\n";
  }
}
