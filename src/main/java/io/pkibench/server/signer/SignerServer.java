package io.pkibench.server.signer;

import static io.pkibench.server.signer.RequestFields.abbreviate;
import static io.pkibench.server.signer.RequestFields.base64;
import static io.pkibench.server.signer.RequestFields.certificates;
import static io.pkibench.server.signer.RequestFields.document;
import static io.pkibench.server.signer.RequestFields.isJson;
import static io.pkibench.server.signer.RequestFields.message;
import static io.pkibench.server.signer.RequestFields.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.formats.ades.CertificateLogin;
import io.pkibench.formats.ades.CertificateTokens;
import io.pkibench.formats.ades.HttpTimeStampResponder;
import io.pkibench.formats.ades.SigningCertificateCheck;
import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.formats.ades.TimeStampCheck;
import io.pkibench.formats.ades.TimeStampResponder;
import io.pkibench.formats.ades.TwoPhaseCms;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SignatureVerification;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.pki.TestPki;
import io.pkibench.server.HttpEndpoints;
import io.pkibench.server.signer.SignerTokens.Pending;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.InstantSource;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import javax.net.ssl.SSLContext;
import org.bouncycastle.cms.CMSException;

/**
 * The reference two-phase signing service, in the shape public services use (Rest PKI's start →
 * toSign → finish; DSS's getDataToSign → signDocument). The client keeps its key:
 *
 * <pre>
 * POST /api/signatures/{cades|cades-t|pades|pades-t|xades|cms}/start
 *      {"document": base64, "certificates": [base64 DER, leaf first], "packaging": "detached"|"enveloping"}
 *   → {"token", "toSign": base64, "signatureAlgorithm": "SHA256withRSA"|"ML-DSA"|…}
 * POST /api/signatures/{token}/finish {"signature": base64}   → {"signed": base64}
 * POST /api/auth/start                                          → {"token", "nonce": base64}
 * POST /api/auth/{token}/finish {"certificates": [...], "signature": base64} → {"valid": true, "subject"}
 * POST /api/timestamp   (application/timestamp-query)           → application/timestamp-reply
 * </pre>
 *
 * Tokens are single use and expire; every refusal is a 4xx with {"error", "message"}, never a stack
 * trace.
 */
public final class SignerServer extends HttpEndpoints {
  public static final int DEFAULT_PORT = 8443;
  static final int MAX_REQUEST_BYTES = 32 * 1024 * 1024;
  private static final ObjectMapper JSON = new ObjectMapper();
  private final SignerTokens tokens;
  private final TimeStampResponder tsa;

  /**
   * How each of {@code tsa}'s replies is judged before it goes into a B-T signature (an outside
   * TSA's against its trust).
   */
  private final TimeStampCheck tsaCheck;

  private final InstantSource clock;
  private final CertificateLogin login;

  /**
   * DSS services keep per-use state, so each request borrows one; a pool, since every request runs
   * on a new virtual thread.
   */
  private final ConcurrentLinkedQueue<TwoPhaseSigner> signers = new ConcurrentLinkedQueue<>();

  private final CertificateTokens certificateTokens = new CertificateTokens();
  private final TwoPhaseCms cms;

  /**
   * The signing service of {@code serve signer}: its time-stamps signed with {@code tsaKeys}'
   * {@code tsa} key, logins checked against the test PKI by {@code revocation}, and its TLS
   * identity the test PKI's {@code tls-server} key through the JDK (the TLS side is not what is
   * sized).
   */
  public static SignerServer forTestPki(
      TestPki pki,
      KeySource tsaKeys,
      CertificateLogin.Revocation revocation,
      String bindAddress,
      int port,
      InstantSource clock)
      throws Exception {
    var tlsKey = new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key("tls-server");
    return new SignerServer(
        new TimeStampAuthority(tsaKeys.key("tsa"), clock),
        CertificateLogin.of(pki, revocation),
        TlsContexts.withIdentity(tlsKey, null),
        bindAddress,
        port,
        clock);
  }

