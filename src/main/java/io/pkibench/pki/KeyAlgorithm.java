package io.pkibench.pki;

import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Provider;
import java.security.PublicKey;
import java.security.interfaces.EdECKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.bouncycastle.asn1.edec.EdECObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;

/** The key types of the test PKI, named as on the command line ({@code -p alg=ecdsa-p256}). */
public enum KeyAlgorithm {
  /** For TLS servers only (the ssl study's RSA-1024 handshakes); no signer has one. */
  RSA1024("rsa1024", "SHA256withRSA"),
  RSA2048("rsa2048", "SHA256withRSA"),
  RSA3072("rsa3072", "SHA256withRSA"),
  ECDSA_P256("ecdsa-p256", "SHA256withECDSA"),
  ED25519("ed25519", "Ed25519"),
  // FIPS 204 and 205, pure (no pre-hash), empty context. The signature name is the family's: ACCP
  // offers
  // only "ML-DSA", and the key fixes the parameter set; the key pair generator takes the set's own
  // name.
  ML_DSA_44("ml-dsa-44", "ML-DSA"),
  ML_DSA_65("ml-dsa-65", "ML-DSA"),
  ML_DSA_87("ml-dsa-87", "ML-DSA"),
  SLH_DSA_SHA2_128S("slh-dsa-sha2-128s", "SLH-DSA"),
  SLH_DSA_SHA2_128F("slh-dsa-sha2-128f", "SLH-DSA");

  public final String flag;
  public final String signatureAlgorithm;

  KeyAlgorithm(String flag, String signatureAlgorithm) {
    this.flag = flag;
    this.signatureAlgorithm = signatureAlgorithm;
  }

  public static KeyAlgorithm parse(String flag) {
    for (KeyAlgorithm a : signerAlgorithms()) if (a.flag.equals(flag)) return a;
    throw new IllegalArgumentException(
        "unknown key algorithm '" + flag + "'; use " + String.join(", ", flags()));
  }

  /**
   * FIPS 204 (ML-DSA) or FIPS 205 (SLH-DSA): no PKCS#11 token, TLS stack or S/MIME client here
   * takes these keys yet.
   */
  public boolean isPostQuantum() {
    return signatureAlgorithm.equals("ML-DSA") || signatureAlgorithm.equals("SLH-DSA");
  }

  /**
   * The JCA key pair generator / key factory name of this parameter set ({@code ML-DSA-65}, {@code
   * SLH-DSA-SHA2-128S}).
   */
  public String jcaKeyType() {
    return switch (this) {
      case RSA1024, RSA2048, RSA3072 -> "RSA";
      case ECDSA_P256 -> "EC";
      case ED25519 -> "Ed25519";
      default -> flag.toUpperCase(Locale.ROOT);
    };
  }

  /**
   * The SHA-256 signature algorithm (JCA name) for a key or certificate public key of type {@code
   * keyAlgorithm} ({@link java.security.Key#getAlgorithm()}): what every signer and verifier here
   * uses with the test PKI's keys.
   */
  public static String signatureAlgorithmFor(String keyAlgorithm) {
    return switch (keyAlgorithm) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      case "Ed25519" -> "Ed25519";
      case "Ed448" -> "Ed448";
      // providers name these keys by family ("ML-DSA") or by parameter set ("ML-DSA-65",
      // BouncyCastle)
      case String name when name.startsWith("ML-DSA") -> "ML-DSA";
      case String name when name.startsWith("SLH-DSA") -> "SLH-DSA";
      default ->
          throw new IllegalArgumentException(
              "no signature algorithm for "
                  + keyAlgorithm
                  + " keys; use RSA, EC, Ed25519, Ed448, ML-DSA or SLH-DSA keys");
    };
  }

  /**
   * As {@link #signatureAlgorithmFor(String)}, for {@code key} itself: the JDK calls both Edwards
   * curves' keys "EdDSA", so the curve is read from the key — its parameters, else the algorithm
   * its encoding names (RFC 8410) — and an Ed448 key is not taken for Ed25519.
   */
  public static String signatureAlgorithmFor(Key key) {
    String name = key.getAlgorithm();
    if (name.equals("EdDSA")) {
      if (key instanceof EdECKey edwards) {
        name = edwards.getParams().getName();
      } else if (key.getEncoded() != null) {
        var oid =
            key instanceof PublicKey
                ? SubjectPublicKeyInfo.getInstance(key.getEncoded()).getAlgorithm().getAlgorithm()
                : PrivateKeyInfo.getInstance(key.getEncoded())
                    .getPrivateKeyAlgorithm()
                    .getAlgorithm();
        if (oid.equals(EdECObjectIdentifiers.id_Ed448)) name = "Ed448";
        if (oid.equals(EdECObjectIdentifiers.id_Ed25519)) name = "Ed25519";
      }
    }
    return signatureAlgorithmFor(name);
  }

  /** The key types the test PKI has signers for (all but RSA-1024). */
  public static List<KeyAlgorithm> signerAlgorithms() {
    return Arrays.stream(values()).filter(a -> a != RSA1024).toList();
  }

  public static String[] flags() {
    return signerAlgorithms().stream().map(a -> a.flag).toArray(String[]::new);
  }

  public boolean isRsa() {
    return this == RSA1024 || this == RSA2048 || this == RSA3072;
  }

  public KeyPair generate(Provider provider) throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance(jcaKeyType(), provider);
    switch (this) {
      case RSA1024 -> g.initialize(1024);
      case RSA2048 -> g.initialize(2048);
      case RSA3072 -> g.initialize(3072);
      case ECDSA_P256 -> g.initialize(new ECGenParameterSpec("secp256r1"));
      default -> {} // Ed25519 and the post-quantum sets: the name fixes the parameters
    }
    return g.generateKeyPair();
  }
}
