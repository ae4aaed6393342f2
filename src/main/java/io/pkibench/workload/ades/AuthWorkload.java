package io.pkibench.workload.ades;

import io.pkibench.keys.SigningKey;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.pki.TestPki;
import io.pkibench.workload.Operation;
import io.pkibench.workload.ParamSpec;
import io.pkibench.workload.Params;
import io.pkibench.workload.Workload;
import io.pkibench.workload.WorkloadContext;
import io.pkibench.workload.WorkloadFactory;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.SignatureException;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertStore;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.x509.CRLDistPoint;
import org.bouncycastle.asn1.x509.DistributionPoint;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;

/**
 * Certificate login as a signing service does it: the server issues a nonce, the client signs it
 * with its key (the key source), the server checks the signature and validates the certificate path
 * to the test PKI's root with revocation from CRLs. {@code crl=pki}: CRLs read once (what a server
 * with a warm CRL cache does); {@code crl=fetch}: every validation downloads the CRLs from the
 * certificates' distribution points (run {@code pkibench serve crl}), the cost the original study
 * said its single certificate hid.
 */
public final class AuthWorkload implements Workload {
  private final List<SigningKey> signers;
  private final TrustAnchor anchor;
  private final List<X509CRL> cachedCrls;
  private final HttpClient http;

  private AuthWorkload(List<SigningKey> signers, TrustAnchor anchor, List<X509CRL> cachedCrls, HttpClient http) {
    this.signers = signers;
    this.anchor = anchor;
    this.cachedCrls = cachedCrls;
    this.http = http;
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "auth";
    }

    @Override
    public String description() {
      return "certificate login: nonce, client signature, server checks signature, path and CRL revocation";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of(
          ParamSpec.choice("alg", "rsa2048", "client key type", "rsa2048", "ecdsa-p256"),
          ParamSpec.choice("certs", "1", "client certificates used in turn (from both intermediates: different CRLs)", "1", "2", "3", "4"),
          ParamSpec.choice("crl", "pki", "CRLs read once from the test PKI, or fetched from their distribution points on every login",
              "pki", "fetch"));
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      KeyAlgorithm alg = KeyAlgorithm.parse(params.get("alg"));
      List<SigningKey> signers = new ArrayList<>();
      for (int i = 1; i <= Integer.parseInt(params.get("certs")); i++) signers.add(context.keys().key(Entity.signerAlias(alg, i)));
      TestPki pki = context.pki().get();
      TrustAnchor anchor = new TrustAnchor(pki.certificate("root-ca"), null);
      boolean fetch = params.get("crl").equals("fetch");
      return new AuthWorkload(signers, anchor, fetch ? null : crlsOf(pki),
          fetch ? HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build() : null);
    }
  }

  static List<X509CRL> crlsOf(TestPki pki) throws IOException, GeneralSecurityException {
    List<X509CRL> crls = new ArrayList<>();
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    for (Entity ca : pki.entities()) {
      if (ca.isCa()) crls.add((X509CRL) x509.generateCRL(new ByteArrayInputStream(Files.readAllBytes(pki.crl(ca.alias())))));
    }
    return crls;
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    SplittableRandom random = new SplittableRandom(worker);
    byte[] nonce = new byte[32];
    int[] turn = {worker};
    return () -> {
      random.nextBytes(nonce); // the server's challenge
      SigningKey client = signers.get(turn[0]++ % signers.size());
      String algorithm = client.privateKey().getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
      Signature sign = Signature.getInstance(algorithm, client.provider());
      sign.initSign(client.privateKey());
      sign.update(nonce);
      byte[] response = sign.sign();
      // The server's side: only the certificates and the signature reach it.
      login(nonce, response, algorithm, client.chain());
    };
  }

  /** Throws unless the signature over the nonce verifies and the chain validates, revocation included. */
  void login(byte[] nonce, byte[] response, String algorithm, List<X509Certificate> chain) throws Exception {
    Signature verify = Signature.getInstance(algorithm);
    verify.initVerify(chain.get(0).getPublicKey());
    verify.update(nonce);
    if (!verify.verify(response)) throw new SignatureException("the login signature does not verify");
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    List<X509Certificate> path = chain.stream().filter(c -> !c.getSubjectX500Principal().equals(c.getIssuerX500Principal())).toList();
    CertPath certPath = x509.generateCertPath(path);
    PKIXParameters parameters = new PKIXParameters(Set.of(anchor));
    parameters.setRevocationEnabled(true);
    List<X509CRL> crls = cachedCrls != null ? cachedCrls : fetchCrls(path);
    parameters.addCertStore(CertStore.getInstance("Collection", new CollectionCertStoreParameters(crls)));
    CertPathValidator.getInstance("PKIX").validate(certPath, parameters);
  }

  private List<X509CRL> fetchCrls(List<X509Certificate> path) throws Exception {
    List<X509CRL> crls = new ArrayList<>();
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    for (X509Certificate c : path) {
      for (String url : distributionPoints(c)) {
        HttpResponse<byte[]> reply = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
            HttpResponse.BodyHandlers.ofByteArray());
        if (reply.statusCode() != 200) throw new IOException("CRL " + url + " answered HTTP " + reply.statusCode());
        crls.add((X509CRL) x509.generateCRL(new ByteArrayInputStream(reply.body())));
      }
    }
    return crls;
  }

  static List<String> distributionPoints(X509Certificate c) {
    byte[] extension = c.getExtensionValue(Extension.cRLDistributionPoints.getId());
    List<String> urls = new ArrayList<>();
    if (extension == null) return urls;
    CRLDistPoint points = CRLDistPoint.getInstance(ASN1OctetString.getInstance(extension).getOctets());
    for (DistributionPoint dp : points.getDistributionPoints()) {
      if (dp.getDistributionPoint() == null || !(dp.getDistributionPoint().getName() instanceof GeneralNames names)) continue;
      for (GeneralName name : names.getNames()) {
        if (name.getTagNo() == GeneralName.uniformResourceIdentifier) urls.add(name.getName().toString());
      }
    }
    return urls;
  }
}