  /**
   * As {@link #forTestPki}, its time-stamps (B-T levels and /api/timestamp) from the TSA at {@code
   * tsa}, checked with {@code tsaCheck}.
   */
  public static SignerServer forTestPki(
      TestPki pki,
      HttpTimeStampResponder tsa,
      TimeStampCheck tsaCheck,
      CertificateLogin.Revocation revocation,
      String bindAddress,
      int port,
      InstantSource clock)
      throws Exception {
    var tlsKey = new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key("tls-server");
    return new SignerServer(
        tsa,
        tsaCheck,
        CertificateLogin.of(pki, revocation),
        TlsContexts.withIdentity(tlsKey, null),
        bindAddress,
        port,
        clock,
        PendingTokens.Limits.forHeap(Runtime.getRuntime().maxMemory()),
        bodyBytesInFlightForThisHeap());
  }

  public SignerServer(
      TimeStampAuthority tsa,
      CertificateLogin login,
      SSLContext tls,
      String bindAddress,
      int port,
      InstantSource clock)
      throws IOException {
    this(
        tsa,
        login,
        tls,
        bindAddress,
        port,
        clock,
        PendingTokens.Limits.forHeap(Runtime.getRuntime().maxMemory()));
  }

  /** With the pending work's bounds given (tests make them small). */
  SignerServer(
      TimeStampAuthority tsa,
      CertificateLogin login,
      SSLContext tls,
      String bindAddress,
      int port,
      InstantSource clock,
      PendingTokens.Limits limits)
      throws IOException {
    this(tsa, login, tls, bindAddress, port, clock, limits, bodyBytesInFlightForThisHeap());
  }

  /**
   * With the pending work's bounds and the request bodies held at once ({@code
   * maxBodyBytesInFlight}) given: tests make them small.
   */
  SignerServer(
      TimeStampAuthority tsa,
      CertificateLogin login,
      SSLContext tls,
      String bindAddress,
      int port,
      InstantSource clock,
      PendingTokens.Limits limits,
      long maxBodyBytesInFlight)
      throws IOException {
    this(
        tsa,
        new TimeStampCheck(null),
        login,
        tls,
        bindAddress,
        port,
        clock,
        limits,
        maxBodyBytesInFlight);
  }

  private SignerServer(
      TimeStampResponder tsa,
      TimeStampCheck tsaCheck,
      CertificateLogin login,
      SSLContext tls,
      String bindAddress,
      int port,
      InstantSource clock,
      PendingTokens.Limits limits,
      long maxBodyBytesInFlight)
      throws IOException {
    super(bindAddress, port, tls, maxBodyBytesInFlight);
    this.tsaCheck = tsaCheck;
    this.tokens = new SignerTokens(limits, this::log);
    this.tsa = tsa;
    this.clock = clock;
    this.cms = new TwoPhaseCms(clock);
    this.login = login;
    route("/api/signatures/", MAX_REQUEST_BYTES, this::signatures);
    route("/api/auth/", MAX_REQUEST_BYTES, this::auth);
    route("/api/timestamp", this::timestamp);
    route(
        "/",
        exchange ->
            answer(
                exchange,
                new Refusal(
                    404,
                    "not_found",
                    "no such endpoint: "
                        + exchange.getRequestURI().getPath()
                        + "; see /api/signatures/{type}/start, /api/auth/start, /api/timestamp")));
  }

  private void signatures(HttpExchange exchange) throws IOException {
    try {
      String[] parts = path(exchange, "/api/signatures/");
      SignerRequest request = jsonBody(exchange);
      if (parts.length == 2 && parts[1].equals("start") && parts[0].equals(CMS)) {
        answer(exchange, startCms(request));
      } else if (parts.length == 2 && parts[1].equals("start")) {
        answer(exchange, start(TwoPhaseSigner.Format.parse(parts[0]), request));
      } else if (parts.length == 2 && parts[1].equals("finish")) {
        answer(exchange, finishSignature(parts[0], request.fields()));
      } else {
        throw new Refusal(
            404, "not_found", "use /api/signatures/{type}/start or /api/signatures/{token}/finish");
      }
    } catch (Refusal r) {
      answer(exchange, r);
    } catch (IllegalArgumentException e) {
      answer(exchange, new Refusal(400, "bad_request", e.getMessage()));
    }
  }

