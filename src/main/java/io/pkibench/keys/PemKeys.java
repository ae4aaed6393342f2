package io.pkibench.keys;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * A key and certificate a user hands over as files (an RSFN party's, a TLS client's): read from
 * their bytes, each refusal in words that say what the file is instead and how to get the right
 * one. Callers prefix the flag that named the file.
 */
public final class PemKeys {
  private PemKeys() {}

  /** An X.509 certificate, PEM or DER. */
  public static X509Certificate certificate(byte[] bytes) {
    try {
      return (X509Certificate)
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(bytes));
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new IllegalArgumentException("not an X.509 certificate (PEM or DER)");
    }
  }

  /**
   * Every X.509 certificate of a PEM bundle (or one DER certificate), in file order; refused when
   * there is none.
   */
  public static List<X509Certificate> certificates(byte[] bytes) {
    List<X509Certificate> all;
    try {
      all =
          CertificateFactory.getInstance("X.509")
              .generateCertificates(new ByteArrayInputStream(bytes))
              .stream()
              .map(c -> (X509Certificate) c)
              .toList();
    } catch (GeneralSecurityException | RuntimeException e) {
      all = List.of();
    }
    if (all.isEmpty())
      throw new IllegalArgumentException("holds no X.509 certificate (PEM or DER)");
    return all;
  }

  /** An unencrypted PEM private key, PKCS#8 ("PRIVATE KEY") or PKCS#1 ("RSA PRIVATE KEY"). */
  public static PrivateKey privateKey(byte[] pem) {
    Object o;
    try (PEMParser parser =
        new PEMParser(
            new InputStreamReader(new ByteArrayInputStream(pem), StandardCharsets.US_ASCII))) {
      o = parser.readObject();
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      if (o instanceof PEMKeyPair pair)
        return jdkForm(converter.getPrivateKey(pair.getPrivateKeyInfo()));
      if (o instanceof PrivateKeyInfo info) return jdkForm(converter.getPrivateKey(info));
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException("cannot read a PEM key from it (" + e.getMessage() + ")");
    }
    throw new IllegalArgumentException(
        "not an unencrypted PEM private key (PKCS#8 'PRIVATE KEY' or PKCS#1 'RSA PRIVATE KEY')"
            + (o == null
                ? ""
                : "; found "
                    + o.getClass().getSimpleName()
                    + ", e.g. decrypt it with 'openssl pkey -in KEY -out plain.pem'"));
  }

  /**
   * The key as the JDK's own factory makes it. BouncyCastle's converter asks for an "ECDSA" key
   * factory, which only BouncyCastle has: with it registered the key came out as BouncyCastle's
   * "ECDSA" key, which the JDK's signatures and JSSE refuse ("Not an EC key"), so what a PEM file
   * gave depended on what else had run in the process.
   */
  public static PrivateKey jdkForm(PrivateKey key) {
    if (!key.getAlgorithm().equals("ECDSA") || key.getEncoded() == null) return key;
    try {
      return KeyFactory.getInstance("EC")
          .generatePrivate(new PKCS8EncodedKeySpec(key.getEncoded()));
    } catch (GeneralSecurityException e) {
      return key;
    }
  }

  /**
   * {@code key} with its certificate, as a key source would hand it out; refused unless the RSA key
   * is the certificate's.
   */
  public static SigningKey rsaKeyOf(String alias, PrivateKey key, X509Certificate certificate)
      throws GeneralSecurityException {
    if (!(key instanceof RSAPrivateCrtKey rsa)
        || !(certificate.getPublicKey() instanceof RSAPublicKey pub)
        || !rsa.getModulus().equals(pub.getModulus())) {
      throw new IllegalArgumentException(
          "this key does not belong to the certificate (the RSA moduli differ)");
    }
    return new SigningKey(
        alias,
        key,
        List.of(certificate),
        ProviderChoice.JDK.providerFor("Signature", "SHA256withRSA"));
  }
}
