package io.pkibench.workload.primitive;

import io.pkibench.keys.Services;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import javax.crypto.DecapsulateException;
import javax.crypto.KEM;
import javax.crypto.KeyAgreement;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.ASN1Sequence;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;

/**
 * The key encapsulation mechanisms of the {@code kem} workload, named as on the command line: FIPS
 * 203's three parameter sets through {@link KEM} (JDK 21's API, which the JDK's and BouncyCastle's
 * ML-KEM both implement), and X25519 as the classical baseline — an ephemeral key pair and one
 * agreement to encapsulate, one agreement to decapsulate, as a TLS 1.3 key share does; its
 * "ciphertext" is the 32-byte ephemeral public key.
 */
public enum KemAlgorithm {
  ML_KEM_512("ml-kem-512", 800, 1632, 768),
  ML_KEM_768("ml-kem-768", 1184, 2400, 1088),
  ML_KEM_1024("ml-kem-1024", 1568, 3168, 1568),
  X25519("x25519", 32, 32, 32);

  public final String flag;

  /** The raw sizes of FIPS 203 (ek, dk, ct) or RFC 7748 (public, private, ephemeral public). */
  public final int encapsulationKeyBytes;

  public final int decapsulationKeyBytes;
  public final int ciphertextBytes;

  KemAlgorithm(
      String flag, int encapsulationKeyBytes, int decapsulationKeyBytes, int ciphertextBytes) {
    this.flag = flag;
    this.encapsulationKeyBytes = encapsulationKeyBytes;
    this.decapsulationKeyBytes = decapsulationKeyBytes;
    this.ciphertextBytes = ciphertextBytes;
  }

  public static KemAlgorithm parse(String flag) {
    for (KemAlgorithm a : values()) if (a.flag.equals(flag)) return a;
    throw new IllegalArgumentException(
        "-p alg=" + flag + ": unknown key encapsulation; use " + String.join(", ", flags()));
  }

  public static String[] flags() {
    return Arrays.stream(values()).map(a -> a.flag).toArray(String[]::new);
  }

  /**
   * The JCA name of the key pair generator and key factory ({@code ML-KEM-768}, {@code X25519}).
   */
  public String jcaName() {
    return this == X25519 ? "X25519" : flag.toUpperCase(Locale.ROOT);
  }

  /** The service a provider must offer to run this mechanism. */
  public String serviceType() {
    return this == X25519 ? "KeyAgreement" : "KEM";
  }

  /** An ML-KEM set of another size: its keys must not take this set's ciphertexts. */
  public KemAlgorithm otherParameterSet() {
    return switch (this) {
      case ML_KEM_512 -> ML_KEM_768;
      case ML_KEM_768, ML_KEM_1024 -> ML_KEM_512;
      case X25519 -> ML_KEM_512;
    };
  }

  public KeyPair generate(Provider provider) throws GeneralSecurityException {
    return KeyPairGenerator.getInstance(jcaName(), provider).generateKeyPair();
  }

  /**
   * The key pair re-made inside {@code provider}, which may not take another provider's key
   * objects.
   */
  public KeyPair translate(KeyPair pair, Provider provider) throws GeneralSecurityException {
    KeyFactory factory = KeyFactory.getInstance(jcaName(), provider);
    return new KeyPair(
        factory.generatePublic(new X509EncodedKeySpec(pair.getPublic().getEncoded())),
        factory.generatePrivate(
            new PKCS8EncodedKeySpec(expandedKeyForm(pair.getPrivate().getEncoded()))));
  }

  /**
   * An ML-KEM PKCS#8 key in RFC 9935's {@code expandedKey} form: BouncyCastle writes {@code both}
   * (seed and expanded key), which the JDK 25 key factory refuses ("DER input not an octet
   * string"); other keys unchanged.
   */
  static byte[] expandedKeyForm(byte[] pkcs8) throws GeneralSecurityException {
    try {
      var info = PrivateKeyInfo.getInstance(pkcs8);
      var inner = ASN1Primitive.fromByteArray(info.getPrivateKey().getOctets());
      if (!(inner instanceof ASN1Sequence both) || both.size() != 2) return pkcs8;
      var expanded = ASN1OctetString.getInstance(both.getObjectAt(1));
      return new PrivateKeyInfo(info.getPrivateKeyAlgorithm(), expanded).getEncoded();
    } catch (IOException | IllegalArgumentException e) {
      return pkcs8; // not ASN.1 we know: let the key factory say what it thinks
    }
  }