  /**
   * The one type signed without DSS: plain CMS SignedData, for keys DSS 6.4 knows nothing of
   * (ML-DSA, SLH-DSA) and the others alike.
   */
  static final String CMS = "cms";

  private ObjectNode start(TwoPhaseSigner.Format format, SignerRequest request) throws Refusal {
    byte[] document = document(request);
    JsonNode body = request.fields();
    List<X509Certificate> chain = certificates(body);
    String keyType = chain.get(0).getPublicKey().getAlgorithm();
    if (keyType.startsWith("ML-DSA") || keyType.startsWith("SLH-DSA")) {
      // DSS 6.4's SignatureAlgorithm has no ML-DSA or SLH-DSA: it would fail deep inside with a
      // message about something else
      throw new Refusal(
          422,
          "unsupported_key",
          "the "
              + format.flag
              + " signatures are made by EU DSS 6.4, which knows no "
              + keyType
              + " key; sign this key's CMS with /api/signatures/cms/start (RFC 9882 for ML-DSA)");
    }
    SignaturePackaging packaging =
        "enveloping".equals(text(body, "packaging", "detached"))
            ? SignaturePackaging.ENVELOPING
            : SignaturePackaging.DETACHED;
    TwoPhaseSigner.Pending p;
    TwoPhaseSigner signer = borrow();
    try {
      // Unnamed: DSS would guess a MIME type from a name through a ServiceLoader scan on every
      // request.
      p = signer.start(format, new InMemoryDocument(document), chain, packaging);
    } catch (SigningCertificateCheck.NotValidAtSigningDate e) {
      throw new Refusal(422, "certificate_not_valid", e.getMessage());
    } catch (RuntimeException e) {
      // DSS reports an unparsable PDF or XML this way.
      throw new Refusal(
          422,
          "unprocessable_document",
          "the document cannot be signed as " + format.flag + ": " + message(e));
    } finally {
      signers.offer(signer);
    }
    String token = tokens.newToken();
    // The document stays until the finish, and DSS keeps about as much again of its own.
    tokens.keep(token, new Pending(p, null), 2L * document.length + 16 * 1024);
    ObjectNode answer = JSON.createObjectNode();
    answer.put("token", token);
    answer.put("toSign", Base64.getEncoder().encodeToString(p.toSign()));
    answer.put("signatureAlgorithm", p.algorithm().getJCEId());
    return answer;
  }

  private ObjectNode startCms(SignerRequest request) throws Refusal {
    byte[] document = document(request);
    JsonNode body = request.fields();
    List<X509Certificate> chain = certificates(body);
    boolean attached = "enveloping".equals(text(body, "packaging", "detached"));
    try {
      SigningCertificateCheck.assertValidAt(chain.get(0), Date.from(clock.instant()));
    } catch (SigningCertificateCheck.NotValidAtSigningDate e) {
      throw new Refusal(422, "certificate_not_valid", e.getMessage());
    }
    TwoPhaseCms.Pending p;
    try {
      p = cms.start(document, chain, attached);
    } catch (CMSException | RuntimeException e) {
      throw new Refusal(
          422, "unsupported_key", "no CMS signature for this certificate's key: " + message(e));
    }
    String token = tokens.newToken();
    tokens.keep(token, new Pending(null, null, p), 2L * document.length + 16 * 1024);
    ObjectNode answer = JSON.createObjectNode();
    answer.put("token", token);
    answer.put("toSign", Base64.getEncoder().encodeToString(p.toSign()));
    answer.put("signatureAlgorithm", p.signatureAlgorithm());
    return answer;
  }

