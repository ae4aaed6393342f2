package io.pkibench.keys;

import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** TLS contexts from the test PKI's keys and certificates (JSSE, the JDK's TLS). */
public final class TlsContexts {
  private TlsContexts() {}

  /** A server (or client) identity: {@code key}'s private key and chain. */
  public static SSLContext withIdentity(SigningKey key, X509Certificate trusted)
      throws GeneralSecurityException {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keyManagers(key), trustManagers(trusted), null);
    return context;
  }

  /**
   * Key managers presenting {@code key} and its chain, held as they are: the JDK's PKIX key manager
   * over a PKCS#12 store read the key back out of the store, decrypting it (PBKDF2), on every
   * handshake, resumed ones too; that was a fifth of a PEC provider's CPU and was counted in every
   * server handshake measured.
   */
  public static KeyManager[] keyManagers(SigningKey key) {
    return new KeyManager[] {new SingleKeyManager(key)};
  }

  /** A client that trusts only {@code root} (the test PKI's root). */
  public static SSLContext trusting(X509Certificate root) throws GeneralSecurityException {
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trustManagers(root), null);
    return context;
  }

  /**
   * Trust managers accepting only chains to {@code root}; null (the JDK's defaults) when {@code
   * root} is null.
   */
  public static javax.net.ssl.TrustManager[] trustManagers(X509Certificate root)
      throws GeneralSecurityException {
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

  /**
   * Trust managers accepting only chains to {@code root} whose every certificate is absent from
   * {@code crls}; no network fetch (CRLs given, OCSP off): a certificate whose CA has no CRL here
   * fails.
   */
  public static javax.net.ssl.TrustManager[] trustManagersCheckingRevocation(
      X509Certificate root, java.util.List<java.security.cert.X509CRL> crls)
      throws GeneralSecurityException {
    var params =
        new java.security.cert.PKIXBuilderParameters(
            java.util.Set.of(new java.security.cert.TrustAnchor(root, null)),
            new java.security.cert.X509CertSelector());
    params.addCertStore(
        java.security.cert.CertStore.getInstance(
            "Collection", new java.security.cert.CollectionCertStoreParameters(crls)));
    var revocation =
        (java.security.cert.PKIXRevocationChecker)
            java.security.cert.CertPathValidator.getInstance("PKIX").getRevocationChecker();
    revocation.setOptions(
        java.util.EnumSet.of(
            java.security.cert.PKIXRevocationChecker.Option.PREFER_CRLS,
            java.security.cert.PKIXRevocationChecker.Option.NO_FALLBACK));
    params.setRevocationEnabled(true);
    params.addCertPathChecker(revocation);
    TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
    factory.init(new javax.net.ssl.CertPathTrustManagerParameters(params));
    return factory.getTrustManagers();
  }
}
