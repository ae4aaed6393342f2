package io.pkibench.keys;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertPathValidator;
import java.security.cert.CertStore;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.PKIXRevocationChecker;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CRL;
import java.security.cert.X509CertSelector;
import java.security.cert.X509Certificate;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.CertPathTrustManagerParameters;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
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
  public static TrustManager[] trustManagers(X509Certificate root) throws GeneralSecurityException {
    if (root == null) return null;
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      trust.setCertificateEntry("root", root);
      TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
      factory.init(trust);
      return factory.getTrustManagers();
    } catch (IOException e) {
      throw new GeneralSecurityException(e);
    }
  }

  /**
   * Trust managers accepting only chains to {@code root} whose every certificate is absent from
   * {@code crls}; no network fetch (CRLs given, OCSP off): a certificate whose CA has no CRL here
   * fails.
   */
  public static TrustManager[] trustManagersCheckingRevocation(
      X509Certificate root, List<X509CRL> crls) throws GeneralSecurityException {
    var params =
        new PKIXBuilderParameters(Set.of(new TrustAnchor(root, null)), new X509CertSelector());
    params.addCertStore(
        CertStore.getInstance("Collection", new CollectionCertStoreParameters(crls)));
    var revocation =
        (PKIXRevocationChecker) CertPathValidator.getInstance("PKIX").getRevocationChecker();
    revocation.setOptions(
        EnumSet.of(
            PKIXRevocationChecker.Option.PREFER_CRLS, PKIXRevocationChecker.Option.NO_FALLBACK));
    params.setRevocationEnabled(true);
    params.addCertPathChecker(revocation);
    TrustManagerFactory factory = TrustManagerFactory.getInstance("PKIX");
    factory.init(new CertPathTrustManagerParameters(params));
    return factory.getTrustManagers();
  }
}
