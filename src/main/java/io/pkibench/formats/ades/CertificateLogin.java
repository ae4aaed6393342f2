package io.pkibench.formats.ades;

import io.pkibench.keys.SignatureVerification;
import io.pkibench.pki.Entity;
import io.pkibench.pki.TestPki;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.GeneralSecurityException;
import java.security.SignatureException;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertStore;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXParameters;
import java.security.cert.PKIXRevocationChecker;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x509.CRLDistPoint;
import org.bouncycastle.asn1.x509.DistributionPoint;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;

/**
 * The server side of certificate login: the signature over the server's nonce, then the path to the
 * test PKI's root with revocation checked one of three ways ({@link Revocation}). Thread-safe.
 */
public final class CertificateLogin {
  /** How a login learns whether the client's certificates are revoked. */
  public enum Revocation {
    /** CRLs read once from the test PKI: a server with a warm CRL cache. */
    CRL("crl"),
    /**
     * CRLs downloaded from the certificates' distribution points at every login ({@code serve
     * crl}).
     */
    CRL_FETCH("crl-fetch"),
    /**
     * An OCSP request per certificate of the path, to the responder its AIA names ({@code serve
     * crl}), no fallback to CRLs.
     */
    OCSP("ocsp");

    public final String flag;

    Revocation(String flag) {
      this.flag = flag;
    }

    public static Revocation parse(String flag) {
      for (Revocation r : values()) if (r.flag.equals(flag)) return r;
      throw new IllegalArgumentException(
          "unknown revocation check '" + flag + "'; use crl, crl-fetch or ocsp");
    }

    public static String[] flags() {
      return Arrays.stream(values()).map(r -> r.flag).toArray(String[]::new);
    }
  }

  private final TrustAnchor anchor;
  private final Revocation revocation;
  private final List<X509CRL> cachedCrls;
  private final HttpClient http;

  /**
   * OCSP only: a responder named by the user instead of the certificates' own, and the certificate
   * it signs with (may be null).
   */
  private final OutsideResponder outside;

  /**
   * An OCSP responder the certificates do not name: asked about the login certificate only (one
   * responder answers for one CA; the CA certificates' own status is not asked), its answers signed
   * by the CA, a delegate of it, or {@code certificate} when given.
   */
  public record OutsideResponder(URI url, X509Certificate certificate) {}

  private CertificateLogin(
      TrustAnchor anchor,
      Revocation revocation,
      List<X509CRL> cachedCrls,
      HttpClient http,
      OutsideResponder outside) {
    this.anchor = anchor;
    this.revocation = revocation;
    this.cachedCrls = cachedCrls;
    this.http = http;
    this.outside = outside;
  }

  /** OCSP to {@code responder} instead of the responders the certificates name. */
  public static CertificateLogin withOcspResponder(TestPki pki, OutsideResponder responder) {
    return new CertificateLogin(
        new TrustAnchor(pki.certificate("root-ca"), null), Revocation.OCSP, null, null, responder);
  }

  public static CertificateLogin of(TestPki pki, Revocation revocation)
      throws IOException, GeneralSecurityException {
    TrustAnchor anchor = new TrustAnchor(pki.certificate("root-ca"), null);
    return switch (revocation) {
      case CRL -> new CertificateLogin(anchor, revocation, crlsOf(pki), null, null);
      case CRL_FETCH ->
          new CertificateLogin(
              anchor,
              revocation,
              null,
              HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build(),
              null);
      case OCSP -> {
        for (Entity e : pki.entities()) {
          if (!e.isCa()
              && pki.certificate(e.alias()).getExtensionValue(Extension.authorityInfoAccess.getId())
                  == null) {
            throw new IllegalArgumentException(
                "the test PKI in "
                    + pki.dir()
                    + " predates OCSP: its certificates name no OCSP responder;"
                    + " re-create it (move the directory away, then: pkibench pki init --dir "
                    + pki.dir()
                    + ")");
          }
        }
        yield new CertificateLogin(anchor, revocation, null, null, null);
      }
    };
  }

