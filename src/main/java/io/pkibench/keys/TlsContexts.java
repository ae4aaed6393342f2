package io.pkibench.keys;

import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** TLS contexts from the test PKI's keys and certificates (JSSE, the JDK's TLS). */
public final class TlsContexts {
  private TlsContexts() {}

  /** A server (or client) identity: {@code key}'s private key and chain. */
  public static SSLContext withIdentity(SigningKey key, X509Certificate trusted) throws GeneralSecurityException {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keyManagers(key), trustManagers(trusted), null);
    return context;
  }

  /** Key managers presenting {@code key} and its chain. */
  public static javax.net.ssl.KeyManager[] keyManagers(SigningKey key) throws GeneralSecurityException {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      char[] transientPassword = "in-memory".toCharArray(); // never written anywhere: the store lives in memory only
      store.setKeyEntry(key.alias(), key.privateKey(), transientPassword, key.chain().toArray(new X509Certificate[0]));
      KeyManagerFactory keys = KeyManagerFactory.getInstance("PKIX");
      keys.init(store, transientPassword);
      return keys.getKeyManagers();
    } catch (java.io.IOException e) {
      throw new GeneralSecurityException(e);
    }
  }

  /** A client that trusts only {@code root} (the test PKI's root). */
  public static SSLContext trusting(X509Certificate root) throws GeneralSecurityException {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trustManagers(root), null);
    return context;
  }

  /** Trust managers accepting only chains to {@code root}; null (the JDK's defaults) when {@code root} is null. */
  public static javax.net.ssl.TrustManager[] trustManagers(X509Certificate root) throws GeneralSecurityException {
    if (root == null) return null;
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("root", root);
      TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
      factory.init(trust);
      return factory.getTrustManagers();
    } catch (java.io.IOException e) {
      throw new GeneralSecurityException(e);
    }
  }
}
