package io.pkibench.formats.ades;

import java.io.IOException;
import java.security.SignatureException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.bouncycastle.asn1.cmp.PKIStatus;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;
import org.bouncycastle.tsp.TimeStampRequest;
import org.bouncycastle.tsp.TimeStampResponse;
import org.bouncycastle.tsp.TimeStampToken;
import org.bouncycastle.tsp.TimeStampTokenInfo;

/**
 * What an RFC 3161 client checks in a TSA's reply to its request, each refusal one line: the reply
 * is a TimeStampResp, its status grants a token, the token echoes the request's nonce, imprint and
 * (when asked) policy, and, given a {@link CertificateTrust}, the token's signature verifies with a
 * TSA certificate that chains to it (ESSCertID and the timeStamping purpose checked by
 * BouncyCastle). Without trust the token's signature is not checked, and the caller must say so.
 * Thread-safe.
 */
public final class TimeStampCheck {
  private final CertificateTrust trust;

  /** {@code trust} null: tokens are not verified. */
  public TimeStampCheck(CertificateTrust trust) {
    this.trust = trust;
  }

  public boolean verifiesTokens() {
    return trust != null;
  }

  /** The granted token, or an exception saying the first thing wrong with the reply. */
  public TimeStampToken check(TimeStampRequest request, byte[] replyDer)
      throws IOException, SignatureException {
    TimeStampResponse reply;
    try {
      reply = new TimeStampResponse(replyDer);
    } catch (
        Exception e) { // BouncyCastle says "not DER" with assorted checked and runtime exceptions
      throw new IOException(
          "the TSA's reply is not a DER TimeStampResp ("
              + replyDer.length
              + " bytes"
              + BinaryHttp.glimpse(replyDer)
              + ")");
    }
    int status = reply.getStatus();
    if (status != PKIStatus.GRANTED && status != PKIStatus.GRANTED_WITH_MODS) {
      throw new IOException(
          "the TSA did not grant a token: status "
              + status
              + (reply.getStatusString() == null ? "" : " '" + reply.getStatusString() + "'")
              + (reply.getFailInfo() == null
                  ? ""
                  : ", failInfo " + reply.getFailInfo().intValue()));
    }
    TimeStampToken token = reply.getTimeStampToken();
    if (token == null) throw new IOException("the TSA granted but sent no token");
    TimeStampTokenInfo info = token.getTimeStampInfo();
    if (request.getNonce() != null && !request.getNonce().equals(info.getNonce())) {
      throw new IOException(
          "the token does not echo the request's nonce (sent "
              + request.getNonce().toString(16)
              + ", got "
              + (info.getNonce() == null ? "none" : info.getNonce().toString(16))
              + ")");
    }
    if (!info.getMessageImprintAlgOID().equals(request.getMessageImprintAlgOID())
        || !Arrays.equals(info.getMessageImprintDigest(), request.getMessageImprintDigest())) {
      throw new IOException(
          "the token's message imprint is not the request's (sent "
              + hex(request.getMessageImprintDigest())
              + ", got "
              + hex(info.getMessageImprintDigest())
              + ")");
    }
    if (request.getReqPolicy() != null && !request.getReqPolicy().equals(info.getPolicy())) {
      throw new IOException(
          "the token is under policy "
              + info.getPolicy()
              + ", not the requested "
              + request.getReqPolicy());
    }
    if (trust != null) verify(token, request.getCertReq());
    return token;
  }

  private void verify(TimeStampToken token, boolean certificateAsked) throws SignatureException {
    List<X509Certificate> carried = new ArrayList<>();
    X509Certificate tsa = null;
    try {
      var converter = new JcaX509CertificateConverter();
      for (Object holder : token.getCertificates().getMatches(null)) {
        X509Certificate c = converter.getCertificate((X509CertificateHolder) holder);
        carried.add(c);
        if (token.getSID().match(holder)) tsa = c;
      }
      if (tsa == null) {
        // RFC 3161 2.4.1: without certReq the TSA may leave its certificate out; the trusted bundle
        // may hold it
        for (X509Certificate c : trust.certificates())
          if (token.getSID().match(new X509CertificateHolder(c.getEncoded()))) tsa = c;
      }
    } catch (Exception e) {
      throw new SignatureException("the token's certificates cannot be read: " + e.getMessage(), e);
    }
    if (tsa == null) {
      throw new SignatureException(
          certificateAsked
              ? "the token carries no TSA certificate although the request asked for it (certReq)"
              : "the token names a TSA certificate that is neither in it nor in the trusted bundle");
    }
    try {
      trust.check(tsa, carried, token.getTimeStampInfo().getGenTime());
    } catch (CertificateException e) {
      throw new SignatureException(
          "the token's TSA is not trusted: "
              + e.getMessage()); // the message is the reason: no cause repeating it
    }
    try {
      token.validate(
          new JcaSimpleSignerInfoVerifierBuilder()
              .build(tsa)); // signature, ESSCertID(v2), the timeStamping EKU, validity at genTime
    } catch (Exception e) {
      throw new SignatureException(
          "the token does not verify with its TSA certificate: " + e.getMessage());
    }
  }

  private static String hex(byte[] bytes) {
    String h = HexFormat.of().formatHex(bytes);
    return h.length() <= 16 ? h : h.substring(0, 16) + "…";
  }
}
