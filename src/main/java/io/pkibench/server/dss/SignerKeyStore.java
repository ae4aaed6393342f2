package io.pkibench.server.dss;

import eu.europa.esig.dss.token.AbstractKeyStoreTokenConnection;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.SigningKey;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;

/**
 * DSS's server-signing token over the test PKI's signer keys: DSS's own key-store token (it signs
 * with the JDK's providers, as DSS does), its store filled in memory from the key source, under a
 * password made here and never written anywhere. A key the source cannot hand over as key material
 * (a PKCS#11 token's) cannot go in it.
 */
final class SignerKeyStore extends AbstractKeyStoreTokenConnection {
  private final KeyStore store;
  private final KeyStore.PasswordProtection password;

  private SignerKeyStore(KeyStore store, KeyStore.PasswordProtection password) {
    this.store = store;
    this.password = password;
  }

  static SignerKeyStore of(KeySource keys, List<String> aliases)
      throws GeneralSecurityException, IOException {
    byte[] random = new byte[18];
    new SecureRandom().nextBytes(random);
    KeyStore.PasswordProtection password =
        new KeyStore.PasswordProtection(Base64.getEncoder().encodeToString(random).toCharArray());
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    for (String alias : aliases) {
      SigningKey key = keys.key(alias);
      try {
        store.setKeyEntry(
            alias,
            key.privateKey(),
            password.getPassword(),
            key.chain().toArray(X509Certificate[]::new));
      } catch (KeyStoreException e) {
        throw new GeneralSecurityException(
            "--keys "
                + keys.describe()
                + ": DSS's server-signing token holds key material in a key store, and key '"
                + alias
                + "' cannot be put in one ("
                + e.getMessage()
                + "); serve dss with --keys software",
            e);
      }
    }
    return new SignerKeyStore(store, password);
  }

  int size() {
    try {
      return store.size();
    } catch (KeyStoreException e) {
      return 0;
    }
  }

  @Override
  protected KeyStore getKeyStore() {
    return store;
  }

  @Override
  protected KeyStore.PasswordProtection getKeyProtectionParameter() {
    return password;
  }

  @Override
  public void close() {}
}
