package io.pkibench.formats.ades;

import eu.europa.esig.dss.model.x509.CertificateToken;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * DSS's certificate wrappers, one per distinct certificate. DSS orders a signer's chain by checking
 * which certificate signed which on every CMS it builds, and remembers the answer inside the {@link
 * CertificateToken} (under its own lock); a fresh token per request repeated those RSA
 * verifications twice per signature, 13% of the signing service's CPU per CAdES. Bounded: past
 * {@link #CAPACITY} certificates the cache starts over rather than grow with every client.
 */
public final class CertificateTokens {
  static final int CAPACITY = 4096;
  private final Map<X509Certificate, CertificateToken> tokens = new ConcurrentHashMap<>();

  public CertificateToken of(X509Certificate certificate) {
    CertificateToken token = tokens.get(certificate);
    if (token != null) return token;
    if (tokens.size() >= CAPACITY) tokens.clear();
    return tokens.computeIfAbsent(certificate, CertificateToken::new);
  }

  /** The chain as tokens, in the same order. */
  public List<CertificateToken> of(List<X509Certificate> chain) {
    List<CertificateToken> result = new ArrayList<>(chain.size());
    for (X509Certificate c : chain) result.add(of(c));
    return result;
  }

  int size() {
    return tokens.size();
  }
}
