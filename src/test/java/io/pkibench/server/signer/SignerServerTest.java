package io.pkibench.server.signer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.formats.ades.CertificateLogin;
import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.pki.TestPki;
import io.pkibench.testing.Await;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.OpensslRenegotiation;
import io.pkibench.testing.TestCertificates;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.http.HttpSigningWorkload;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.Signature;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The signing service over real HTTPS on loopback, driven by the http:* client workloads and by
 * hostile requests.
 */
@org.junit.jupiter.api.Timeout(
    value = 5,
    unit =
        java.util.concurrent.TimeUnit
            .MINUTES) // talks to the signing service: a hang fails, said as one
class SignerServerTest {
  @TempDir static Path tmp;
  static TestPki pki;
  static KeySource keys;
  static SignerServer server;
  static HttpClient http;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    TestKeys fixture = TestKeys.in(tmp);
    pki = fixture.pki;
    keys = fixture.keys;
    SigningKey tls = new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key("tls-server");
    server =
        new SignerServer(
            new TimeStampAuthority(keys.key("tsa"), InstantSource.system()),
            CertificateLogin.of(pki, CertificateLogin.Revocation.CRL),
            TlsContexts.withIdentity(tls, null),
            "127.0.0.1",
            0,
            InstantSource.system());
    server.start();
    http =
        HttpClient.newBuilder()
            .sslContext(TlsContexts.trusting(pki.certificate("root-ca")))
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static Workload client(String kind, String target) throws Exception {
    var factory = new HttpSigningWorkload.Factory(kind);
    return factory.create(
        new WorkloadContext(keys, true, () -> pki),
        Params.resolve(factory.name(), factory.params(), Map.of("target", target, "certs", "2")));
  }

  /**
   * Unfinished starts cannot take the service's memory: past the pending work's byte budget a start
   * is refused 503 with Retry-After and counted, a finish frees its share at once, and expiry runs
   * on a timer (no request needed) so that abandoned starts free theirs too.
   */
  @Test
  void pendingWork_boundedByBytes_refused503WithRetryAfter_freedByFinishAndByExpiry()
      throws Exception {
    SigningKey tls = new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key("tls-server");
    List<String> log = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    try (SignerServer small =
        new SignerServer(
            new TimeStampAuthority(keys.key("tsa"), InstantSource.system()),
            CertificateLogin.of(pki, CertificateLogin.Revocation.CRL),
            TlsContexts.withIdentity(tls, null),
            "127.0.0.1",
            0,
            InstantSource.system(),
            new PendingTokens.Limits(100, 3L << 20, Duration.ofSeconds(2)))) {
      small.logTo(log::add);
      small.start();
      String doc =
          Base64.getEncoder()
              .encodeToString(
                  new byte[1 << 20]); // 1 MiB: counted twice, so one start fits in 3 MiB, not two
      String start =
          "{\"document\":\"" + doc + "\",\"certificates\":" + chain("signer-rsa2048-1") + "}";
      HttpResponse<String> first = postTo(small, "/api/signatures/cades/start", start);
      assertEquals(200, first.statusCode(), first.body());
      HttpResponse<String> second = postTo(small, "/api/signatures/cades/start", start);
      assertRefused(second, 503, "busy");
      long retryAfter = Long.parseLong(second.headers().firstValue("Retry-After").orElseThrow());
      assertTrue(
          retryAfter >= 1 && retryAfter <= 3, "until the oldest start expires: " + retryAfter);
      assertTrue(
          log.stream().anyMatch(l -> l.contains("pending work full") && l.contains("1 so far")),
          log.toString());

      // a finish frees its share at once (a wrong signature still uses up the token)
      String token = JSON.readTree(first.body()).get("token").asText();
      postTo(small, "/api/signatures/" + token + "/finish", "{\"signature\":\"AAAA\"}");
      HttpResponse<String> third = postTo(small, "/api/signatures/cades/start", start);
      assertEquals(200, third.statusCode(), third.body());

      // abandoned: the timer expires it without any request, and a start fits again
      Await.until(
          Duration.ofSeconds(15),
          "the abandoned token to expire on the timer, its bytes freed",
          () -> postTo(small, "/api/signatures/cades/start", start).statusCode() == 200);
      String abandoned = JSON.readTree(third.body()).get("token").asText();
      assertRefused(
          postTo(small, "/api/signatures/" + abandoned + "/finish", "{\"signature\":\"AAAA\"}"),
          404,
          "unknown_token");
    }
  }