  private ObjectNode finishCms(TwoPhaseCms.Pending p, JsonNode body) throws Refusal {
    byte[] signatureValue = base64(body, "signature");
    try {
      SignatureVerification.verify(
          p.signatureAlgorithm(),
          p.signingCertificate().getPublicKey(),
          p.toSign(),
          signatureValue);
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new Refusal(
          422,
          "bad_signature",
          "the signature value was not made by the key of the certificate given at start");
    }
    try {
      ObjectNode answer = JSON.createObjectNode();
      answer.put("signed", Base64.getEncoder().encodeToString(cms.finish(p, signatureValue)));
      return answer;
    } catch (CMSException | IOException | RuntimeException e) {
      throw new Refusal(
          422, "cannot_finish", "the signature could not be assembled: " + message(e));
    }
  }

  private ObjectNode finishSignature(String token, JsonNode body) throws Refusal {
    Pending p = tokens.take(token);
    if (p.cms() != null) return finishCms(p.cms(), body);
    if (p.signature() == null)
      throw new Refusal(
          409, "wrong_token", "token " + token + " belongs to a login, not a signature");
    byte[] signatureValue = base64(body, "signature");
    X509Certificate signingCertificate =
        (X509Certificate) p.signature().parameters().getSigningCertificate().getCertificate();
    // DSS would embed any bytes; a service must refuse a value its certificate's key did not make.
    try {
      SignatureVerification.verify(
          p.signature().algorithm().getJCEId(),
          signingCertificate.getPublicKey(),
          p.signature().toSign(),
          signatureValue);
    } catch (GeneralSecurityException | RuntimeException e) {
      throw new Refusal(
          422,
          "bad_signature",
          "the signature value was not made by the key of the certificate given at start");
    }
    TwoPhaseSigner signer = borrow();
    try {
      ObjectNode answer = JSON.createObjectNode();
      answer.put(
          "signed",
          Base64.getEncoder().encodeToString(signer.finish(p.signature(), signatureValue)));
      return answer;
    } catch (IOException | RuntimeException e) {
      throw new Refusal(
          422, "cannot_finish", "the signature could not be assembled: " + message(e));
    } finally {
      signers.offer(signer);
    }
  }

  private void auth(HttpExchange exchange) throws IOException {
    try {
      String[] parts = path(exchange, "/api/auth/");
      JsonNode body = jsonBody(exchange).fields();
      if (parts.length == 1 && parts[0].equals("start")) {
        byte[] nonce = tokens.nonce();
        String token = tokens.newToken();
        tokens.keep(token, new Pending(null, nonce), SignerTokens.LOGIN_BYTES);
        ObjectNode answer = JSON.createObjectNode();
        answer.put("token", token);
        answer.put("nonce", Base64.getEncoder().encodeToString(nonce));
        answer(exchange, answer);
      } else if (parts.length == 2 && parts[1].equals("finish")) {
        Pending p = tokens.take(parts[0]);
        if (p.nonce() == null)
          throw new Refusal(
              409, "wrong_token", "token " + parts[0] + " belongs to a signature, not a login");
        List<X509Certificate> chain = certificates(body);
        byte[] signature = base64(body, "signature");
        String algorithm;
        try {
          algorithm = KeyAlgorithm.signatureAlgorithmFor(chain.get(0).getPublicKey());
        } catch (IllegalArgumentException e) {
          throw new Refusal(
              422,
              "unsupported_key",
              "the certificate's "
                  + chain.get(0).getPublicKey().getAlgorithm()
                  + " key cannot log in here; use an RSA, EC, Ed25519 or Ed448 key");
        }
        try {
          login.login(p.nonce(), signature, algorithm, chain);
        } catch (Exception e) {
          throw new Refusal(422, "login_refused", message(e));
        }
        ObjectNode answer = JSON.createObjectNode();
        answer.put("valid", true);
        answer.put("subject", chain.get(0).getSubjectX500Principal().getName());
        answer(exchange, answer);
      } else {
        throw new Refusal(404, "not_found", "use /api/auth/start or /api/auth/{token}/finish");
      }
    } catch (Refusal r) {
      answer(exchange, r);
    } catch (IllegalArgumentException e) {
      answer(exchange, new Refusal(400, "bad_request", message(e)));
    }
  }

