package io.pkibench.formats.tls;

import io.netty.handler.ssl.OpenSslCertificateException;
import io.netty.internal.tcnative.CertificateVerifier;
import java.io.IOException;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * A server's check of client certificates for BoringSSL: the JDK's PKIX check, with a certificate
 * whose extended key usage excludes TLS client authentication refused as such. netty hands
 * BoringSSL an error code only for an expired or revoked certificate; any other refusal went out as
 * an {@code internal_error} alert, which tells the client the server broke rather than that its
 * certificate has the wrong purpose. Refused here with X509_V_ERR_INVALID_PURPOSE, it goes out as
 * {@code unsupported_certificate}, as OpenSSL's does.
 */
final class ClientPurposeCheck extends X509ExtendedTrustManager {
  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
  private static final String ANY_PURPOSE = "2.5.29.37.0";
  private final X509ExtendedTrustManager pkix;

  private ClientPurposeCheck(X509ExtendedTrustManager pkix) {
    this.pkix = pkix;
  }

  /** Trusting client certificates that chain to {@code root}. */
  static ClientPurposeCheck trusting(X509Certificate root) throws GeneralSecurityException {
    KeyStore anchors = KeyStore.getInstance(KeyStore.getDefaultType());
    try {
      anchors.load(null, null);
    } catch (IOException e) {
      throw new GeneralSecurityException("cannot make an empty key store: " + e.getMessage(), e);
    }
    anchors.setCertificateEntry("client-root", root);
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(anchors);
    return new ClientPurposeCheck((X509ExtendedTrustManager) factory.getTrustManagers()[0]);
  }

  private static void purpose(X509Certificate[] chain) throws CertificateException {
    if (chain == null || chain.length == 0)
      return; // the PKIX check says what is wrong with no chain
    List<String> purposes;
    try {
      purposes = chain[0].getExtendedKeyUsage();
    } catch (CertificateParsingException e) {
      throw new OpenSslCertificateException(
          "the client certificate's extended key usage cannot be read: " + e.getMessage(),
          CertificateVerifier.X509_V_ERR_INVALID_PURPOSE);
    }
    if (purposes != null && !purposes.contains(CLIENT_AUTH) && !purposes.contains(ANY_PURPOSE)) {
      throw new OpenSslCertificateException(
          "the client certificate "
              + chain[0].getSubjectX500Principal()
              + " is not for TLS client authentication"
              + " (extended key usage "
              + purposes
              + ")",
          CertificateVerifier.X509_V_ERR_INVALID_PURPOSE);
    }
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    purpose(chain);
    pkix.checkClientTrusted(chain, authType, engine);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    purpose(chain);
    pkix.checkClientTrusted(chain, authType, socket);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    purpose(chain);
    pkix.checkClientTrusted(chain, authType);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
      throws CertificateException {
    pkix.checkServerTrusted(chain, authType, engine);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
      throws CertificateException {
    pkix.checkServerTrusted(chain, authType, socket);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType)
      throws CertificateException {
    pkix.checkServerTrusted(chain, authType);
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return pkix.getAcceptedIssuers();
  }
}
