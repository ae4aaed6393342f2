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
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x509.Extension;

/**
 * {@code --verify} for a downloaded certificate, apart from the CA: its chain validates (PKIX) to
 * the issuers' root given beforehand, it carries the CSR's public key and every name asked for, and
 * it is valid now.
 *
 * <p>A root given as a URL (Pebble's management {@code /roots/0}) is fetched again when a chain
 * does not validate to the one held, at most once a second: a Pebble started again (after {@code
 * --fault kill-service}) has made a new root, and its certificates chain to that one. The chain is
 * then validated against the new root, and {@link #rootsFetchedAgain()} counts it, for the result
 * to show; a root fetched again that is the same one fails the chain as before.
 */
final class IssuedCheck {
  private static final int DNS_NAME = 2;
  private static final long REFETCH_EVERY_NANOS = 1_000_000_000L;

  /** Where the root is fetched again from; null for a root given as a file. */
  interface RootSource {
    X509Certificate fetch() throws Exception;
  }

  private volatile X509Certificate issuerRoot;
  private final RootSource source;
  private final AtomicLong fetchedAgain = new AtomicLong();
  private long lastFetchNanos = System.nanoTime() - REFETCH_EVERY_NANOS;

  IssuedCheck(X509Certificate issuerRoot) {
    this(issuerRoot, null);
  }

  IssuedCheck(X509Certificate issuerRoot, RootSource source) {
    this.issuerRoot = issuerRoot;
    this.source = source;
  }

  X509Certificate issuerRoot() {
    return issuerRoot;
  }

  long rootsFetchedAgain() {
    return fetchedAgain.get();
  }

  void check(List<X509Certificate> chain, PublicKey csrKey, List<String> names, Instant now)
      throws GeneralSecurityException {
    X509Certificate root = issuerRoot;
    try {
      check(chain, csrKey, names, now, root);
    } catch (ChainException e) {
      X509Certificate fresh = fetchAgain(root);
      if (fresh == null) throw e;
      check(chain, csrKey, names, now, fresh);
    }
  }

  /** The root fetched again when it may have changed; null when it has not, or cannot be had. */
  private synchronized X509Certificate fetchAgain(X509Certificate failedWith) {
    if (source == null) return null;
    if (issuerRoot != failedWith) return issuerRoot; // another worker fetched it meanwhile
    long now = System.nanoTime();
    if (now - lastFetchNanos < REFETCH_EVERY_NANOS) return null;
    lastFetchNanos = now;
    try {
      X509Certificate fresh = source.fetch();
      if (fresh.equals(failedWith)) return null;
      issuerRoot = fresh;
      fetchedAgain.incrementAndGet();
      return fresh;
    } catch (Exception e) {
      return null; // the chain fails against the root held, saying why
    }
  }

  /** A chain that does not validate to the root: the one failure a new root could explain. */
  private static final class ChainException extends CertificateException {
    ChainException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private void check(
      List<X509Certificate> chain,
      PublicKey csrKey,
      List<String> names,
      Instant now,
      X509Certificate issuerRoot)
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
    validate(path, issuerRoot, now);
  }

  /**
   * The issuers above the leaf that last validated to a root, with that root: a CA issues under the
   * same intermediate for hours, so each order's chain validates the leaf alone, anchored on that
   * intermediate, instead of the whole path again (one signature checked, not two). A chain whose
   * issuers differ, or a new root, validates whole.
   */
  private record Validated(X509Certificate root, List<X509Certificate> issuers) {}

  private volatile Validated validated;

  private void validate(List<X509Certificate> path, X509Certificate root, Instant now)
      throws ChainException {
    Validated known = validated;
    if (path.size() >= 2
        && known != null
        && known.root().equals(root)
        && known.issuers().equals(path.subList(1, path.size()))) {
      // the intermediate's own validity is checked again: it may have expired since
      try {
        path.get(1).checkValidity(Date.from(now));
      } catch (GeneralSecurityException e) {
        throw new ChainException(
            "the certificate's issuer "
                + path.get(1).getSubjectX500Principal().getName()
                + ": "
                + e.getMessage(),
            e);
      }
      pkix(path.subList(0, 1), path.get(1), nameConstraints(path.get(1)), now, root);
      return;
    }
    pkix(path, root, null, now, root);
    if (path.size() >= 2)
      validated = new Validated(root, List.copyOf(path.subList(1, path.size())));
  }

  /**
   * An anchor's name constraints, which PKIX does not take from a trust anchor's certificate (RFC
   * 5280 §6.1.1 (d)): given to it, they bind the leaf as they did when the intermediate was in the
   * path.
   */
  private static byte[] nameConstraints(X509Certificate issuer) {
    byte[] wrapped = issuer.getExtensionValue(Extension.nameConstraints.getId());
    return wrapped == null ? null : ASN1OctetString.getInstance(wrapped).getOctets();
  }

  private static void pkix(
      List<X509Certificate> path,
      X509Certificate anchor,
      byte[] nameConstraints,
      Instant now,
      X509Certificate root)
      throws ChainException {
    try {
      PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(anchor, nameConstraints)));
      params.setRevocationEnabled(false); // a new certificate: revocation is not what is measured
      params.setDate(Date.from(now));
      CertPathValidator.getInstance("PKIX")
          .validate(CertificateFactory.getInstance("X.509").generateCertPath(path), params);
    } catch (GeneralSecurityException e) {
      throw new ChainException(
          "the certificate does not chain to the issuers' root "
              + root.getSubjectX500Principal().getName()
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
