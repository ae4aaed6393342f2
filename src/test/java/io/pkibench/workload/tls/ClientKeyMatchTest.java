package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.PemKeys;
import java.math.BigInteger;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Instant;
import java.util.Date;
import javax.security.auth.x500.X500Principal;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;

/**
 * Whether a client key belongs to its certificate does not depend on which provider read the key:
 * BouncyCastle names an EC key "ECDSA" where the JDK says "EC" (the suite once refused a sound pair
 * for it, depending on which provider an earlier test had left first in line).
 */
class ClientKeyMatchTest {
  static X509Certificate certificateOf(KeyPair pair) throws Exception {
    X500Principal name = new X500Principal("CN=client");
    Instant now = Instant.now();
    var holder =
        new JcaX509v3CertificateBuilder(
                name,
                BigInteger.ONE,
                Date.from(now.minusSeconds(60)),
                Date.from(now.plusSeconds(3600)),
                name,
                pair.getPublic())
            .build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate()));
    return new JcaX509CertificateConverter().getCertificate(holder);
  }

  @Test
  void mismatch_anEcKeyReadByBouncyCastle_matchesTheJdksEcCertificate_anotherKeyDoesNot()
      throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair pair = generator.generateKeyPair();
    X509Certificate certificate = certificateOf(pair);
    PrivateKey readByBc =
        KeyFactory.getInstance("ECDSA", new BouncyCastleProvider())
            .generatePrivate(new PKCS8EncodedKeySpec(pair.getPrivate().getEncoded()));
    assertEquals("ECDSA", readByBc.getAlgorithm(), "BouncyCastle's name for it");
    assertEquals("EC", certificate.getPublicKey().getAlgorithm());

    assertEquals(
        "EC", PemKeys.jdkForm(readByBc).getAlgorithm(), "a PEM key comes out in the JDK's form");
    assertNull(ClientTlsParams.mismatch(readByBc, certificate), "the same key, whoever read it");
    assertNull(ClientTlsParams.mismatch(pair.getPrivate(), certificate));
    String other = ClientTlsParams.mismatch(generator.generateKeyPair().getPrivate(), certificate);
    assertTrue(
        other != null && other.contains("does not belong"),
        "another EC key is still caught by the probe signature: " + other);
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(2048);
    String family = ClientTlsParams.mismatch(rsa.generateKeyPair().getPrivate(), certificate);
    assertTrue(
        family != null && family.contains("a RSA key cannot belong to the EC certificate"), family);
  }
}
