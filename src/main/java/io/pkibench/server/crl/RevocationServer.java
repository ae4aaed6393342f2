package io.pkibench.server.crl;

import com.sun.net.httpserver.HttpExchange;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.pki.TestPki;
import io.pkibench.server.HttpEndpoints;
import java.io.IOException;
import java.math.BigInteger;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.X509CRL;
import java.security.cert.X509CRLEntry;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bouncycastle.asn1.ocsp.OCSPObjectIdentifiers;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.Extensions;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.bouncycastle.cert.ocsp.BasicOCSPRespBuilder;
import org.bouncycastle.cert.ocsp.CertificateID;
import org.bouncycastle.cert.ocsp.CertificateStatus;
import org.bouncycastle.cert.ocsp.OCSPException;
import org.bouncycastle.cert.ocsp.OCSPReq;
import org.bouncycastle.cert.ocsp.OCSPRespBuilder;
import org.bouncycastle.cert.ocsp.Req;
import org.bouncycastle.cert.ocsp.RevokedStatus;
import org.bouncycastle.cert.ocsp.UnknownStatus;
import org.bouncycastle.cert.ocsp.jcajce.JcaBasicOCSPRespBuilder;
import org.bouncycastle.operator.DigestCalculatorProvider;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;

/**
 * The test PKI's revocation services, at the URLs its certificates name: CRLs at {@code GET
 * /crl/CA.crl} (DER, read once at start: a fetch costs no disk I/O) and an OCSP responder per CA at
 * {@code /ocsp/CA} (RFC 6960: POST {@code application/ocsp-request}, or GET with the base64 request
 * in the path). OCSP answers come from the same CRL, so both agree: a serial on the CA's CRL is
 * revoked with the CRL's date and reason, a serial the CA issued is good, anything else unknown.
 * Each response is signed by the CA itself (no delegated responder) when asked, echoing the
 * request's nonce; a request that does not parse gets {@code malformedRequest}.
 */
public final class RevocationServer extends HttpEndpoints {
  /** The port of {@link TestPki#DEFAULT_CRL_BASE_URL}. */
  public static final int DEFAULT_PORT = 18080;

  static final Duration OCSP_VALIDITY = Duration.ofHours(1);
  private final Map<String, byte[]> crls = new HashMap<>();
  private final Map<String, Responder> responders = new HashMap<>();
  private final InstantSource clock;

  /** One CA's OCSP state: its key and certificate, what it issued and what it revoked. */
  private record Responder(
      SigningKey ca,
      X509CertificateHolder certificate,
      Set<BigInteger> issued,
      Map<BigInteger, X509CRLEntry> revoked) {}

  public RevocationServer(TestPki pki, String bindAddress, int port)
      throws IOException, GeneralSecurityException {
    this(pki, bindAddress, port, InstantSource.system());
  }

  public RevocationServer(TestPki pki, String bindAddress, int port, InstantSource clock)
      throws IOException, GeneralSecurityException {
    super(bindAddress, port);
    this.clock = clock;
    SoftwareKeySource keys = new SoftwareKeySource(() -> pki, ProviderChoice.JDK);
    for (Entity ca : pki.entities()) {
      if (!ca.isCa()) continue;
      X509CRL crl = pki.crlOf(ca.alias());
      crls.put("/crl/" + ca.alias() + ".crl", crl.getEncoded());
      Map<BigInteger, X509CRLEntry> revoked = new HashMap<>();
      Set<? extends X509CRLEntry> entries = crl.getRevokedCertificates();
      if (entries != null)
        for (X509CRLEntry entry : entries) revoked.put(entry.getSerialNumber(), entry);
      Set<BigInteger> issued = new HashSet<>();
      for (Entity e : pki.entities()) {
        if (e.issuer().equals(ca.alias()) && !e.alias().equals(ca.alias()))
          issued.add(pki.certificate(e.alias()).getSerialNumber());
      }
      SigningKey key = keys.key(ca.alias());
      responders.put(
          ca.alias(),
          new Responder(key, new JcaX509CertificateHolder(key.certificate()), issued, revoked));
    }
    route("/crl/", this::crl);
    route("/ocsp/", this::ocsp);
  }

  /**
   * SHA256withRSA for the RSA CAs; the ML-DSA-65 CA signs with its own parameter set (the JDK's key
   * says only "ML-DSA").
   */
  private static String responderSignature(SigningKey ca) {
    String signature = KeyAlgorithm.signatureAlgorithmFor(ca.privateKey());
    return signature.equals("ML-DSA") ? "ML-DSA-65" : signature;
  }