  /** A shared secret and the ciphertext that carries it. */
  public record Encapsulated(byte[] sharedSecret, byte[] ciphertext) {}

  /** One side's object, made once per worker. */
  public interface Encapsulator {
    Encapsulated encapsulate() throws GeneralSecurityException;
  }

  public interface Decapsulator {
    /**
     * Throws on a ciphertext of the wrong size; ML-KEM returns an unrelated secret for a tampered
     * one (implicit rejection).
     */
    byte[] decapsulate(byte[] ciphertext) throws GeneralSecurityException;
  }

  public Encapsulator encapsulator(PublicKey key, Provider provider)
      throws GeneralSecurityException {
    if (this == X25519) {
      KeyPairGenerator ephemeral = KeyPairGenerator.getInstance("X25519", provider);
      KeyAgreement agreement = KeyAgreement.getInstance("X25519", provider);
      return () -> {
        KeyPair share = ephemeral.generateKeyPair();
        agreement.init(share.getPrivate());
        agreement.doPhase(key, true);
        return new Encapsulated(agreement.generateSecret(), rawX25519(share.getPublic()));
      };
    }
    KEM.Encapsulator e = KEM.getInstance(jcaName(), provider).newEncapsulator(key);
    return () -> {
      KEM.Encapsulated out = e.encapsulate();
      return new Encapsulated(out.key().getEncoded(), out.encapsulation());
    };
  }

  public Decapsulator decapsulator(PrivateKey key, Provider provider)
      throws GeneralSecurityException {
    if (this == X25519) {
      KeyAgreement agreement = KeyAgreement.getInstance("X25519", provider);
      KeyFactory factory = KeyFactory.getInstance("X25519", provider);
      return ciphertext -> {
        if (ciphertext.length != 32)
          throw new DecapsulateException("an X25519 share is 32 bytes, not " + ciphertext.length);
        agreement.init(key);
        agreement.doPhase(
            factory.generatePublic(new X509EncodedKeySpec(x25519Spki(ciphertext))), true);
        return agreement.generateSecret();
      };
    }
    KEM.Decapsulator d = KEM.getInstance(jcaName(), provider).newDecapsulator(key);
    return ciphertext -> {
      if (ciphertext.length != d.encapsulationSize()) {
        // said here in one line: providers differ in whether and how they word it
        throw new DecapsulateException(
            flag
                + " ciphertext of "
                + ciphertext.length
                + " bytes refused; it is "
                + d.encapsulationSize());
      }
      return d.decapsulate(ciphertext).getEncoded();
    };
  }

  /** Whether {@code provider} has this mechanism. */
  public boolean offeredBy(Provider provider) {
    return Services.offers(provider, serviceType(), jcaName())
        && Services.offers(provider, "KeyPairGenerator", jcaName());
  }

  private static final byte[] X25519_SPKI_PREFIX = {
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x6e, 0x03, 0x21, 0x00
  };

  /**
   * The 32 raw bytes of an X25519 public key (RFC 8410: its SubjectPublicKeyInfo's last 32 bytes).
   */
  static byte[] rawX25519(PublicKey key) {
    byte[] spki = key.getEncoded();
    return Arrays.copyOfRange(spki, spki.length - 32, spki.length);
  }

  private static byte[] x25519Spki(byte[] raw) {
    byte[] spki = Arrays.copyOf(X25519_SPKI_PREFIX, X25519_SPKI_PREFIX.length + 32);
    System.arraycopy(raw, 0, spki, X25519_SPKI_PREFIX.length, 32);
    return spki;
  }

  static List<String> flagList() {
    return List.of(flags());
  }
}
