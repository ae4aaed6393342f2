package io.pkibench.workload.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.Openssl;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PresignedEcdsaTest {
  private static KeyPair p256() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    return g.generateKeyPair();
  }

  @Test
  void signatures_verifyWithTheJdkAndWithOpenssl_inBothForms(@TempDir Path dir) throws Exception {
    KeyPair key = p256();
    PresignedEcdsa signer = PresignedEcdsa.make(40);
    Files.writeString(
        dir.resolve("pub.pem"),
        "-----BEGIN PUBLIC KEY-----\n"
            + Base64.getMimeEncoder().encodeToString(key.getPublic().getEncoded())
            + "\n-----END PUBLIC KEY-----\n");
    for (int i = 0; i < 20; i++) {
      byte[] message = ("message " + i + " " + "x".repeat(i * 37)).getBytes(StandardCharsets.UTF_8);
      byte[] raw = signer.signRaw((ECPrivateKey) key.getPrivate(), message);
      assertEquals(64, raw.length);
      Signature jws = Signature.getInstance("SHA256withECDSAinP1363Format");
      jws.initVerify(key.getPublic());
      jws.update(message);
      assertTrue(jws.verify(raw), "ES256 signature " + i);

      byte[] der = signer.signDer((ECPrivateKey) key.getPrivate(), message);
      if (i % 5 == 0) { // openssl, apart from the JDK: a few are enough
        Files.write(dir.resolve("msg"), message);
        Files.write(dir.resolve("sig"), der);
        String r =
            Openssl.run(dir, "dgst", "-sha256", "-verify", "pub.pem", "-signature", "sig", "msg");
        assertTrue(r.contains("Verified OK"), r);
      }
      Signature x509 = Signature.getInstance("SHA256withECDSA");
      x509.initVerify(key.getPublic());
      x509.update(message);
      assertTrue(x509.verify(der), "DER signature " + i);
    }
    assertEquals(0, signer.left());
    assertEquals(0, signer.signedWithoutPresign());
  }

  @Test
  void noNonceTwice_andOnceUsedUp_theJdkSigns_counted() throws Exception {
    KeyPair key = p256();
    PresignedEcdsa signer = PresignedEcdsa.make(30);
    byte[] message = "the same message".getBytes(StandardCharsets.UTF_8);
    Set<BigInteger> rs = new HashSet<>();
    for (int i = 0; i < 30; i++)
      rs.add(
          new BigInteger(
              1, Arrays.copyOf(signer.signRaw((ECPrivateKey) key.getPrivate(), message), 32)));
    assertEquals(30, rs.size(), "each pair used once: 30 signatures, 30 different r");
    byte[] after = signer.signRaw((ECPrivateKey) key.getPrivate(), message);
    Signature v = Signature.getInstance("SHA256withECDSAinP1363Format");
    v.initVerify(key.getPublic());
    v.update(message);
    assertTrue(v.verify(after), "the JDK's signature, once the pool is used up");
    assertEquals(1, signer.signedWithoutPresign());
    assertEquals(0, signer.left());
  }

  @Test
  void aKeyOnAnotherCurve_isRefused() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp384r1"));
    ECPrivateKey p384 = (ECPrivateKey) g.generateKeyPair().getPrivate();
    PresignedEcdsa signer = PresignedEcdsa.make(2);
    GeneralSecurityException e =
        assertThrows(GeneralSecurityException.class, () -> signer.signRaw(p384, new byte[1]));
    assertTrue(e.getMessage().contains("P-256"), e.getMessage());
    assertEquals(2, signer.left(), "nothing taken from the pool");
  }

  @Test
  void signRaw_padsShortValuesTo32Bytes() throws Exception {
    // about one r or s in 128 has a leading zero byte: 2,000 signatures meet some
    KeyPair key = p256();
    PresignedEcdsa signer = PresignedEcdsa.make(2_000);
    byte[] message = {1, 2, 3};
    int padded = 0;
    Signature v = Signature.getInstance("SHA256withECDSAinP1363Format");
    for (int i = 0; i < 2_000; i++) {
      byte[] raw = signer.signRaw((ECPrivateKey) key.getPrivate(), message);
      if (raw[0] == 0 || raw[32] == 0) {
        padded++;
        v.initVerify(key.getPublic());
        v.update(message);
        assertTrue(v.verify(raw), "a padded signature verifies");
      }
    }
    assertTrue(padded > 0, "no r or s with a leading zero in 2,000: the padding went unchecked");
  }
}
