package io.pkibench.workload.acme;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.text.OutsideText;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.Base64;
import javax.net.ssl.SSLContext;

/**
 * One ACME account on one connection (RFC 8555), as a worker uses it: the directory read once, the
 * account registered, then requests signed with the account's key (JWS, ES256, {@code kid}), each
 * carrying the nonce the CA's last answer gave (a fresh one fetched only when none is held). A
 * {@code badNonce} refusal is answered by sending again once with the nonce it came with (§6.5);
 * any other refusal is an {@link AcmeProblem}. Not shared between threads.
 */
final class AcmeClient implements AutoCloseable {
  static final String JOSE = "application/jose+json";
  static final String PEM_CHAIN = "application/pem-certificate-chain";
  static final String JSON_TYPE = "application/json";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonStringEncoder QUOTE = JsonStringEncoder.getInstance();
  private static final Base64.Encoder B64URL = Base64.getUrlEncoder().withoutPadding();

  /** The directory's URLs an order and a revocation need. */
  record Directory(URI newNonce, URI newAccount, URI newOrder, URI revokeCert) {}

  private final AcmeConnection connection;
  private final PresignedEcdsa signer;
  private final ECPrivateKey accountKey;
  private final String jwk;

  /** The account key's RFC 7638 thumbprint, base64url: the same for every challenge. */
  private final String thumbprint;

  private final Directory directory;
  private String nonce;
  private String kid;
  private long requests;