  /**
   * Uploads that together exceed the budget for request bodies in flight (8 MB here; a share of the
   * heap by default): six 3 MB starts held half sent, so that all six are in the server at once.
   * Two fit and are answered 200 once whole; the other four are answered 503 with Retry-After
   * (before, all six were taken in, and under -Xmx512m 24 uploads of 30 MB ran the heap out and
   * went unanswered); a chunked upload, whose length is not declared, is refused 503 as it grows
   * past what is left. No client is cut off, and once they are done the budget is whole again: a
   * signing succeeds.
   */
  @Test
  void uploads_moreThanTheBodyBudgetAtOnce_each200Or503WithRetryAfter_noneCutOff_budgetReleased()
      throws Exception {
    SigningKey tls = new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key("tls-server");
    List<String> log = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
    try (SignerServer small =
        new SignerServer(
            new TimeStampAuthority(keys.key("tsa"), InstantSource.system()),
            CertificateLogin.of(pki, CertificateLogin.Revocation.CRL),
            TlsContexts.withIdentity(tls, null),
            "127.0.0.1",
            0,
            InstantSource.system(),
            PendingTokens.Limits.forHeap(Runtime.getRuntime().maxMemory()),
            8L << 20)) {
      small.logTo(log::add);
      small.start();
      byte[] body =
          ("{\"document\":\""
                  + Base64.getEncoder().encodeToString(new byte[2_300_000])
                  + "\",\"certificates\":"
                  + chain("signer-rsa2048-1")
                  + "}")
              .getBytes(
                  java.nio.charset.StandardCharsets
                      .US_ASCII); // 3.07 MB: two fit in 8 MB, three do not
      javax.net.ssl.SSLSocketFactory sockets =
          TlsContexts.trusting(pki.certificate("root-ca")).getSocketFactory();
      int uploads = 6;
      List<javax.net.ssl.SSLSocket> held = new java.util.ArrayList<>();
      try {
        for (int i = 0; i < uploads; i++) {
          javax.net.ssl.SSLSocket s =
              (javax.net.ssl.SSLSocket) sockets.createSocket("127.0.0.1", small.port());
          s.setSoTimeout(60_000);
          held.add(s);
          s.getOutputStream()
              .write(
                  ("POST /api/signatures/cades/start HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                          + body.length
                          + "\r\n\r\n")
                      .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
          s.getOutputStream().write(body, 0, body.length / 2);
          s.getOutputStream().flush();
        }
        // every upload is in the server, the two taken waiting for their second halves: the others'
        // refusals are counted
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (small.refusedOverBudget() < uploads - 2 && System.nanoTime() < deadline)
          Thread.sleep(20);

        try (javax.net.ssl.SSLSocket chunked =
            (javax.net.ssl.SSLSocket) sockets.createSocket("127.0.0.1", small.port())) {
          chunked.setSoTimeout(60_000);
          ChunkedUpload.send(chunked.getOutputStream(), "/api/signatures/cades/start", body);
          RawAnswer answer = RawAnswer.read(chunked.getInputStream());
          assertEquals(
              503,
              answer.status(),
              "a chunked upload growing past what is left of the budget: " + answer);
          assertTrue(answer.headers().containsKey("retry-after"), answer.toString());
        }

        List<Integer> statuses = new java.util.ArrayList<>();
        for (javax.net.ssl.SSLSocket s : held) {
          s.getOutputStream().write(body, body.length / 2, body.length - body.length / 2);
          s.getOutputStream().flush();
        }
        for (javax.net.ssl.SSLSocket s : held) {
          RawAnswer answer =
              RawAnswer.read(
                  s.getInputStream()); // an EOF or a reset throws: every client gets an answer
          statuses.add(answer.status());
          if (answer.status() == 503) {
            assertTrue(
                answer.headers().containsKey("retry-after"),
                "a 503 says when to come back: " + answer);
            assertEquals(
                "busy", JSON.readTree(answer.body()).path("error").asText(), answer.toString());
          } else {
            assertEquals(200, answer.status(), answer.toString());
          }
        }
        assertEquals(
            2,
            statuses.stream().filter(st -> st == 200).count(),
            "two 3 MB uploads fit in 8 MB: " + statuses);
        assertEquals(
            uploads - 2,
            statuses.stream().filter(st -> st == 503).count(),
            "the others refused 503: " + statuses);
        assertTrue(
            log.stream().anyMatch(l -> l.contains("request bodies in flight")),
            "the refusals are logged: " + log);
      } finally {
        for (var s : held) s.close();
      }
      Await.until(
          Duration.ofSeconds(15), "the budget released", () -> small.bodyBytesInFlight() == 0);
      try (Workload w = client("cades", small.baseUrl())) {
        MeasuredRun.of("http:cades after the uploads", w, Duration.ofMillis(400))
            .assertEverySucceeded();
      }
    }
  }

  /**
   * An HTTP/1.1 answer read off a socket: status, headers (names in lower case), body by its
   * Content-Length.
   */
  record RawAnswer(int status, Map<String, String> headers, String body) {
    static RawAnswer read(java.io.InputStream in) throws java.io.IOException {
      String statusLine = line(in);
      if (statusLine == null)
        throw new java.io.EOFException("the connection ended without an answer");
      Map<String, String> headers = new java.util.HashMap<>();
      for (String l = line(in); l != null && !l.isEmpty(); l = line(in)) {
        int colon = l.indexOf(':');
        headers.put(
            l.substring(0, colon).strip().toLowerCase(java.util.Locale.ROOT),
            l.substring(colon + 1).strip());
      }
      int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
      byte[] body = in.readNBytes(length);
      if (body.length < length)
        throw new java.io.EOFException(
            "the answer's body was cut at " + body.length + " of " + length + " bytes");
      return new RawAnswer(
          Integer.parseInt(statusLine.split(" ")[1]),
          headers,
          new String(body, java.nio.charset.StandardCharsets.UTF_8));
    }

    private static String line(java.io.InputStream in) throws java.io.IOException {
      StringBuilder l = new StringBuilder();
      for (int c = in.read(); c >= 0; c = in.read()) {
        if (c == '\n') return l.toString().strip();
        l.append((char) c);
      }
      return l.isEmpty() ? null : l.toString();
    }
  }

  /** Writes a request whose body is sent chunked (no Content-Length), in 256 KB chunks. */
  static final class ChunkedUpload {
    static void send(java.io.OutputStream out, String path, byte[] body)
        throws java.io.IOException {
      out.write(
          ("POST "
                  + path
                  + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
              .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      for (int at = 0; at < body.length; at += 256 * 1024) {
        int n = Math.min(256 * 1024, body.length - at);
        out.write(
            (Integer.toHexString(n) + "\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        out.write(body, at, n);
        out.write("\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      }
      out.write("0\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      out.flush();
    }
  }

  /**
   * testssl.sh's check, as it makes it: openssl s_client over TLS 1.2 asks to renegotiate. The
   * service refuses (the connection is closed, no second handshake; before, the JDK's HttpsServer
   * renegotiated), counts it, and goes on.
   */
  @Test
  void renegotiation_clientInitiatedOverTls12_refusedAndTheServiceGoesOn() throws Exception {
    long before = server.renegotiationsRefused();
    OpensslRenegotiation.Attempt attempt = OpensslRenegotiation.attempt(server.port());
    assertTrue(attempt.refused(), "s_client renegotiated, or never connected: " + attempt.output());
    assertEquals(before + 1, server.renegotiationsRefused());
    assertRefused(post("/api/nothing", "{}"), 404, "not_found");
  }

  static HttpResponse<String> postTo(SignerServer target, String path, String json)
      throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(target.baseUrl() + path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * Two-phase signing with an ML-DSA-65 key (issue 29): DSS's types refuse it naming the way that
   * works, and {@code cms} signs it as RFC 9882 has it. The SignedData is checked apart from the
   * BouncyCastle that built it: its identifiers read from the DER, the message digest recomputed
   * and the signature over the signed attributes verified by the JDK's own ML-DSA. Both test
   * chains: the RSA-rooted one and the ML-DSA-65 one.
   */
  @Test
  void cmsTwoPhase_mlDsa65Key_rfc9882SignedDataTheJdkVerifies_dssTypesRefuseTheKey()
      throws Exception {
    byte[] document = "a contract, moved to FIPS 204".getBytes();
    String doc = Base64.getEncoder().encodeToString(document);
    assertRefused(
        post(
            "/api/signatures/cades/start",
            "{\"document\":\"" + doc + "\",\"certificates\":" + chain("signer-ml-dsa-65-1") + "}"),
        422,
        "unsupported_key");
    for (String alias : List.of("signer-ml-dsa-65-1", "signer-ml-dsa-65-2")) {
      JsonNode started =
          JSON.readTree(
              post(
                      "/api/signatures/cms/start",
                      "{\"document\":\"" + doc + "\",\"certificates\":" + chain(alias) + "}")
                  .body());
      assertEquals("ML-DSA", started.get("signatureAlgorithm").asText(), started.toString());
      byte[] toSign = Base64.getDecoder().decode(started.get("toSign").asText());
      SigningKey key = keys.key(alias);
      Signature signer = Signature.getInstance("ML-DSA", key.provider());
      signer.initSign(key.privateKey());
      signer.update(toSign);
      HttpResponse<String> finished =
          post(
              "/api/signatures/" + started.get("token").asText() + "/finish",
              "{\"signature\":\"" + Base64.getEncoder().encodeToString(signer.sign()) + "\"}");
      assertEquals(200, finished.statusCode(), finished.body());
      var signed =
          new org.bouncycastle.cms.CMSSignedData(
              new org.bouncycastle.cms.CMSProcessableByteArray(document),
              Base64.getDecoder().decode(JSON.readTree(finished.body()).get("signed").asText()));
      var info = signed.getSignerInfos().getSigners().iterator().next();
      assertEquals(
          org.bouncycastle.asn1.nist.NISTObjectIdentifiers.id_ml_dsa_65.getId(),
          info.getEncryptionAlgOID(),
          "RFC 9882: the set's OID");
      assertEquals(null, info.getEncryptionAlgParams(), "RFC 9882: no parameters");
      assertEquals(
          org.bouncycastle.asn1.nist.NISTObjectIdentifiers.id_sha512.getId(),
          info.getDigestAlgOID(),
          "RFC 9882: SHA-512");
      var digest =
          info.getSignedAttributes().get(org.bouncycastle.asn1.cms.CMSAttributes.messageDigest);
      assertTrue(
          java.util.Arrays.equals(
              java.security.MessageDigest.getInstance("SHA-512").digest(document),
              org.bouncycastle.asn1.ASN1OctetString.getInstance(
                      digest.getAttrValues().getObjectAt(0))
                  .getOctets()),
          "message digest");
      Signature jdk = Signature.getInstance("ML-DSA", java.security.Security.getProvider("SUN"));
      jdk.initVerify(key.certificate().getPublicKey());
      jdk.update(info.getEncodedSignedAttributes());
      assertTrue(
          jdk.verify(info.getSignature()),
          alias + ": the JDK verifies the signature over the signed attributes");
    }
    // the client workload the same way, each signed document checked with --verify (BouncyCastle,
    // under the key's certificate)
    var factory = new HttpSigningWorkload.Factory("cms");
    try (Workload w =
        factory.create(
            new WorkloadContext(keys, true, () -> pki),
            Params.resolve(
                factory.name(),
                factory.params(),
                Map.of("target", server.baseUrl(), "certs", "2", "alg", "ml-dsa-65")))) {
      MeasuredRun.of("http:cms ml-dsa-65", w, Duration.ofMillis(400)).assertEverySucceeded();
    }
    // a value another key made is refused at finish
    JsonNode started =
        JSON.readTree(
            post(
                    "/api/signatures/cms/start",
                    "{\"document\":\""
                        + doc
                        + "\",\"certificates\":"
                        + chain("signer-ml-dsa-65-1")
                        + "}")
                .body());
    Signature other = Signature.getInstance("ML-DSA", keys.key("signer-ml-dsa-65-2").provider());
    other.initSign(keys.key("signer-ml-dsa-65-2").privateKey());
    other.update(Base64.getDecoder().decode(started.get("toSign").asText()));
    assertRefused(
        post(
            "/api/signatures/" + started.get("token").asText() + "/finish",
            "{\"signature\":\"" + Base64.getEncoder().encodeToString(other.sign()) + "\"}"),
        422,
        "bad_signature");
  }

  @Test
  void everyTransactionType_endToEndOverHttps_verifiesOnTheClient() throws Exception {
    assertTrue(server.baseUrl().startsWith("https://127.0.0.1:"));
    for (String kind :
        List.of("cades", "cades-t", "pades", "pades-t", "xades", "auth", "timestamp")) {
      try (Workload w = client(kind, server.baseUrl())) {
        MeasuredRun.of("http:" + kind, w, Duration.ofMillis(400)).assertEverySucceeded();
      }
    }
  }

  static HttpResponse<String> post(String path, String contentType, byte[] body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(server.baseUrl() + path))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(String path, String json) throws Exception {
    return post(path, "application/json", json.getBytes());
  }

  static String chain(String alias) throws Exception {
    StringBuilder s = new StringBuilder("[");
    for (var c : keys.key(alias).chain())
      s.append(s.length() > 1 ? "," : "")
          .append('"')
          .append(Base64.getEncoder().encodeToString(c.getEncoded()))
          .append('"');
    return s.append(']').toString();
  }

  /**
   * A login with a fresh self-signed certificate of {@code keyType}: the nonce signed with its key
   * when {@code signNonce}, else a dummy signature (for keys refused before the signature is
   * checked).
   */
  static HttpResponse<String> selfSignedLogin(
      String keyType, String algorithm, String commonName, boolean signNonce) throws Exception {
    var generator = java.security.KeyPairGenerator.getInstance(keyType);
    if (!keyType.startsWith("Ed")) generator.initialize(2048);
    var pair = generator.generateKeyPair();
    var name = new org.bouncycastle.asn1.x500.X500Name("CN=" + commonName);
    var cert =
        new org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder(
                name,
                java.math.BigInteger.TEN,
                new java.util.Date(),
                new java.util.Date(System.currentTimeMillis() + 86_400_000L),
                name,
                pair.getPublic())
            .build(
                new org.bouncycastle.operator.jcajce.JcaContentSignerBuilder(algorithm)
                    .build(pair.getPrivate()));
    JsonNode login = JSON.readTree(post("/api/auth/start", "{}").body());
    String signature = "AAAA";
    if (signNonce) {
      Signature sign = Signature.getInstance(algorithm);
      sign.initSign(pair.getPrivate());
      sign.update(Base64.getDecoder().decode(login.get("nonce").asText()));
      signature = Base64.getEncoder().encodeToString(sign.sign());
    }
    return post(
        "/api/auth/" + login.get("token").asText() + "/finish",
        "{\"certificates\":[\""
            + Base64.getEncoder().encodeToString(cert.getEncoded())
            + "\"],\"signature\":\""
            + signature
            + "\"}");
  }

  static void assertRefused(HttpResponse<String> reply, int status, String error) throws Exception {
    assertEquals(status, reply.statusCode(), reply.body());
    JsonNode body = JSON.readTree(reply.body());
    assertEquals(error, body.path("error").asText(), reply.body());
    assertFalse(body.path("message").asText().isBlank());
    assertFalse(
        reply.body().contains("\tat ") || reply.body().contains("Exception:"),
        "no stack trace: " + reply.body());
  }

  @Test
  void badRequests_eachAnsweredWithA4xxJsonError_thenAValidOneSucceeds() throws Exception {
    String doc = Base64.getEncoder().encodeToString("hello".getBytes());
    assertRefused(post("/api/signatures/cades/start", "{not json"), 400, "invalid_json");
    HttpResponse<String> trailing =
        post("/api/signatures/cades/start", "{\"document\":\"" + doc + "\"} 1");
    assertRefused(trailing, 400, "invalid_json");
    assertTrue(
        trailing.body().contains("something follows the JSON object")
            && !trailing.body().contains("`")
            && !trailing.body().contains("fasterxml"),
        "in our words, not Jackson's settings: " + trailing.body());
    HttpResponse<String> deep = post("/api/signatures/cades/start", "[".repeat(5000));
    assertRefused(deep, 400, "invalid_json");
    assertFalse(
        deep.body().contains("`") || deep.body().contains("StreamReadConstraints"), deep.body());
    assertRefused(
        post("/api/signatures/cades/start", "{\"document\":\"" + doc + "\"} trailing"),
        400,
        "invalid_json");
    assertRefused(
        post("/api/signatures/cades/start", "{\"document\":\"" + doc + "\"}{}"),
        400,
        "invalid_json");
    assertRefused(
        post("/api/signatures/cades/start", "text/plain", "{}".getBytes()),
        415,
        "unsupported_media_type");
    assertRefused(
        post(
            "/api/signatures/cades/start",
            "application/x-www-form-urlencoded",
            "document=x".getBytes()),
        415,
        "unsupported_media_type");
    assertRefused(
        http.send(
            HttpRequest.newBuilder(URI.create(server.baseUrl() + "/api/signatures/cades/start"))
                .POST(HttpRequest.BodyPublishers.ofString("{}"))
                .build(),
            HttpResponse.BodyHandlers.ofString()),
        415,
        "unsupported_media_type");
    // the media type in any case, with parameters, and whitespace after the object are all fine:
    // refused only for the missing certificates
    assertRefused(
        post(
            "/api/signatures/cades/start",
            "Application/JSON; charset=utf-8",
            ("{\"document\":\"" + doc + "\"}\r\n").getBytes()),
        400,
        "missing_field");
    assertRefused(post("/api/signatures/cades/start", "[1,2]"), 400, "invalid_json");
    assertRefused(
        post("/api/signatures/cades/start", "{\"certificates\":" + chain("signer-rsa2048-1") + "}"),
        400,
        "missing_field");
    assertRefused(
        post(
            "/api/signatures/cades/start",
            "{\"document\":\"@@@\",\"certificates\":" + chain("signer-rsa2048-1") + "}"),
        400,
        "bad_base64");
    assertRefused(
        post(
            "/api/signatures/cades/start",
            "{\"document\":\"" + doc + "\",\"certificates\":[\"AAAA\"]}"),
        400,
        "bad_certificate");
    assertRefused(post("/api/signatures/jades/start", "{}"), 400, "bad_request");
    assertRefused(
        post("/api/signatures/no-such-token/finish", "{\"signature\":\"AAAA\"}"),
        404,
        "unknown_token");
    assertRefused(
        post(
            "/api/signatures/pades/start",
            "{\"document\":\""
                + Base64.getEncoder().encodeToString("%PDF-1.7 broken".getBytes())
                + "\",\"certificates\":"
                + chain("signer-rsa2048-1")
                + "}"),
        422,
        "unprocessable_document");
    String expired =
        Base64.getEncoder()
            .encodeToString(
                TestCertificates.selfSigned(
                        "expired",
                        java.time.Instant.now().minus(Duration.ofDays(20)),
                        java.time.Instant.now().minus(Duration.ofDays(10)))
                    .getEncoded());
    assertRefused(
        post(
            "/api/signatures/cades/start",
            "{\"document\":\"" + doc + "\",\"certificates\":[\"" + expired + "\"]}"),
        422,
        "certificate_not_valid");
    // Malformed XML for XAdES is refused in our words, and nothing reaches the service's stderr at
    // the client's will
    // (DSS's parsers had the JDK's default error handler, which prints "[Fatal Error] ..." for
    // each).
    java.io.PrintStream stderr = System.err;
    java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
    HttpResponse<String> malformed;
    System.setErr(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      malformed =
          post(
              "/api/signatures/xades/start",
              "{\"document\":\""
                  + Base64.getEncoder().encodeToString("<a><b></a>".getBytes())
                  + "\",\"certificates\":"
                  + chain("signer-rsa2048-1")
                  + "}");
    } finally {
      System.setErr(stderr);
    }
    assertRefused(malformed, 422, "unprocessable_document");
    assertFalse(
        printed.toString(java.nio.charset.StandardCharsets.UTF_8).contains("Fatal Error"),
        printed.toString());
    assertRefused(post("/api/nothing", "{}"), 404, "not_found");
    HttpRequest.Builder crowded =
        HttpRequest.newBuilder(URI.create(server.baseUrl() + "/api/auth/start"))
            .timeout(Duration.ofSeconds(20))
            .POST(HttpRequest.BodyPublishers.noBody());
    for (int i = 0; i < 150; i++) crowded.header("X-Header-" + i, "v");
    assertRefused(
        http.send(crowded.build(), HttpResponse.BodyHandlers.ofString()), 431, "headers_too_large");
    assertRefused(post("/api/auth/start?" + "q".repeat(10_000), "{}"), 414, "uri_too_long");
    // Right after a refusal sent before its body was read (the 414): the next request on the
    // connection is
    // answered, not left waiting 90 s (the JDK server over TLS once read it while draining the old
    // body, then
    // waited on the socket for it).
    assertRefused(
        http.send(
            HttpRequest.newBuilder(URI.create(server.baseUrl() + "/api/auth/start"))
                .timeout(Duration.ofSeconds(20))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString()),
        405,
        "method_not_allowed");
    assertRefused(
        post(
            "/api/signatures/cades/start",
            "application/json",
            new byte[SignerServer.MAX_REQUEST_BYTES + 1]),
        413,
        "too_large");

    // A signature by another key than the certificate's, then the same token replayed.
    JsonNode started =
        JSON.readTree(
            post(
                    "/api/signatures/cades/start",
                    "{\"document\":\""
                        + doc
                        + "\",\"certificates\":"
                        + chain("signer-rsa2048-1")
                        + "}")
                .body());
    String token = started.get("token").asText();
    Signature wrong = Signature.getInstance("SHA256withRSA");
    wrong.initSign(keys.key("signer-rsa2048-2").privateKey());
    wrong.update(Base64.getDecoder().decode(started.get("toSign").asText()));
    assertRefused(
        post(
            "/api/signatures/" + token + "/finish",
            "{\"signature\":\"" + Base64.getEncoder().encodeToString(wrong.sign()) + "\"}"),
        422,
        "bad_signature");
    assertRefused(
        post("/api/signatures/" + token + "/finish", "{\"signature\":\"AAAA\"}"),
        404,
        "unknown_token");

    // A revoked client cannot log in.
    JsonNode login = JSON.readTree(post("/api/auth/start", "{}").body());
    Signature revoked = Signature.getInstance("SHA256withRSA");
    revoked.initSign(keys.key("signer-rsa2048-revoked").privateKey());
    revoked.update(Base64.getDecoder().decode(login.get("nonce").asText()));
    HttpResponse<String> refused =
        post(
            "/api/auth/" + login.get("token").asText() + "/finish",
            "{\"certificates\":"
                + chain("signer-rsa2048-revoked")
                + ",\"signature\":\""
                + Base64.getEncoder().encodeToString(revoked.sign())
                + "\"}");
    assertRefused(refused, 422, "login_refused");
    assertTrue(refused.body().toLowerCase().contains("revoked"), refused.body());

    // A DSA certificate is the client's problem, answered as such (it once dropped the connection
    // unanswered).
    HttpResponse<String> unsupported = selfSignedLogin("DSA", "SHA256withDSA", "dsa client", false);
    assertRefused(unsupported, 422, "unsupported_key");
    assertTrue(unsupported.body().contains("DSA key cannot log in here"), unsupported.body());

    // A self-signed certificate, its signature over the nonce valid, is no client of the PKI (it
    // once was let in:
    // leaving self-signed certificates out of the path left an empty one, which PKIX accepts).
    assertRefused(
        selfSignedLogin("RSA", "SHA256withRSA", "self-signed client", true), 422, "login_refused");

    // An Ed448 key is an Edwards key the JDK calls "EdDSA" like Ed25519's: checked as Ed448 (it was
    // taken for
    // Ed25519 and the reply carried the native provider's error:06000080:…OPENSSL_internal text).
    // Its signature
    // verifies; the login is refused for its self-signed chain, in our words.
    assertEquals(
        "Ed448",
        KeyAlgorithm.signatureAlgorithmFor(
            java.security.KeyPairGenerator.getInstance("Ed448").generateKeyPair().getPublic()));
    HttpResponse<String> edRefused = selfSignedLogin("Ed448", "Ed448", "ed448 client", true);
    assertRefused(edRefused, 422, "login_refused");
    assertTrue(
        edRefused.body().contains("trust anchor") || edRefused.body().contains("path"),
        "refused for its chain: " + edRefused.body());
    assertFalse(
        edRefused.body().contains("error:")
            || edRefused.body().contains("OPENSSL")
            || edRefused.body().contains("signature does not verify"),
        edRefused.body());

    try (Workload w = client("cades", server.baseUrl())) {
      w.newOperation(0).execute();
    }
  }

  @Test
  void targetDown_eachOperationFailsWithAConnectionError() throws Exception {
    int closedPort = io.pkibench.testing.ReservedPorts.one();
    try (Workload w = client("cades", "https://127.0.0.1:" + closedPort)) {
      Operation op = w.newOperation(0);
      assertThrows(java.net.ConnectException.class, op::execute);
    }
  }
}
