package io.pkibench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.pki.TestPki;
import io.pkibench.server.crl.RevocationServer;
import io.pkibench.server.tsa.TsaServer;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.time.Duration;
import java.time.InstantSource;
import org.bouncycastle.asn1.cmp.PKIStatus;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.cms.jcajce.JcaSimpleSignerInfoVerifierBuilder;
import org.bouncycastle.tsp.TimeStampRequest;
import org.bouncycastle.tsp.TimeStampRequestGenerator;
import org.bouncycastle.tsp.TimeStampResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The TSA and revocation (CRL, OCSP) servers over real HTTP on loopback (ephemeral ports). */
@org.junit.jupiter.api.Timeout(
    value = 5,
    unit =
        java.util.concurrent.TimeUnit
            .MINUTES) // talks to the reference servers: a hang fails, said as one
class ReferenceServersTest {
  @TempDir static Path tmp;
  static TestPki pki;
  static TsaServer tsa;
  static RevocationServer crl;
  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  static void start() throws Exception {
    TestKeys fixture = TestKeys.in(tmp);
    pki = fixture.pki;
    tsa =
        new TsaServer(
            new TimeStampAuthority(fixture.keys.key("tsa"), InstantSource.system()),
            "127.0.0.1",
            0);
    crl = new RevocationServer(pki, "127.0.0.1", 0);
    tsa.start();
    crl.start();
  }

  @AfterAll
  static void stop() {
    tsa.close();
    crl.close();
  }

  static HttpResponse<byte[]> post(String url, String contentType, byte[] body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", contentType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  @Test
  void tsa_postedRequest_grantedTokenVerifies() throws Exception {
    TimeStampRequestGenerator generator = new TimeStampRequestGenerator();
    generator.setCertReq(true);
    TimeStampRequest request =
        generator.generate(NISTObjectIdentifiers.id_sha256, new byte[32], BigInteger.TEN);
    HttpResponse<byte[]> reply =
        post(tsa.url(), "application/timestamp-query", request.getEncoded());
    assertEquals(200, reply.statusCode());
    assertEquals(
        "application/timestamp-reply", reply.headers().firstValue("Content-Type").orElseThrow());
    TimeStampResponse response = new TimeStampResponse(reply.body());
    response.validate(request);
    assertEquals(PKIStatus.GRANTED, response.getStatus());
    response
        .getTimeStampToken()
        .validate(new JcaSimpleSignerInfoVerifierBuilder().build(pki.certificate("tsa")));
    assertTrue(tsa.url().startsWith("http://127.0.0.1:"), "loopback by default");
  }

  @Test
  void tsa_badMethodTypeOrSize_answeredWith4xx() throws Exception {
    var get =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(tsa.url())).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(405, get.statusCode());
    assertEquals(415, post(tsa.url(), "application/json", "{}".getBytes()).statusCode());
    assertEquals(
        413,
        post(tsa.url(), "application/timestamp-query", new byte[HttpEndpoints.MAX_BODY_BYTES + 1])
            .statusCode());
    HttpResponse<byte[]> garbage =
        post(tsa.url(), "application/timestamp-query", new byte[] {1, 2, 3});
    assertEquals(
        200, garbage.statusCode(), "RFC 3161 answers a bad request with a rejection response");
    assertEquals(PKIStatus.REJECTION, new TimeStampResponse(garbage.body()).getStatus());

    // 2,000 one-byte mutations of a valid request: each answered, and no rejection speaks of Java
    // or BouncyCastle classes.
    byte[] valid =
        new TimeStampRequestGenerator()
            .generate(NISTObjectIdentifiers.id_sha256, new byte[32], BigInteger.TEN)
            .getEncoded();
    java.util.SplittableRandom random = new java.util.SplittableRandom(3161);
    int rejected = 0;
    for (int i = 0; i < 2000; i++) {
      byte[] mutated = valid.clone();
      mutated[random.nextInt(mutated.length)] = (byte) random.nextInt(256);
      HttpResponse<byte[]> reply = post(tsa.url(), "application/timestamp-query", mutated);
      assertEquals(200, reply.statusCode(), "mutation " + i);
      TimeStampResponse r = new TimeStampResponse(reply.body());
      if (r.getStatus() == PKIStatus.REJECTION) {
        rejected++;
        String said = r.getStatusString();
        assertTrue(
            said != null
                && !said.contains("Exception")
                && !said.contains("java.")
                && !said.contains("org.bouncycastle")
                && !said.contains("failed to construct"),
            "mutation " + i + " answered in someone else's words: " + said);
      }
    }
    assertTrue(rejected > 0, "some mutations must be refused");
  }

