package io.pkibench.formats.ades;

import java.security.GeneralSecurityException;
import java.security.cert.CertPathBuilder;
import java.security.cert.CertStore;
import java.security.cert.CertificateException;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CertSelector;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The certificates a user vouches for a service's signer with ({@code -p trust=tsa-chain.pem}): the
 * self-signed ones are the anchors, the others help build the path; a bundle without a self-signed
 * certificate is trusted as it is (a user who hands over just the TSA's certificate trusts it). A
 * signer found to chain is remembered, as a client with a cache does: the run measures the service,
 * not PKIX. Revocation is not checked (a time-stamp or OCSP client asking about its own responder
 * would recurse).
 */
public final class CertificateTrust {
  private final Set<TrustAnchor> anchors;
  private final X509Certificate firstAnchor;
  private final List<X509Certificate> all;
  private final Set<X509Certificate> vouched = ConcurrentHashMap.newKeySet();

  private CertificateTrust(
      Set<TrustAnchor> anchors, X509Certificate firstAnchor, List<X509Certificate> all) {
    this.anchors = anchors;
    this.firstAnchor = firstAnchor;
    this.all = all;
  }

  public static CertificateTrust of(List<X509Certificate> certificates) {
    List<X509Certificate> roots =
        certificates.stream()
            .filter(c -> c.getSubjectX500Principal().equals(c.getIssuerX500Principal()))
            .toList();
    List<X509Certificate> anchors = roots.isEmpty() ? certificates : roots;
    return new CertificateTrust(
        anchors.stream().map(c -> new TrustAnchor(c, null)).collect(Collectors.toUnmodifiableSet()),
        anchors.get(0),
        List.copyOf(certificates));
  }

  /**
   * Every certificate of the bundle, anchors included: where a signer missing from its own message
   * may be found.
   */
  public List<X509Certificate> certificates() {
    return all;
  }

  /** The bundle's first anchor, for checks that take one. */
  public X509Certificate anchor() {
    return firstAnchor;
  }

  /**
   * Throws unless {@code signer} is an anchor or chains to one through {@code carried} and the
   * bundle, at {@code at}.
   */
  public void check(X509Certificate signer, Collection<X509Certificate> carried, Date at)
      throws CertificateException {
    if (vouched.contains(signer)) return;
    if (anchors.stream().noneMatch(a -> a.getTrustedCert().equals(signer))) {
      try {
        List<X509Certificate> pool = new ArrayList<>(carried);
        pool.addAll(all);
        X509CertSelector target = new X509CertSelector();
        target.setCertificate(signer);
        PKIXBuilderParameters parameters = new PKIXBuilderParameters(anchors, target);
        parameters.addCertStore(
            CertStore.getInstance("Collection", new CollectionCertStoreParameters(pool)));
        parameters.setRevocationEnabled(false);
        parameters.setDate(at);
        CertPathBuilder.getInstance("PKIX").build(parameters);
      } catch (GeneralSecurityException e) {
        throw new CertificateException(
            "its certificate '"
                + signer.getSubjectX500Principal().getName()
                + "' does not chain to the trusted "
                + names()
                + " ("
                + e.getMessage()
                + ")");
      }
    }
    vouched.add(signer);
  }

  private String names() {
    return anchors.stream()
        .map(a -> "'" + a.getTrustedCert().getSubjectX500Principal().getName() + "'")
        .sorted()
        .collect(Collectors.joining(", "));
  }
}
