package io.pkibench.workload.primitive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.amazon.corretto.crypto.provider.AmazonCorrettoCryptoProvider;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.testing.TestProvider;
import java.io.InputStream;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Security;
import java.security.Signature;
import java.security.spec.NamedParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.KEM;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.jcajce.spec.ContextParameterSpec;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.junit.jupiter.api.Test;

/**
 * FIPS 203/204 in every provider here, three ways: NIST's ACVP vectors (a few cases each, vendored
 * in src/test/resources/acvp with their source), cross-verification between providers both ways,
 * and one-byte tampering that must be refused. ML-DSA sigGen/sigVer come from NIST's ACVTS through
 * the external, pure interface (FIPS 204 ML-DSA.Sign with a context string): every such case NIST
 * published there has a non-empty context, which BouncyCastle takes (ContextParameterSpec) and the
 * JDK 25 cannot be given (its ML-DSA Signature has no parameters: empty context only), so those
 * vectors hold BouncyCastle, and the JDK is held to Wycheproof's empty-context vectors
 * (WycheproofTest) and to the other providers.
 */
class PostQuantumKatTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HexFormat HEX = HexFormat.of();
  private static final Provider BC = new BouncyCastleProvider();

  /**
   * Serves the vector's seed bytes as the "randomness" a key generator or encapsulator draws, in
   * order.
   */
  private static final class SeedRandom extends SecureRandom {
    private final byte[] bytes;
    private int next;

    SeedRandom(byte[] bytes) {
      this.bytes = bytes;
    }

    @Override
    public void nextBytes(byte[] out) {
      if (next + out.length > bytes.length)
        throw new IllegalStateException(
            "the generator drew more than the vector's " + bytes.length + " seed bytes");
      System.arraycopy(bytes, next, out, 0, out.length);
      next += out.length;
    }
  }

  private static JsonNode vectors(String file) throws Exception {
    try (InputStream in = PostQuantumKatTest.class.getResourceAsStream("/acvp/" + file)) {
      return JSON.readTree(in);
    }
  }

  private static byte[] hex(JsonNode node, String field) {
    return HEX.parseHex(node.get(field).asText());
  }

  private static byte[] rawPublic(PublicKey key, int length) {
    byte[] spki = key.getEncoded();
    return Arrays.copyOfRange(spki, spki.length - length, spki.length);
  }

  private static ASN1ObjectIdentifier oid(String parameterSet) {
    return switch (parameterSet) {
      case "ML-DSA-44" -> NISTObjectIdentifiers.id_ml_dsa_44;
      case "ML-DSA-65" -> NISTObjectIdentifiers.id_ml_dsa_65;
      case "ML-DSA-87" -> NISTObjectIdentifiers.id_ml_dsa_87;
      case "ML-KEM-512" -> NISTObjectIdentifiers.id_alg_ml_kem_512;
      case "ML-KEM-768" -> NISTObjectIdentifiers.id_alg_ml_kem_768;
      default -> NISTObjectIdentifiers.id_alg_ml_kem_1024;
    };
  }

  /** A raw FIPS 203/204 public key as X.509 SubjectPublicKeyInfo (RFC 9881, RFC 9935). */
  static byte[] spki(String parameterSet, byte[] raw) throws Exception {
    return new SubjectPublicKeyInfo(new AlgorithmIdentifier(oid(parameterSet)), raw).getEncoded();
  }

  /** A raw FIPS 203 decapsulation key as PKCS#8 in the {@code expandedKey} form of RFC 9935. */
  static byte[] pkcs8ExpandedKey(String parameterSet, byte[] raw) throws Exception {
    return new PrivateKeyInfo(new AlgorithmIdentifier(oid(parameterSet)), new DEROctetString(raw))
        .getEncoded();
  }

  private static List<Provider> mlDsaProviders() {
    return List.of(Security.getProvider("SUN"), BC);
  }

  private static List<Provider> mlKemProviders() {
    return List.of(Security.getProvider("SunJCE"), BC);
  }

  @Test
  void mlDsaKeyGen_acvpSeeds_jdkAndBcDeriveTheVectorsKeys() throws Exception {
    int checked = 0;
    for (JsonNode t : vectors("ml-dsa-keygen.json").get("tests")) {
      String set = t.get("parameterSet").asText();
      for (Provider p : mlDsaProviders()) {
        KeyPairGenerator g = KeyPairGenerator.getInstance(set, p);
        g.initialize(new NamedParameterSpec(set), new SeedRandom(hex(t, "seed")));
        KeyPair pair = g.generateKeyPair();
        byte[] pk = hex(t, "pk");
        assertArrayEquals(
            pk,
            rawPublic(pair.getPublic(), pk.length),
            p.getName() + " " + set + " tcId " + t.get("tcId"));
        // the JDK keeps the expanded key (RFC 9881 expandedKey), BouncyCastle seed and expanded key
        // (both): either way it holds sk
        assertTrue(
            indexOf(pair.getPrivate().getEncoded(), hex(t, "sk")) >= 0,
            p.getName() + " " + set + " private key lacks the vector's sk");
        checked++;
      }
    }
    assertEquals(12, checked);
  }

  /** A raw FIPS 204 private key (sk) as PKCS#8 in RFC 9881's expandedKey form. */
  private static PrivateKey mlDsaPrivate(String parameterSet, byte[] sk) throws Exception {
    return KeyFactory.getInstance(parameterSet, BC)
        .generatePrivate(new PKCS8EncodedKeySpec(pkcs8ExpandedKey(parameterSet, sk)));
  }

  private static boolean verifiesWithContext(
      PublicKey key, byte[] message, byte[] context, byte[] signature) throws Exception {
    Signature v = Signature.getInstance("ML-DSA", BC);
    v.initVerify(key);
    v.setParameter(
        new ContextParameterSpec(
            context)); // after init: BouncyCastle keeps it with the key's parameters
    v.update(message);
    return v.verify(signature);
  }

  /**
   * ACVP sigGen, external interface, pure: BouncyCastle signs the vector's message under its
   * context with the vector's sk and rnd (deterministic: 32 zero bytes, FIPS 204 algorithm 2) and
   * gives NIST's signature byte for byte; the signature verifies under the public key derived from
   * sk, and not under another context or with a byte flipped.
   */
  @Test
  void mlDsaSigGen_acvpExternalPure_bouncyCastleGivesNistsSignatureDeterministicAndHedged()
      throws Exception {
    int deterministic = 0, hedged = 0;
    for (JsonNode t : vectors("ml-dsa-siggen-sigver.json").get("sigGen")) {
      String set = t.get("parameterSet").asText(), what = set + " tcId " + t.get("tcId");
      PrivateKey sk = mlDsaPrivate(set, hex(t, "sk"));
      boolean isDeterministic = t.get("deterministic").asBoolean();
      byte[] rnd = isDeterministic ? new byte[32] : hex(t, "rnd");
      Signature s = Signature.getInstance("ML-DSA", BC);
      s.initSign(sk, new SeedRandom(rnd));
      s.setParameter(new ContextParameterSpec(hex(t, "context")));
      s.update(hex(t, "message"));
      byte[] signature = s.sign();
      assertArrayEquals(
          hex(t, "signature"), signature, what + (isDeterministic ? " deterministic" : " hedged"));
      PublicKey pk = ((org.bouncycastle.jcajce.interfaces.MLDSAPrivateKey) sk).getPublicKey();
      assertTrue(
          verifiesWithContext(pk, hex(t, "message"), hex(t, "context"), signature),
          what + " does not verify");
      assertFalse(
          verifiesWithContext(pk, hex(t, "message"), new byte[0], signature),
          what + " verified under the empty context");
      signature[signature.length / 2] ^= 0x01;
      assertFalse(
          verifiesWithContext(pk, hex(t, "message"), hex(t, "context"), signature),
          what + " tampered signature accepted");
      if (isDeterministic) deterministic++;
      else hedged++;
    }
    assertEquals(3, deterministic);
    assertEquals(3, hedged);
  }

  /**
   * ACVP sigVer, external interface, pure: each case NIST marks failed is refused by BouncyCastle.
   */
  @Test
  void mlDsaSigVer_acvpExternalPure_bouncyCastleAgreesWithNistsVerdict() throws Exception {
    int checked = 0;
    for (JsonNode t : vectors("ml-dsa-siggen-sigver.json").get("sigVer")) {
      String set = t.get("parameterSet").asText();
      PublicKey pk =
          KeyFactory.getInstance(set, BC)
              .generatePublic(new X509EncodedKeySpec(spki(set, hex(t, "pk"))));
      boolean verified;
      try {
        verified =
            verifiesWithContext(pk, hex(t, "message"), hex(t, "context"), hex(t, "signature"));
      } catch (java.security.SignatureException malformed) {
        verified = false;
      }
      assertEquals(t.get("testPassed").asBoolean(), verified, set + " tcId " + t.get("tcId"));
      checked++;
    }
    assertEquals(3, checked);
  }

  @Test
  void mlKemKeyGen_acvpSeeds_jdkAndBcDeriveTheVectorsKeys() throws Exception {
    for (JsonNode t : vectors("ml-kem-keygen.json").get("tests")) {
      String set = t.get("parameterSet").asText();
      for (Provider p : mlKemProviders()) {
        KeyPairGenerator g = KeyPairGenerator.getInstance(set, p);
        byte[] dz = concat(hex(t, "d"), hex(t, "z")); // FIPS 203 ML-KEM.KeyGen draws d, then z
        g.initialize(new NamedParameterSpec(set), new SeedRandom(dz));
        KeyPair pair = g.generateKeyPair();
        byte[] ek = hex(t, "ek");
        assertArrayEquals(ek, rawPublic(pair.getPublic(), ek.length), p.getName() + " " + set);
        assertTrue(
            indexOf(pair.getPrivate().getEncoded(), hex(t, "dk")) >= 0,
            p.getName() + " " + set + " private key lacks the vector's dk");
      }
    }
  }

  @Test
  void mlKemEncapsulate_acvpMessage_jdkAndBcGiveTheVectorsCiphertextAndSecret() throws Exception {
    for (JsonNode t : vectors("ml-kem-encapdecap.json").get("encapsulation")) {
      String set = t.get("parameterSet").asText();
      for (Provider p : mlKemProviders()) {
        PublicKey ek =
            KeyFactory.getInstance(set, p)
                .generatePublic(new X509EncodedKeySpec(spki(set, hex(t, "ek"))));
        KEM.Encapsulated out =
            KEM.getInstance("ML-KEM", p)
                .newEncapsulator(ek, new SeedRandom(hex(t, "m")))
                .encapsulate();
        assertArrayEquals(
            hex(t, "c"), out.encapsulation(), p.getName() + " " + set + " ciphertext");
        assertArrayEquals(
            hex(t, "k"), out.key().getEncoded(), p.getName() + " " + set + " shared secret");
      }
    }
  }

  @Test
  void mlKemDecapsulate_acvpCiphertexts_validAndModifiedGiveTheVectorsSecret() throws Exception {
    int modified = 0;
    for (JsonNode t : vectors("ml-kem-encapdecap.json").get("decapsulation")) {
      String set = t.get("parameterSet").asText();
      for (Provider p : mlKemProviders()) {
        PrivateKey dk =
            KeyFactory.getInstance(set, p)
                .generatePrivate(new PKCS8EncodedKeySpec(pkcs8ExpandedKey(set, hex(t, "dk"))));
        byte[] k =
            KEM.getInstance("ML-KEM", p).newDecapsulator(dk).decapsulate(hex(t, "c")).getEncoded();
        // a modified ciphertext gives the implicit-rejection secret J(z||c), which the vector also
        // fixes
        assertArrayEquals(hex(t, "k"), k, p.getName() + " " + set + " " + t.get("reason").asText());
      }
      if (t.get("reason").asText().equals("modify ciphertext")) modified++;
    }
    assertEquals(3, modified);
  }

  @Test
  void mlDsa_signedByEachProvider_verifiedByEveryOtherAndTamperRefused() throws Exception {
    List<Provider> providers = new java.util.ArrayList<>(mlDsaProviders());
    providers.add(accp());
    byte[] message = "pacs.008 moved to FIPS 204".getBytes();
    for (String set : List.of("ML-DSA-44", "ML-DSA-65", "ML-DSA-87")) {
      for (Provider signer : providers) {
        KeyPair pair = KeyPairGenerator.getInstance(set, signer).generateKeyPair();
        Signature s = Signature.getInstance("ML-DSA", signer);
        s.initSign(pair.getPrivate());
        s.update(message);
        byte[] signature = s.sign();
        for (Provider verifier : providers) {
          PublicKey pk =
              KeyFactory.getInstance("ML-DSA", verifier)
                  .generatePublic(new X509EncodedKeySpec(pair.getPublic().getEncoded()));
          assertTrue(
              verifies(verifier, pk, message, signature),
              set + " by " + signer.getName() + " refused by " + verifier.getName());
          byte[] tampered = signature.clone();
          tampered[tampered.length / 3] ^= 0x01;
          assertFalse(
              verifies(verifier, pk, message, tampered),
              set + " tampered signature accepted by " + verifier.getName());
          byte[] otherMessage = message.clone();
          otherMessage[0] ^= 0x01;
          assertFalse(
              verifies(verifier, pk, otherMessage, signature),
              set + " signature over another message accepted by " + verifier.getName());
        }
      }
    }
  }

  @Test
  void mlKem_encapsulatedByEachProvider_decapsulatedByTheOtherAndTamperGivesAnotherSecret()
      throws Exception {
    for (String set : List.of("ML-KEM-512", "ML-KEM-768", "ML-KEM-1024")) {
      for (Provider from : mlKemProviders()) {
        for (Provider to : mlKemProviders()) {
          KeyPair pair = KeyPairGenerator.getInstance(set, to).generateKeyPair();
          PublicKey ek =
              KeyFactory.getInstance(set, from)
                  .generatePublic(new X509EncodedKeySpec(pair.getPublic().getEncoded()));
          KEM.Encapsulated sent = KEM.getInstance("ML-KEM", from).newEncapsulator(ek).encapsulate();
          KEM.Decapsulator d = KEM.getInstance("ML-KEM", to).newDecapsulator(pair.getPrivate());
          assertArrayEquals(
              sent.key().getEncoded(),
              d.decapsulate(sent.encapsulation()).getEncoded(),
              set + " " + from.getName() + " -> " + to.getName());
          byte[] tampered = sent.encapsulation().clone();
          tampered[7] ^= 0x01;
          assertFalse(
              Arrays.equals(sent.key().getEncoded(), d.decapsulate(tampered).getEncoded()),
              set + " tampered ciphertext gave the same secret");
        }
      }
    }
  }

  @Test
  void slhDsa_bouncyCastleOnly_signsVerifiesAndRefusesTamper() throws Exception {
    // no second SLH-DSA provider here (the JDK 25 and ACCP 2.5 have none): the round trip and
    // tamper only
    for (String set : List.of("SLH-DSA-SHA2-128S", "SLH-DSA-SHA2-128F")) {
      KeyPair pair = KeyPairGenerator.getInstance(set, BC).generateKeyPair();
      Signature s = Signature.getInstance("SLH-DSA", BC);
      s.initSign(pair.getPrivate());
      s.update(new byte[] {1, 2, 3});
      byte[] signature = s.sign();
      assertEquals(
          set.endsWith("S") ? 7856 : 17088,
          signature.length,
          set + " signature size (FIPS 205 table 2)");
      assertTrue(verifies(BC, pair.getPublic(), new byte[] {1, 2, 3}, signature));
      signature[100] ^= 0x01;
      assertFalse(verifies(BC, pair.getPublic(), new byte[] {1, 2, 3}, signature));
    }
  }

  private static Provider accp() {
    TestProvider.requireAccp();
    return AmazonCorrettoCryptoProvider.INSTANCE;
  }

  /** True or false as the verifier says; an exception (a malformed signature) counts as refused. */
  private static boolean verifies(Provider p, PublicKey key, byte[] message, byte[] signature) {
    try {
      Signature v =
          Signature.getInstance(
              "ML-DSA".equals(key.getAlgorithm()) || key.getAlgorithm().startsWith("ML-DSA")
                  ? "ML-DSA"
                  : "SLH-DSA",
              p);
      v.initVerify(key);
      v.update(message);
      return v.verify(signature);
    } catch (java.security.GeneralSecurityException e) {
      return false;
    }
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
      return i;
    }
    return -1;
  }
}