  @Test
  void crl_servedAtItsDistributionPoint_parsesAndListsTheRevokedSigner() throws Exception {
    var reply =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(crl.baseUrl() + "/crl/intermediate-a.crl"))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(200, reply.statusCode());
    assertEquals("application/pkix-crl", reply.headers().firstValue("Content-Type").orElseThrow());
    X509CRL list =
        (X509CRL)
            CertificateFactory.getInstance("X.509")
                .generateCRL(new ByteArrayInputStream(reply.body()));
    list.verify(pki.certificate("intermediate-a").getPublicKey());
    assertNotNull(list.getRevokedCertificate(pki.certificate("signer-rsa2048-revoked")));
    assertEquals(null, list.getRevokedCertificate(pki.certificate("signer-rsa2048-1")));
    var missing =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(crl.baseUrl() + "/crl/nobody.crl")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(404, missing.statusCode());
    assertTrue(missing.body().contains("/crl/intermediate-b.crl"), missing.body());
  }

  static String opensslOcsp(String caAlias, String... certAliases) throws Exception {
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of("ocsp", "-issuer", pki.certificatePem(caAlias).toString()));
    for (String alias : certAliases)
      args.addAll(java.util.List.of("-cert", pki.certificatePem(alias).toString()));
    args.addAll(
        java.util.List.of(
            "-url",
            crl.baseUrl() + "/ocsp/" + caAlias,
            "-CAfile",
            pki.certificatePem("root-ca").toString(),
            "-verify_other",
            pki.caChainPem().toString()));
    return Openssl.run(args.toArray(String[]::new));
  }

  @Test
  void ocsp_opensslAsksEachResponder_goodRevokedAndSignedByTheCa() throws Exception {
    String a = opensslOcsp("intermediate-a", "signer-rsa2048-1", "signer-rsa2048-revoked");
    assertTrue(Openssl.succeeded(a) && a.contains("Response verify OK"), a);
    assertTrue(a.contains(pki.certificatePem("signer-rsa2048-1") + ": good"), a);
    assertTrue(
        a.contains(pki.certificatePem("signer-rsa2048-revoked") + ": revoked")
            && a.contains("Reason: keyCompromise"),
        a);
    String b = opensslOcsp("intermediate-b", "signer-rsa2048-2");
    assertTrue(
        b.contains("Response verify OK")
            && b.contains(pki.certificatePem("signer-rsa2048-2") + ": good"),
        b);
    String root = opensslOcsp("root-ca", "intermediate-a");
    assertTrue(
        root.contains("Response verify OK")
            && root.contains(pki.certificatePem("intermediate-a") + ": good"),
        root);
    // Asked the wrong CA about a certificate it did not issue: unknown, never good.
    String wrong = opensslOcsp("intermediate-b", "signer-rsa2048-1");
    assertTrue(wrong.contains(pki.certificatePem("signer-rsa2048-1") + ": unknown"), wrong);
  }

  @Test
  void ocsp_getFormAndBadRequests_answeredPerRfc6960() throws Exception {
    var leaf =
        new org.bouncycastle.cert.jcajce.JcaX509CertificateHolder(
            pki.certificate("signer-rsa2048-1"));
    var issuer =
        new org.bouncycastle.cert.jcajce.JcaX509CertificateHolder(
            pki.certificate("intermediate-a"));
    var digests = new org.bouncycastle.operator.jcajce.JcaDigestCalculatorProviderBuilder().build();
    var id =
        new org.bouncycastle.cert.ocsp.CertificateID(
            digests.get(org.bouncycastle.cert.ocsp.CertificateID.HASH_SHA1),
            issuer,
            leaf.getSerialNumber());
    byte[] request =
        new org.bouncycastle.cert.ocsp.OCSPReqBuilder().addRequest(id).build().getEncoded();
    String path =
        java.net.URLEncoder.encode(
            java.util.Base64.getEncoder().encodeToString(request),
            java.nio.charset.StandardCharsets.US_ASCII);
    var get =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(crl.baseUrl() + "/ocsp/intermediate-a/" + path))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(200, get.statusCode());
    assertEquals(
        "application/ocsp-response", get.headers().firstValue("Content-Type").orElseThrow());
    var answer = new org.bouncycastle.cert.ocsp.OCSPResp(get.body());
    assertEquals(org.bouncycastle.cert.ocsp.OCSPResp.SUCCESSFUL, answer.getStatus());
    var basic = (org.bouncycastle.cert.ocsp.BasicOCSPResp) answer.getResponseObject();
    assertTrue(
        basic.isSignatureValid(
            new org.bouncycastle.operator.jcajce.JcaContentVerifierProviderBuilder()
                .build(issuer)));
    assertEquals(
        org.bouncycastle.cert.ocsp.CertificateStatus.GOOD, basic.getResponses()[0].getCertStatus());
    String unescaped =
        java.util.Base64.getEncoder()
            .encodeToString(request)
            .replace("/", "%2F"); // '+' and '=' as they are
    var lenient =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(crl.baseUrl() + "/ocsp/intermediate-a/" + unescaped))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(
        org.bouncycastle.cert.ocsp.OCSPResp.SUCCESSFUL,
        new org.bouncycastle.cert.ocsp.OCSPResp(lenient.body()).getStatus());

    var garbage =
        post(
            crl.baseUrl() + "/ocsp/intermediate-a",
            "application/ocsp-request",
            new byte[] {1, 2, 3});
    assertEquals(
        200, garbage.statusCode(), "RFC 6960 answers a bad request with an OCSP error status");
    assertEquals(
        org.bouncycastle.cert.ocsp.OCSPRespBuilder.MALFORMED_REQUEST,
        new org.bouncycastle.cert.ocsp.OCSPResp(garbage.body()).getStatus());
    var unknownCa = post(crl.baseUrl() + "/ocsp/nobody", "application/ocsp-request", request);
    assertEquals(404, unknownCa.statusCode());
    assertTrue(
        new String(unknownCa.body()).contains("/ocsp/intermediate-a"),
        new String(unknownCa.body()));
    var put =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(crl.baseUrl() + "/ocsp/intermediate-a"))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(request))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(405, put.statusCode());

    // One byte of a valid request changed, 5,000 ways: every one answered with an OCSP response
    // (never an empty reply).
    java.util.SplittableRandom random = new java.util.SplittableRandom(10);
    java.util.Map<Integer, Integer> byStatus = new java.util.TreeMap<>();
    for (int i = 0; i < 5000; i++) {
      byte[] mutated = request.clone();
      mutated[random.nextInt(mutated.length)] = (byte) random.nextInt(256);
      var reply = post(crl.baseUrl() + "/ocsp/intermediate-a", "application/ocsp-request", mutated);
      assertEquals(200, reply.statusCode(), "mutation " + i + ": " + new String(reply.body()));
      byStatus.merge(
          new org.bouncycastle.cert.ocsp.OCSPResp(reply.body()).getStatus(), 1, Integer::sum);
    }
    assertTrue(
        byStatus.containsKey(org.bouncycastle.cert.ocsp.OCSPRespBuilder.MALFORMED_REQUEST),
        byStatus.toString());
    assertEquals(
        java.util.Set.of(
            org.bouncycastle.cert.ocsp.OCSPRespBuilder.SUCCESSFUL,
            org.bouncycastle.cert.ocsp.OCSPRespBuilder.MALFORMED_REQUEST),
        byStatus.keySet(),
        "answered or refused as malformed, nothing else: " + byStatus);
  }
}