  @Override
  protected void refuseOversized(HttpExchange exchange, int status, String why) throws IOException {
    answer(
        exchange, new Refusal(status, status == 414 ? "uri_too_long" : "headers_too_large", why));
  }

  @Override
  protected void refuseForMemory(
      HttpExchange exchange, int status, String why, long retryAfterSeconds) throws IOException {
    answer(
        exchange,
        new Refusal(status, status == 503 ? "busy" : "too_large", why, retryAfterSeconds));
  }

  @Override
  protected void internalError(HttpExchange exchange, String incident) throws IOException {
    answer(
        exchange,
        new Refusal(
            500,
            "internal_error",
            "internal error " + incident + "; the server's log has its cause"));
  }

  private void timestamp(HttpExchange exchange) throws IOException {
    if (!exchange.getRequestMethod().equals("POST")) {
      answer(exchange, new Refusal(405, "method_not_allowed", "POST an RFC 3161 TimeStampReq"));
      return;
    }
    byte[] request = bodyUpTo(exchange, MAX_BODY_BYTES);
    if (request == null) {
      answer(
          exchange,
          new Refusal(413, "too_large", "a time-stamp request over " + MAX_BODY_BYTES + " bytes"));
      return;
    }
    send(exchange, 200, "application/timestamp-reply", tsa.respond(request));
  }

  private String[] path(HttpExchange exchange, String prefix) throws Refusal {
    if (!exchange.getRequestMethod().equals("POST"))
      throw new Refusal(405, "method_not_allowed", "every /api call is a POST");
    String rest = exchange.getRequestURI().getPath().substring(prefix.length());
    return rest.isEmpty() ? new String[0] : rest.split("/");
  }

  private static SignerRequest jsonBody(HttpExchange exchange) throws Refusal, IOException {
    byte[] raw = bodyUpTo(exchange, MAX_REQUEST_BYTES);
    if (raw == null)
      throw new Refusal(413, "too_large", "request body over " + MAX_REQUEST_BYTES + " bytes");
    if (raw.length == 0) return SignerRequest.empty(JSON);
    String type = exchange.getRequestHeaders().getFirst("Content-Type");
    if (!isJson(type)) {
      throw new Refusal(
          415,
          "unsupported_media_type",
          (type == null ? "no Content-Type" : "Content-Type " + abbreviate(type))
              + "; send the body as Content-Type: application/json");
    }
    return SignerRequest.read(JSON, raw);
  }

  private TwoPhaseSigner borrow() {
    TwoPhaseSigner signer = signers.poll();
    return signer != null ? signer : new TwoPhaseSigner(tsa, tsaCheck, certificateTokens, clock);
  }

  @Override
  public void close() {
    super.close();
    tokens.close();
    if (tsa instanceof HttpTimeStampResponder outside) outside.close();
  }

  /**
   * The answer as Jackson's String, then its bytes: for a signed PDF's 190 KB of base64 that is 1.6
   * times faster than Jackson's own bytes (writeValueAsBytes: 400 µs against 245, its byte builder
   * growing in segments, measured on this machine), since a Latin-1 String turns into UTF-8 bytes
   * by one copy. Its base64 fields stay the JDK encoder's Strings: Jackson writing byte[] fields as
   * base64 itself was measured slower still (a scalar loop against the JDK's AVX-512 intrinsic).
   */
  private static void answer(HttpExchange exchange, ObjectNode body) throws IOException {
    send(
        exchange,
        200,
        "application/json",
        JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8));
  }

  private static void answer(HttpExchange exchange, Refusal refusal) throws IOException {
    if (refusal.retryAfterSeconds > 0)
      exchange.getResponseHeaders().set("Retry-After", Long.toString(refusal.retryAfterSeconds));
    ObjectNode body = JSON.createObjectNode();
    body.put("error", refusal.code);
    body.put("message", refusal.getMessage());
    send(
        exchange,
        refusal.status,
        "application/json",
        JSON.writeValueAsString(body).getBytes(StandardCharsets.UTF_8));
  }
}