  /** The account's key made now; the directory read now; {@link #register()} comes next. */
  AcmeClient(URI directoryUrl, SSLContext tls, Duration timeout, PresignedEcdsa signer)
      throws IOException, GeneralSecurityException, AcmeProblem {
    this.connection = new AcmeConnection(directoryUrl, tls, timeout);
    this.signer = signer;
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair pair = g.generateKeyPair();
    this.accountKey = (ECPrivateKey) pair.getPrivate();
    this.jwk = jwk((ECPublicKey) pair.getPublic());
    this.thumbprint =
        B64URL.encodeToString(
            MessageDigest.getInstance("SHA-256").digest(jwk.getBytes(StandardCharsets.UTF_8)));
    try {
      this.directory = directory(directoryUrl);
    } catch (IOException | AcmeProblem | RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  Directory directory() {
    return directory;
  }

  /** Requests this client sent, nonce fetches and signed requests sent again included. */
  long requests() {
    return requests;
  }

  /** Connections this client opened: one, unless the CA closed one. */
  long connectionsOpened() {
    return connection.opened();
  }

  private Directory directory(URI url) throws IOException, AcmeProblem {
    AcmeConnection.Response r = connection.send("GET", url, null, null, JSON_TYPE);
    JsonNode d = json(r, "the directory");
    if (r.status() != 200) throw problem(r);
    return new Directory(
        url(d, "newNonce", url),
        url(d, "newAccount", url),
        url(d, "newOrder", url),
        url(d, "revokeCert", url));
  }

  /** A new account for this key, its terms agreed to: the URL the CA gave it becomes the kid. */
  void register() throws IOException, GeneralSecurityException, AcmeProblem {
    AcmeConnection.Response r =
        send(directory.newAccount(), "{\"termsOfServiceAgreed\":true}", true, JSON_TYPE);
    if (r.status() != 201 && r.status() != 200)
      throw new IOException("the CA answered a new account with HTTP " + r.status());
    String location = r.header("location");
    if (location == null) throw new IOException("the CA gave the new account no Location");
    kid = location;
  }

  /** The answer to a signed POST of {@code payload} (JSON) to {@code url}. */
  AcmeConnection.Response post(URI url, String payload)
      throws IOException, GeneralSecurityException, AcmeProblem {
    return send(url, payload, false, JSON_TYPE);
  }

  /** The answer to a POST-as-GET of {@code url} (§6.3: an empty payload, signed). */
  AcmeConnection.Response postAsGet(URI url)
      throws IOException, GeneralSecurityException, AcmeProblem {
    return send(url, "", false, JSON_TYPE);
  }

  /** The certificate chain at {@code url}, as PEM (§7.4.2: a POST-as-GET). */
  AcmeConnection.Response download(URI url)
      throws IOException, GeneralSecurityException, AcmeProblem {
    return send(url, "", false, PEM_CHAIN);
  }

  /** The body of {@code r} as JSON; {@code what} names it in the error. */
  static JsonNode json(AcmeConnection.Response r, String what) throws IOException {
    try {
      return JSON.readTree(r.body());
    } catch (IOException e) {
      throw new IOException(what + ": the CA's answer (HTTP " + r.status() + ") is not JSON");
    }
  }

  /**
   * {@code node}'s field {@code field}: a URL on the CA's origin, resolved against {@code base}.
   */
  URI url(JsonNode node, String field, URI base) throws IOException {
    return urlOf(node.path(field), field, base);
  }

  /** {@code value}, a URL the CA gave as {@code what}, resolved and checked to be on its origin. */
  URI urlOf(JsonNode value, String what, URI base) throws IOException {
    if (!value.isTextual())
      throw new IOException("the CA's answer has no " + OutsideText.forTerminal(what, 40) + " URL");
    return urlOf(value.asText(), what, base);
  }

  /** {@code value}, a URL the CA gave as {@code what}, resolved and checked to be on its origin. */
  URI urlOf(String value, String what, URI base) throws IOException {
    URI u;
    try {
      u = base.resolve(value);
    } catch (IllegalArgumentException e) {
      throw new IOException(
          "the CA's "
              + OutsideText.forTerminal(what, 40)
              + " is no URL: "
              + OutsideText.forTerminal(value, 100));
    }
    connection.checkOrigin(u);
    return u;
  }

  /**
   * The key authorization for an http-01 {@code token} (§8.1): the token, a dot, and the base64url
   * SHA-256 thumbprint of the account's JWK (RFC 7638: its required members, sorted, no spaces).
   */
  String keyAuthorization(String token) {
    return token + "." + thumbprint;
  }

  private AcmeConnection.Response send(URI url, String payload, boolean withJwk, String accept)
      throws IOException, GeneralSecurityException, AcmeProblem {
    AcmeConnection.Response r = sendOnce(url, payload, withJwk, accept);
    if (r.status() < 400) return r;
    AcmeProblem refused = problem(r);
    if (!refused.is("badNonce")) throw refused;
    r = sendOnce(url, payload, withJwk, accept); // once more, with the nonce the refusal gave
    if (r.status() >= 400) throw problem(r);
    return r;
  }

  private AcmeConnection.Response sendOnce(URI url, String payload, boolean withJwk, String accept)
      throws IOException, GeneralSecurityException {
    if (nonce == null) fetchNonce();
    String use = nonce;
    nonce = null; // one use each
    // written by hand (a tree and a serializer cost more than the rest of the request); every
    // value the CA gave (kid, url) is escaped, the nonce is base64url by now (keepNonce)
    StringBuilder header = new StringBuilder(256).append("{\"alg\":\"ES256\",");
    if (withJwk) header.append("\"jwk\":").append(jwk);
    else {
      if (kid == null) throw new IllegalStateException("no account registered");
      header.append("\"kid\":\"").append(QUOTE.quoteAsString(kid)).append('"');
    }
    header.append(",\"nonce\":\"").append(use).append("\",\"url\":\"");
    header.append(QUOTE.quoteAsString(url.toString())).append("\"}");
    String protectedPart =
        B64URL.encodeToString(header.toString().getBytes(StandardCharsets.UTF_8));
    String payloadPart = B64URL.encodeToString(payload.getBytes(StandardCharsets.UTF_8));
    byte[] signature =
        signer.signRaw(
            accountKey, (protectedPart + "." + payloadPart).getBytes(StandardCharsets.US_ASCII));
    byte[] body =
        ("{\"protected\":\""
                + protectedPart
                + "\",\"payload\":\""
                + payloadPart
                + "\",\"signature\":\""
                + B64URL.encodeToString(signature)
                + "\"}")
            .getBytes(StandardCharsets.US_ASCII);
    requests++;
    AcmeConnection.Response r = connection.send("POST", url, body, JOSE, accept);
    keepNonce(r);
    return r;
  }

  private void fetchNonce() throws IOException {
    requests++;
    AcmeConnection.Response r = connection.send("HEAD", directory.newNonce(), null, null, "*/*");
    keepNonce(r);
    if (nonce == null)
      throw new IOException(
          "the CA's newNonce answer (HTTP " + r.status() + ") has no Replay-Nonce");
  }

  /** The answer's nonce, when it is one (§6.5.1: base64url, nothing else), for the next request. */
  private void keepNonce(AcmeConnection.Response r) {
    String n = r.header("replay-nonce");
    if (n != null
        && !n.isEmpty()
        && n.length() <= 256
        && n.chars().allMatch(AcmeClient::isBase64Url)) nonce = n;
  }

  private static boolean isBase64Url(int c) {
    return c >= 'A' && c <= 'Z'
        || c >= 'a' && c <= 'z'
        || c >= '0' && c <= '9'
        || c == '-'
        || c == '_';
  }

  /** The CA's refusal in {@code r}: its problem document, or its status when it sent none. */
  static AcmeProblem problem(AcmeConnection.Response r) {
    try {
      JsonNode p = JSON.readTree(r.body());
      if (p != null && p.isObject())
        return new AcmeProblem(p.path("type").asText(""), p.path("detail").asText(""), r.status());
    } catch (IOException e) {
      // not a problem document: its status is all there is
    }
    return new AcmeProblem("", "no problem document", r.status());
  }

  /** RFC 7638's form of a P-256 public key: crv, kty, x, y, in that order, no spaces. */
  static String jwk(ECPublicKey key) {
    return "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\""
        + B64URL.encodeToString(PresignedEcdsa.fixed32(key.getW().getAffineX()))
        + "\",\"y\":\""
        + B64URL.encodeToString(PresignedEcdsa.fixed32(key.getW().getAffineY()))
        + "\"}";
  }

  @Override
  public void close() {
    connection.close();
  }
}
