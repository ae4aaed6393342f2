package io.pkibench.workload.acme;

import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Set;

/**
 * {@code --verify} for a downloaded certificate, apart from the CA: its chain validates (PKIX) to
 * the issuers' root given beforehand, it carries the CSR's public key and every name asked for, and
 * it is valid now.
 */
record IssuedCheck(X509Certificate issuerRoot) {
  private static final int DNS_NAME = 2;

  void check(List<X509Certificate> chain, PublicKey csrKey, List<String> names, Instant now)
      throws GeneralSecurityException {
    if (chain.isEmpty()) throw new CertificateException("the CA sent no certificate");
    X509Certificate leaf = chain.get(0);
    if (!leaf.getPublicKey().equals(csrKey))
      throw new CertificateException("the certificate carries another key than the CSR's");
    List<String> held = dnsNames(leaf);
    for (String name : names)
      if (!held.contains(name))
        throw new CertificateException("the certificate names " + held + ", not " + name);
    List<X509Certificate> path = new ArrayList<>();
    for (X509Certificate c : chain) {
      if (c.getSubjectX500Principal().equals(issuerRoot.getSubjectX500Principal())
          && c.getPublicKey().equals(issuerRoot.getPublicKey())) break; // the anchor itself
      path.add(c);
    }
    PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(issuerRoot, null)));
    params.setRevocationEnabled(false); // a new certificate: revocation is not what is measured
    params.setDate(Date.from(now));
    try {
      CertPathValidator.getInstance("PKIX")
          .validate(CertificateFactory.getInstance("X.509").generateCertPath(path), params);
    } catch (GeneralSecurityException e) {
      throw new CertificateException(
          "the certificate does not chain to the issuers' root "
              + issuerRoot.getSubjectX500Principal().getName()
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static List<String> dnsNames(X509Certificate c) throws CertificateParsingException {
    Collection<List<?>> sans = c.getSubjectAlternativeNames();
    List<String> names = new ArrayList<>();
    if (sans != null)
      for (List<?> san : sans)
        if (((Integer) san.get(0)) == DNS_NAME) names.add((String) san.get(1));
    return names;
  }
}