  private static List<X509CRL> crlsOf(TestPki pki) {
    return pki.entities().stream().filter(Entity::isCa).map(ca -> pki.crlOf(ca.alias())).toList();
  }

  /**
   * Throws unless the signature over the nonce verifies and the chain (leaf first) validates,
   * revocation included.
   */
  public void login(byte[] nonce, byte[] response, String algorithm, List<X509Certificate> chain)
      throws Exception {
    try {
      SignatureVerification.verify(algorithm, chain.get(0).getPublicKey(), nonce, response);
    } catch (SignatureException e) {
      throw new SignatureException("the login signature does not verify", e);
    }
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    // Only the trust anchor itself is left out of the path, if the client sent it. Leaving out
    // every
    // self-signed certificate, as this once did, left a self-signed leaf an empty path, which PKIX
    // accepts:
    // any self-signed certificate could log in.
    List<X509Certificate> path =
        chain.stream().filter(c -> !c.equals(anchor.getTrustedCert())).toList();
    if (path.isEmpty() || !path.get(0).equals(chain.get(0))) {
      throw new CertPathValidatorException(
          "the login certificate is the trust anchor itself, not a client's");
    }
    CertPath certPath = x509.generateCertPath(path);
    PKIXParameters parameters = new PKIXParameters(Set.of(anchor));
    CertPathValidator validator = CertPathValidator.getInstance("PKIX");
    if (revocation == Revocation.OCSP) {
      // The JDK's own OCSP client (an implementation independent of the responder's BouncyCastle),
      // asked through a checker of our own so no global security property has to change.
      PKIXRevocationChecker ocsp = (PKIXRevocationChecker) validator.getRevocationChecker();
      ocsp.setOptions(
          outside == null
              ? EnumSet.of(PKIXRevocationChecker.Option.NO_FALLBACK)
              : EnumSet.of(
                  PKIXRevocationChecker.Option.NO_FALLBACK,
                  PKIXRevocationChecker.Option.ONLY_END_ENTITY));
      if (outside != null) {
        ocsp.setOcspResponder(outside.url());
        if (outside.certificate() != null) ocsp.setOcspResponderCert(outside.certificate());
      }
      parameters.setRevocationEnabled(false);
      parameters.addCertPathChecker(ocsp);
    } else {
      parameters.setRevocationEnabled(true);
      List<X509CRL> crls = cachedCrls != null ? cachedCrls : fetchCrls(path);
      parameters.addCertStore(
          CertStore.getInstance("Collection", new CollectionCertStoreParameters(crls)));
    }
    validator.validate(certPath, parameters);
  }

  private List<X509CRL> fetchCrls(List<X509Certificate> path) throws Exception {
    List<X509CRL> crls = new ArrayList<>();
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    for (X509Certificate c : path) {
      for (String url : distributionPoints(c)) {
        HttpResponse<byte[]> reply =
            http.send(
                HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(10))
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        if (reply.statusCode() != 200)
          throw new IOException("CRL " + url + " answered HTTP " + reply.statusCode());
        crls.add((X509CRL) x509.generateCRL(new ByteArrayInputStream(reply.body())));
      }
    }
    return crls;
  }

  static List<String> distributionPoints(X509Certificate c) {
    byte[] extension = c.getExtensionValue(Extension.cRLDistributionPoints.getId());
    List<String> urls = new ArrayList<>();
    if (extension == null) return urls;
    CRLDistPoint points =
        CRLDistPoint.getInstance(ASN1OctetString.getInstance(extension).getOctets());
    for (DistributionPoint dp : points.getDistributionPoints()) {
      if (dp.getDistributionPoint() == null
          || !(dp.getDistributionPoint().getName() instanceof GeneralNames names)) continue;
      for (GeneralName name : names.getNames()) {
        if (name.getTagNo() == GeneralName.uniformResourceIdentifier)
          urls.add(name.getName().toString());
      }
    }
    return urls;
  }
}
