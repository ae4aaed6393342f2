package io.pkibench.formats.pec;

import io.pkibench.pki.TestPki;
import java.security.GeneralSecurityException;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertStore;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * What a provider checks of a peer's signing certificate beyond the index, on every document as the
 * seed's provider did (openssl smime -verify against the CA file, with the index's CRLs): the path
 * to a trusted root, each certificate's validity at the time of checking, and revocation by the
 * issuers' CRLs. Nothing is cached between documents: the cost of the check is part of the
 * verification path being measured.
 */
public final class CertificatePathCheck {
  private final Set<TrustAnchor> anchors;
  private final List<X509Certificate> intermediates;
  private final List<X509CRL> crls;

  public CertificatePathCheck(
      List<X509Certificate> roots, List<X509Certificate> intermediates, List<X509CRL> crls) {
    this.anchors = Set.copyOf(roots.stream().map(r -> new TrustAnchor(r, null)).toList());
    this.intermediates = List.copyOf(intermediates);
    this.crls = List.copyOf(crls);
  }

  /** The test PKI's root as the one anchor, its two intermediates, and the CRLs of all three. */
  public static CertificatePathCheck of(TestPki pki) {
    List<String> cas = List.of("intermediate-a", "intermediate-b");
    return new CertificatePathCheck(
        List.of(pki.certificate("root-ca")),
        cas.stream().map(pki::certificate).toList(),
        Stream.concat(Stream.of("root-ca"), cas.stream()).map(pki::crlOf).toList());
  }

  /**
   * Null when {@code cert} chains to an anchor, every certificate valid at {@code at} and none
   * revoked; else why not.
   */
  public String problem(X509Certificate cert, Date at) {
    try {
      List<X509Certificate> path = new ArrayList<>(List.of(cert));
      X509Certificate last = cert;
      for (int hops = 0; hops < 8; hops++) {
        X509Certificate issuer = issuerOf(last);
        if (issuer == null) break;
        path.add(issuer);
        last = issuer;
      }
      PKIXParameters params = new PKIXParameters(anchors);
      params.setDate(at);
      params.setRevocationEnabled(true);
      params.addCertStore(
          CertStore.getInstance("Collection", new CollectionCertStoreParameters(crls)));
      CertPathValidator.getInstance("PKIX")
          .validate(CertificateFactory.getInstance("X.509").generateCertPath(path), params);
      return null;
    } catch (CertPathValidatorException e) {
      return "its certificate path does not validate: "
          + e.getMessage()
          + (e.getReason() == null ? "" : " (" + e.getReason() + ")");
    } catch (GeneralSecurityException e) {
      return "its certificate path cannot be checked: " + e.getMessage();
    }
  }

  private X509Certificate issuerOf(X509Certificate cert) {
    for (X509Certificate i : intermediates) {
      if (i.getSubjectX500Principal().equals(cert.getIssuerX500Principal()) && !i.equals(cert))
        return i;
    }
    return null;
  }
}
