package io.pkibench.keys;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import javax.net.ssl.X509ExtendedKeyManager;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The key managers every built-in server and client presents its identity through. */
class TlsContextsTest {
  @TempDir Path dir;

  /**
   * The key as it is held, not a copy read back from a keystore: the JDK's PKIX key manager over a
   * PKCS#12 store decrypted it (PBKDF2) on every handshake, a new object each time, and a measured
   * handshake counted that work.
   */
  @Test
  void keyManagers_presentTheKeyAsHeld_andItsChain_forItsOwnKeyTypeOnly() throws Exception {
    SigningKey key = TestKeys.in(dir).keys.key("signer-rsa2048-1");
    X509ExtendedKeyManager manager = (X509ExtendedKeyManager) TlsContexts.keyManagers(key)[0];
    String alias = manager.chooseServerAlias("RSA", null, null);
    assertEquals(key.alias(), alias);
    assertSame(
        key.privateKey(),
        manager.getPrivateKey(alias),
        "the key object itself, no store round trip");
    assertSame(manager.getPrivateKey(alias), manager.getPrivateKey(alias));
    assertArrayEquals(
        key.chain().toArray(new X509Certificate[0]), manager.getCertificateChain(alias));
    assertEquals(key.alias(), manager.chooseClientAlias(new String[] {"EC", "RSA"}, null, null));
    assertNull(
        manager.chooseServerAlias("EC", null, null),
        "an RSA key is not offered for an EC certificate");
  }
}
