package io.pkibench.formats.ades;

import java.io.IOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.SignatureException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.bouncycastle.asn1.DEROctetString;
import org.bouncycastle.asn1.ocsp.OCSPObjectIdentifiers;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.Extensions;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509CertificateHolder;
import org.bouncycastle.cert.ocsp.BasicOCSPResp;
import org.bouncycastle.cert.ocsp.CertificateID;
import org.bouncycastle.cert.ocsp.OCSPException;
import org.bouncycastle.cert.ocsp.OCSPReqBuilder;
import org.bouncycastle.cert.ocsp.OCSPResp;
import org.bouncycastle.cert.ocsp.RespID;
import org.bouncycastle.cert.ocsp.RevokedStatus;
import org.bouncycastle.cert.ocsp.SingleResp;
import org.bouncycastle.cert.ocsp.UnknownStatus;
import org.bouncycastle.operator.DigestCalculator;
import org.bouncycastle.operator.DigestCalculatorProvider;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder;
import org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder;

/**
 * What an RFC 6960 client checks in a responder's answer about one certificate, each refusal one
 * line: the answer is a successful basic response; it is signed by the CA that issued the
 * certificate, by a responder the CA delegated to (a certificate it issued with the OCSPSigning
 * purpose, valid now) or by a certificate the user named ({@code -p responder}); it answers for the
 * certificate id asked about; its thisUpdate is not in the future and its nextUpdate not past (five
 * minutes of clock skew allowed either way); a nonce sent is echoed. A delegated responder found
 * good is remembered, as a client's cache would. Thread-safe.
 */
public final class OcspCheck {
  /** What the responder said about the certificate. */
  public enum Status {
    GOOD,
    REVOKED,
    UNKNOWN;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * One certificate's question: its CertID, the nonce sent (null: none) and the DER OCSPRequest.
   */
  public record Query(X509Certificate certificate, CertificateID id, byte[] nonce, byte[] der) {}

  static final Duration CLOCK_SKEW = Duration.ofMinutes(5);
  private static final String[] RESPONSE_STATUS = {
    "successful",
    "malformedRequest",
    "internalError",
    "tryLater",
    "(4: unused)",
    "sigRequired",
    "unauthorized"
  };
  private final X509Certificate issuer;
  private final X509CertificateHolder issuerHolder;
  private final List<X509Certificate> responders;
  private final InstantSource clock;

  /**
   * A calculator per use: BouncyCastle's keep their digest's state, so one shared by workers would
   * mix their inputs.
   */
  private final DigestCalculatorProvider digests;

  private final Set<X509Certificate> vouchedDelegates = ConcurrentHashMap.newKeySet();

  /**
   * {@code responders}: certificates trusted to sign answers besides the CA and its delegates (may
   * be empty).
   */
  public OcspCheck(X509Certificate issuer, List<X509Certificate> responders, InstantSource clock)
      throws GeneralSecurityException, IOException {
    this.issuer = issuer;
    this.issuerHolder = new JcaX509CertificateHolder(issuer);
    this.responders = List.copyOf(responders);
    this.clock = clock;
    try {
      this.digests = new JcaDigestCalculatorProviderBuilder().build();
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(
          "no digests for OCSP certificate ids: " + e.getMessage(), e);
    }
  }

  private DigestCalculator sha1() throws OperatorCreationException {
    return digests.get(CertificateID.HASH_SHA1);
  }

  /**
   * The request about {@code certificate} with a SHA-1 CertID (what RFC 5019 responders must
   * accept), and {@code nonce} in the id-pkix-ocsp-nonce extension when not null.
   */
  public Query query(X509Certificate certificate, byte[] nonce) throws IOException {
    try {
      CertificateID id = new CertificateID(sha1(), issuerHolder, certificate.getSerialNumber());
      OCSPReqBuilder builder = new OCSPReqBuilder().addRequest(id);
      if (nonce != null) builder.setRequestExtensions(new Extensions(nonceExtension(nonce)));
      return new Query(certificate, id, nonce, builder.build().getEncoded());
    } catch (OCSPException | OperatorCreationException e) {
      throw new IOException("cannot build the OCSP request: " + e.getMessage(), e);
    }
  }

  private static Extension nonceExtension(byte[] nonce) throws IOException {
    return new Extension(
        OCSPObjectIdentifiers.id_pkix_ocsp_nonce,
        false,
        new DEROctetString(new DEROctetString(nonce).getEncoded()));
  }