  private void crl(HttpExchange exchange) throws IOException {
    if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
      exchange.getResponseHeaders().set("Allow", "GET, HEAD");
      refuse(exchange, 405, "GET a CRL, e.g. /crl/intermediate-a.crl");
      return;
    }
    byte[] crl = crls.get(exchange.getRequestURI().getPath());
    if (crl == null) {
      refuse(
          exchange,
          404,
          "no such CRL; this server has "
              + String.join(", ", crls.keySet().stream().sorted().toList()));
      return;
    }
    exchange.getResponseHeaders().set("Cache-Control", "max-age=300");
    send(
        exchange,
        200,
        "application/pkix-crl",
        exchange.getRequestMethod().equals("HEAD") ? new byte[0] : crl);
  }

  private void ocsp(HttpExchange exchange) throws IOException {
    // /ocsp/CA for POST; /ocsp/CA/BASE64 for GET (RFC 6960 appendix A.1)
    String[] parts =
        exchange.getRequestURI().getRawPath().substring("/ocsp/".length()).split("/", 2);
    Responder responder = responders.get(parts[0]);
    if (responder == null) {
      refuse(
          exchange,
          404,
          "no OCSP responder for '"
              + parts[0]
              + "'; this server has /ocsp/"
              + String.join(", /ocsp/", responders.keySet().stream().sorted().toList()));
      return;
    }
    byte[] request;
    if (exchange.getRequestMethod().equals("POST")) {
      request = body(exchange);
      if (request == null) return;
    } else if (exchange.getRequestMethod().equals("GET") && parts.length == 2) {
      try {
        // Percent-escapes only: a client that left base64's '+' unescaped must not have it read as
        // a space.
        request =
            Base64.getDecoder()
                .decode(URLDecoder.decode(parts[1].replace("+", "%2B"), StandardCharsets.US_ASCII));
      } catch (IllegalArgumentException e) {
        request = new byte[0]; // answered below as a malformed request, as RFC 6960 asks
      }
    } else {
      exchange.getResponseHeaders().set("Allow", "GET, POST");
      refuse(
          exchange,
          405,
          "POST an application/ocsp-request to /ocsp/"
              + parts[0]
              + ", or GET /ocsp/"
              + parts[0]
              + "/BASE64-REQUEST");
      return;
    }
    send(exchange, 200, "application/ocsp-response", answer(responder, request));
  }

  private byte[] answer(Responder responder, byte[] encodedRequest) throws IOException {
    try {
      // Everything read from the request is read here: BouncyCastle parses an OCSPReq lazily, so a
      // damaged
      // inner structure (one mutated tag byte) would otherwise fail later, out of reach of
      // malformedRequest.
      List<CertificateID> ids = new ArrayList<>();
      Extension nonce;
      DigestCalculatorProvider digests = new JcaDigestCalculatorProviderBuilder().build();
      List<CertificateStatus> statuses = new ArrayList<>();
      try {
        OCSPReq request = new OCSPReq(encodedRequest);
        for (Req one : request.getRequestList()) ids.add(one.getCertID());
        nonce = request.getExtension(OCSPObjectIdentifiers.id_pkix_ocsp_nonce);
        for (CertificateID id : ids) statuses.add(status(responder, id, digests));
      } catch (IOException | RuntimeException | OCSPException e) {
        return new OCSPRespBuilder().build(OCSPRespBuilder.MALFORMED_REQUEST, null).getEncoded();
      }
      BasicOCSPRespBuilder builder =
          new JcaBasicOCSPRespBuilder(
              responder.ca().certificate().getPublicKey(), digests.get(CertificateID.HASH_SHA1));
      Date now = Date.from(clock.instant());
      Date next = Date.from(clock.instant().plus(OCSP_VALIDITY));
      for (int i = 0; i < ids.size(); i++)
        builder.addResponse(ids.get(i), statuses.get(i), now, next, null);
      if (nonce != null) builder.setResponseExtensions(new Extensions(nonce));
      var basic =
          builder.build(
              new JcaContentSignerBuilder(responderSignature(responder.ca()))
                  .build(responder.ca().privateKey()),
              new X509CertificateHolder[] {responder.certificate()},
              now);
      return new OCSPRespBuilder().build(OCSPRespBuilder.SUCCESSFUL, basic).getEncoded();
    } catch (OCSPException | OperatorCreationException e) {
      return internalError();
    }
  }

  private static CertificateStatus status(
      Responder responder, CertificateID id, DigestCalculatorProvider digests)
      throws OCSPException, OperatorCreationException {
    // The CertID names its issuer by hashes of its name and key: a question about another CA's
    // certificate is "unknown".
    if (!id.matchesIssuer(responder.certificate(), digests)) return new UnknownStatus();
    X509CRLEntry revoked = responder.revoked().get(id.getSerialNumber());
    if (revoked != null) {
      int reason =
          revoked.getRevocationReason() == null
              ? CRLReason.unspecified
              : revoked.getRevocationReason().ordinal();
      return new RevokedStatus(revoked.getRevocationDate(), reason);
    }
    return responder.issued().contains(id.getSerialNumber())
        ? CertificateStatus.GOOD
        : new UnknownStatus();
  }

  private static byte[] internalError() throws IOException {
    try {
      return new OCSPRespBuilder().build(OCSPRespBuilder.INTERNAL_ERROR, null).getEncoded();
    } catch (OCSPException e) {
      throw new IOException("cannot encode an OCSP error response", e);
    }
  }
}
