package io.pkibench.pki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.security.Key;
import java.security.KeyPairGenerator;
import org.junit.jupiter.api.Test;

/**
 * The signature algorithm for a key: the Edwards curve read from the key, as the JDK names both
 * curves' keys "EdDSA".
 */
class KeyAlgorithmTest {

  @Test
  void edwardsKeys_curveFromTheKey_notFromItsName() throws Exception {
    var ed448 = KeyPairGenerator.getInstance("Ed448").generateKeyPair();
    var ed25519 = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
    assertEquals("EdDSA", ed448.getPublic().getAlgorithm(), "the JDK's name for both curves");
    assertEquals("Ed448", KeyAlgorithm.signatureAlgorithmFor(ed448.getPublic()));
    assertEquals("Ed448", KeyAlgorithm.signatureAlgorithmFor(ed448.getPrivate()));
    assertEquals("Ed25519", KeyAlgorithm.signatureAlgorithmFor(ed25519.getPublic()));
    // a provider's key that is no java.security.interfaces.EdECKey: the curve from its encoding
    assertEquals("Ed448", KeyAlgorithm.signatureAlgorithmFor(opaque(ed448.getPublic())));
    assertEquals("Ed448", KeyAlgorithm.signatureAlgorithmFor(opaquePrivate(ed448.getPrivate())));
    assertEquals("Ed25519", KeyAlgorithm.signatureAlgorithmFor(opaque(ed25519.getPublic())));
    assertEquals(
        "SHA256withRSA",
        KeyAlgorithm.signatureAlgorithmFor(
            KeyPairGenerator.getInstance("RSA").generateKeyPair().getPublic()));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            KeyAlgorithm.signatureAlgorithmFor(
                KeyPairGenerator.getInstance("DSA").generateKeyPair().getPublic()));
  }

  private static java.security.PublicKey opaque(Key key) {
    return new java.security.PublicKey() {
      @Override
      public String getAlgorithm() {
        return "EdDSA";
      }

      @Override
      public String getFormat() {
        return key.getFormat();
      }

      @Override
      public byte[] getEncoded() {
        return key.getEncoded();
      }
    };
  }

  private static java.security.PrivateKey opaquePrivate(Key key) {
    return new java.security.PrivateKey() {
      @Override
      public String getAlgorithm() {
        return "EdDSA";
      }

      @Override
      public String getFormat() {
        return key.getFormat();
      }

      @Override
      public byte[] getEncoded() {
        return key.getEncoded();
      }
    };
  }
}