  /**
   * The status the reply gives {@code query}'s certificate, or an exception saying the first thing
   * wrong with it.
   */
  public Status check(Query query, byte[] replyDer) throws IOException, SignatureException {
    OCSPResp reply;
    Object body;
    try {
      reply = new OCSPResp(replyDer);
      body = reply.getStatus() == OCSPResp.SUCCESSFUL ? reply.getResponseObject() : null;
    } catch (
        Exception e) { // BouncyCastle says "not DER" with assorted checked and runtime exceptions
      throw new IOException(
          "the reply is not a DER OCSPResponse ("
              + replyDer.length
              + " bytes"
              + BinaryHttp.glimpse(replyDer)
              + ")");
    }
    if (reply.getStatus() != OCSPResp.SUCCESSFUL) {
      int s = reply.getStatus();
      throw new IOException(
          "the responder answered "
              + (s >= 0 && s < RESPONSE_STATUS.length ? RESPONSE_STATUS[s] : "status " + s)
              + " ("
              + s
              + ")");
    }
    if (!(body instanceof BasicOCSPResp basic))
      throw new IOException("the reply is not a basic OCSP response (id-pkix-ocsp-basic)");
    X509Certificate signer = signerOf(basic);
    try {
      if (!basic.isSignatureValid(
          new JcaContentVerifierProviderBuilder().build(signer.getPublicKey()))) {
        throw new SignatureException(
            "the response's signature does not verify with '"
                + signer.getSubjectX500Principal().getName()
                + "'");
      }
    } catch (SignatureException e) {
      throw e;
    } catch (Exception e) {
      throw new SignatureException(
          "the response's signature cannot be checked: " + e.getMessage(), e);
    }
    SingleResp single =
        Arrays.stream(basic.getResponses())
            .filter(r -> r.getCertID().equals(query.id()))
            .findFirst()
            .orElseThrow(
                () ->
                    new IOException(
                        "the response does not answer for the certificate asked about (serial "
                            + query.certificate().getSerialNumber().toString(16)
                            + ")"));
    Instant now = clock.instant();
    if (single.getThisUpdate().toInstant().isAfter(now.plus(CLOCK_SKEW))) {
      throw new IOException(
          "the response's thisUpdate "
              + single.getThisUpdate().toInstant()
              + " is in the future (now "
              + now
              + ")");
    }
    Date next = single.getNextUpdate();
    if (next != null && next.toInstant().isBefore(now.minus(CLOCK_SKEW))) {
      throw new IOException(
          "the response is stale: its nextUpdate "
              + next.toInstant()
              + " has passed (now "
              + now
              + ")");
    }
    if (query.nonce() != null) {
      Extension echoed = basic.getExtension(OCSPObjectIdentifiers.id_pkix_ocsp_nonce);
      if (echoed == null) throw new IOException("the response does not echo the request's nonce");
      if (!Arrays.equals(
          echoed.getExtnValue().getOctets(),
          nonceExtension(query.nonce()).getExtnValue().getOctets())) {
        throw new IOException("the response's nonce is not the request's");
      }
    }
    Object status = single.getCertStatus();
    if (status == null) return Status.GOOD; // BouncyCastle's CertificateStatus.GOOD
    if (status instanceof RevokedStatus) return Status.REVOKED;
    if (status instanceof UnknownStatus) return Status.UNKNOWN;
    throw new IOException("the response gives the certificate a status RFC 6960 does not have");
  }

  /**
   * The certificate whose key must have signed {@code basic}: the CA, a named responder, or a
   * delegate the CA certified.
   */
  private X509Certificate signerOf(BasicOCSPResp basic) throws SignatureException {
    RespID id = basic.getResponderId();
    if (names(id, issuer)) return issuer;
    for (X509Certificate r : responders) if (names(id, r)) return r;
    var converter = new JcaX509CertificateConverter();
    for (X509CertificateHolder holder : basic.getCerts()) {
      X509Certificate c;
      try {
        c = converter.getCertificate(holder);
      } catch (Exception e) {
        throw new SignatureException(
            "a certificate in the response cannot be read: " + e.getMessage(), e);
      }
      if (!names(id, c)) continue;
      checkDelegate(c);
      return c;
    }
    throw new SignatureException(
        "the response is signed by "
            + describe(id)
            + ", neither the CA '"
            + issuer.getSubjectX500Principal().getName()
            + "' nor a responder it delegated to"
            + (responders.isEmpty() ? "" : " nor a -p responder certificate"));
  }

  /** RFC 6960 4.2.2.2: issued by the CA itself, with id-kp-OCSPSigning, valid now. */
  private void checkDelegate(X509Certificate c) throws SignatureException {
    if (vouchedDelegates.contains(c)) return;
    String name = "the responder '" + c.getSubjectX500Principal().getName() + "'";
    try {
      if (!c.getIssuerX500Principal().equals(issuer.getSubjectX500Principal()))
        throw new GeneralSecurityException("other issuer");
      c.verify(issuer.getPublicKey());
    } catch (GeneralSecurityException e) {
      throw new SignatureException(
          name
              + " is not certified by the CA '"
              + issuer.getSubjectX500Principal().getName()
              + "' (issuer '"
              + c.getIssuerX500Principal().getName()
              + "'): not authorised to answer for it");
    }
    try {
      List<String> purposes = c.getExtendedKeyUsage();
      if (purposes == null || !purposes.contains(KeyPurposeId.id_kp_OCSPSigning.getId())) {
        throw new SignatureException(
            name
                + " is certified by the CA without the OCSPSigning purpose: not authorised to answer for it");
      }
      c.checkValidity(Date.from(clock.instant()));
    } catch (CertificateParsingException e) {
      throw new SignatureException(name + "'s extended key usage cannot be read", e);
    } catch (CertificateExpiredException | CertificateNotYetValidException e) {
      throw new SignatureException(name + "'s certificate is not valid now: " + e.getMessage());
    }
    vouchedDelegates.add(c);
  }

  private boolean names(RespID id, X509Certificate c) {
    try {
      return id.equals(new RespID(X500Name.getInstance(c.getSubjectX500Principal().getEncoded())))
          || id.equals(
              new RespID(SubjectPublicKeyInfo.getInstance(c.getPublicKey().getEncoded()), sha1()));
    } catch (Exception e) {
      return false;
    }
  }

  private static String describe(RespID id) {
    var asn = id.toASN1Primitive();
    return asn.getName() != null
        ? "'" + asn.getName() + "'"
        : "the key with SHA-1 hash " + HexFormat.of().formatHex(asn.getKeyHash());
  }

  /** The serial a query asks about, for messages. */
  public static String serial(Query query) {
    BigInteger s = query.certificate().getSerialNumber();
    return s.toString(16);
  }
}
