package io.pkibench.workload.apispec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.ades.AdesChecks;
import io.pkibench.formats.ades.SamplePdf;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.keys.PemKeys;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.TestPki;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.Provider;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code api} against an HTTP(S) signing API written here with a shape of its own ({@link
 * SigningApi}: a bearer token, two steps), its certificates made by openssl: an honest API, one
 * that signs other bytes than it was sent, one that answers 500, a CMS made by {@code openssl cms
 * -sign}, and a CA issuing for the workload's CSRs.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ApiWorkloadTest {
  @TempDir static Path dir;
  static PrivateKey signerKey, caKey;
  static X509Certificate ca;
  static SSLContext serverTls, mutualTls;
  static byte[] openSslCms;
  static final String TOKEN = "tok-3f9a1c77e2b54d08";
  static final Duration SHORT = Duration.ofMillis(400);

  static void openssl(String... args) throws Exception {
    String result = Openssl.run(dir, args);
    assertTrue(Openssl.succeeded(result), "openssl " + String.join(" ", args) + " -> " + result);
  }

  @BeforeAll
  static void makeCertificates() throws Exception {
    String ec = "ec_paramgen_curve:P-256";
    openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        ec,
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-subj",
        "/CN=Test API CA",
        "-days",
        "2",
        "-addext",
        "basicConstraints=critical,CA:TRUE",
        "-addext",
        "keyUsage=critical,keyCertSign");
    Files.writeString(dir.resolve("server.ext"), "subjectAltName=IP:127.0.0.1\n");
    Files.writeString(dir.resolve("signer.ext"), "keyUsage=critical,digitalSignature\n");
    for (String client : List.of("client", "client-a", "client-b"))
      Files.writeString(dir.resolve(client + ".ext"), "extendedKeyUsage=clientAuth\n");
    for (String name : List.of("server", "signer", "client", "client-a", "client-b")) {
      openssl(
          "req",
          "-newkey",
          "ec",
          "-pkeyopt",
          ec,
          "-nodes",
          "-keyout",
          name + ".key",
          "-out",
          name + ".csr",
          "-subj",
          "/CN=" + name);
      openssl(
          "x509",
          "-req",
          "-in",
          name + ".csr",
          "-CA",
          "ca.pem",
          "-CAkey",
          "ca.key",
          "-CAcreateserial",
          "-days",
          "2",
          "-extfile",
          name + ".ext",
          "-out",
          name + ".pem");
    }
    openssl("pkey", "-in", "signer.key", "-pubout", "-out", "signer-pub.pem");
    Files.createDirectories(dir.resolve("ids"));
    for (String name : List.of("client-a", "client-b"))
      for (String ext : List.of(".pem", ".key"))
        Files.copy(dir.resolve(name + ext), dir.resolve("ids").resolve(name + ext));
    Files.write(dir.resolve("doc.bin"), "a document the API signed once, with openssl".getBytes());
    Files.write(dir.resolve("other.bin"), "another document entirely".getBytes());
    openssl(
        "cms",
        "-sign",
        "-binary",
        "-in",
        "doc.bin",
        "-signer",
        "signer.pem",
        "-inkey",
        "signer.key",
        "-outform",
        "DER",
        "-out",
        "doc.p7s",
        "-md",
        "sha256");
    openSslCms = Files.readAllBytes(dir.resolve("doc.p7s"));
    signerKey = PemKeys.privateKey(Files.readAllBytes(dir.resolve("signer.key")));
    caKey = PemKeys.privateKey(Files.readAllBytes(dir.resolve("ca.key")));
    ca = PemKeys.certificate(Files.readAllBytes(dir.resolve("ca.pem")));
    PrivateKey serverKey = PemKeys.privateKey(Files.readAllBytes(dir.resolve("server.key")));
    X509Certificate serverCert = PemKeys.certificate(Files.readAllBytes(dir.resolve("server.pem")));
    SigningKey server =
        new SigningKey(
            "server", serverKey, List.of(serverCert, ca), new Provider("none", "1", "") {});
    serverTls = SSLContext.getInstance("TLS");
    serverTls.init(TlsContexts.keyManagers(server), null, null);
    mutualTls = SSLContext.getInstance("TLS");
    mutualTls.init(TlsContexts.keyManagers(server), TlsContexts.trustManagers(ca), null);
  }

  /** The API's own shape: upload, then sign by id; the signature checked against openssl's key. */
  static final String SIGN_SPEC =
      """
      document: {size: 2048}
      headers: {Authorization: "Bearer ${env.SIGN_TOKEN}"}
      steps:
        - request: POST /v1/documents
          json: {content: "${document | base64}"}
          expect: {status: 201}
          capture: {id: /id}
        - request: POST /v1/documents/${id}/sign
          json: {keyId: k1}
          expect: {status: 200}
          capture: {sig: /signature}
      verify:
        - signature: {value: "${sig | unbase64}", over: "${document}", alg: SHA256withECDSA, key: signer-pub.pem}
      """;

  static Path spec(String name, String text) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(file, text);
    return file;
  }

  static Workload api(SigningApi service, Path spec, Map<String, String> extra) throws Exception {
    ApiWorkload.Factory factory = new ApiWorkload.Factory();
    Map<String, String> given = new HashMap<>(extra);
    given.put("target", service.url());
    given.put("spec", spec.toString());
    if (service.url().startsWith("https")) given.put("trust", dir.resolve("ca.pem").toString());
    Params params = Params.resolve("api", factory.params(), given);
    assertEquals(List.of(), factory.problems(params, "software"));
    return factory.create(
        new WorkloadContext(
            null, true, () -> null, InstantSource.system(), Map.of("SIGN_TOKEN", TOKEN)),
        params);
  }

  SigningApi service(SigningApi.Behaviour behaviour, boolean https) throws Exception {
    return new SigningApi(
        https ? serverTls : null, TOKEN, behaviour, signerKey, caKey, ca, openSslCms);
  }

  @Test
  void run_honestApiOverHttps_everyOperationSucceedsOnOneKeptAliveConnection() throws Exception {
    try (SigningApi service = service(SigningApi.Behaviour.HONEST, true);
        Workload w = api(service, spec("sign.yaml", SIGN_SPEC), Map.of())) {
      MeasuredRun run = MeasuredRun.of("api honest", w, SHORT).assertEverySucceeded();
      assertTrue(run.succeeded() >= 2, run.toString());
      // the last operation may be cut by the iteration's end after the API signed
      assertTrue(service.signed.get() >= run.succeeded(), run + " vs " + service.signed);
      assertEquals(0, service.unauthorized.get(), "the bearer token from env.SIGN_TOKEN was sent");
      // one worker, HTTP/1.1 keep-alive: every request of every operation on one connection
      assertEquals(1, service.clientPorts.size(), service.clientPorts.toString());
    }
  }

  @Test
  void run_apiSigningOtherBytes_everyOperationFailsNamingTheCheck() throws Exception {
    try (SigningApi service = service(SigningApi.Behaviour.LIAR, false);
        Workload w = api(service, spec("liar.yaml", SIGN_SPEC), Map.of())) {
      MeasuredRun run = MeasuredRun.of("api liar", w, SHORT);
      assertTrue(run.started() >= 2 && run.succeeded() == 0, run.toString());
      assertEquals(
          Map.of(
              "check signature (line 13): the SHA256withECDSA signature does not verify over ${document} with the key given (StepFailure)",
              run.failed()),
          run.errors());
    }
  }

  @Test
  void run_apiAnswering500_everyOperationFailsNamingTheStep() throws Exception {
    try (SigningApi service = service(SigningApi.Behaviour.BROKEN, false);
        Workload w = api(service, spec("broken.yaml", SIGN_SPEC), Map.of())) {
      MeasuredRun run = MeasuredRun.of("api broken", w, SHORT);
      assertTrue(run.started() >= 2 && run.succeeded() == 0, run.toString());
      assertEquals(
          Map.of(
              "step 2 (POST /v1/documents/${id}/sign, line 8): expected status 200, answered 500 (StepFailure)",
              run.failed()),
          run.errors());
    }
  }

  static final String CMS_SPEC =
      """
      document: {file: DOC}
      headers: {Authorization: "Bearer ${env.SIGN_TOKEN}"}
      steps:
        - request: GET /v1/cms
          capture: {cms: /cms}
      verify:
        - cms: {value: "${cms | unbase64}", over: "${document}", trust: ca.pem}
      """;

  /** openssl cms -sign made the CMS over doc.bin: the check chains it to openssl's CA. */
  @Test
  void run_cmsFromOpensslOverTheDocumentSent_everyOperationSucceeds() throws Exception {
    try (SigningApi service = service(SigningApi.Behaviour.HONEST, false);
        Workload w = api(service, spec("cms.yaml", CMS_SPEC.replace("DOC", "doc.bin")), Map.of())) {
      MeasuredRun.of("api cms", w, SHORT).assertEverySucceeded();
    }
  }

  @Test
  void run_cmsOverOtherBytesThanSent_everyOperationFailsNamingTheCheck() throws Exception {
    try (SigningApi service = service(SigningApi.Behaviour.HONEST, false);
        Workload w =
            api(service, spec("cms-other.yaml", CMS_SPEC.replace("DOC", "other.bin")), Map.of())) {
      MeasuredRun.of("api cms other", w, SHORT)
          .assertEveryFailedWith(
              "check cms (line 7): the CMS signature does not verify over ${document}");
    }
  }

  /** A service that answers a signed PDF or XML for the document uploaded. */
  static final String ADES_SPEC =
      """
      document: {file: DOC}
      headers: {Authorization: "Bearer ${env.SIGN_TOKEN}"}
      steps:
        - request: POST /v1/ades/KIND
          json: {content: "${document | base64}"}
          capture: {signed: /signed}
      verify:
        - KIND: {value: "${signed | unbase64}", over: "${document}", WHO}
      """;

  /**
   * The test PKI's signer signs as the reference signer does (EU DSS); the pades check chains the
   * certificate its CMS carries to the test PKI's root, the xades check verifies under the signer's
   * certificate, each bound to the document sent.
   */
  static Workload ades(SigningApi.Behaviour behaviour, String kind, SigningApi[] started)
      throws Exception {
    TestKeys pki = TestKeys.in(dir.resolve("ades"));
    SigningKey signer = pki.keys.key("signer-rsa2048-1");
    Files.writeString(dir.resolve("ades-signer.pem"), TestPki.pem(List.of(signer.certificate())));
    Files.writeString(
        dir.resolve("ades-root.pem"), TestPki.pem(List.of(pki.pki.certificate("root-ca"))));
    Files.write(dir.resolve("doc.pdf"), SamplePdf.generate());
    Files.write(
        dir.resolve("doc.xml"), AdesChecks.sampleDocument(TwoPhaseSigner.Format.XADES, 2048));
    SigningApi service =
        new SigningApi(null, TOKEN, behaviour, signerKey, caKey, ca, openSslCms)
            .signingAdesWith(signer);
    started[0] = service;
    String text =
        ADES_SPEC
            .replace("DOC", kind.equals("pades") ? "doc.pdf" : "doc.xml")
            .replace("KIND", kind)
            .replace("WHO", kind.equals("pades") ? "trust: ades-root.pem" : "key: ades-signer.pem");
    return api(service, spec(kind + "-" + behaviour + ".yaml", text), Map.of());
  }

  @Test
  void run_padesAndXadesOverTheDocumentSent_everyOperationSucceeds() throws Exception {
    for (String kind : List.of("pades", "xades")) {
      SigningApi[] service = new SigningApi[1];
      try (Workload w = ades(SigningApi.Behaviour.HONEST, kind, service)) {
        MeasuredRun.of("api " + kind, w, SHORT).assertEverySucceeded();
      } finally {
        if (service[0] != null) service[0].close();
      }
    }
  }

  @Test
  void run_padesAndXadesOverOtherDocuments_everyOperationFailsNamingTheCheck() throws Exception {
    Map<String, String> why =
        Map.of(
            "pades",
            "check pades (line 8): the signed revision is not the PDF sent",
            "xades",
            "check xades (line 8): the XAdES signature's whole-document reference covers another"
                + " document than the one sent");
    for (String kind : List.of("pades", "xades")) {
      SigningApi[] service = new SigningApi[1];
      try (Workload w = ades(SigningApi.Behaviour.LIAR, kind, service)) {
        MeasuredRun.of("api " + kind + " other", w, SHORT).assertEveryFailedWith(why.get(kind));
      } finally {
        if (service[0] != null) service[0].close();
      }
    }
  }

  static final String CA_SPEC =
      """
      headers: {Authorization: "Bearer ${env.SIGN_TOKEN}"}
      steps:
        - request: POST /ca/issue
          json: {csr: "${csr}", profile: server, days: 1}
          capture: {cert: /certificate}
      verify:
        - x509: {value: "${cert}", trust: ca.pem}
      """;

  @Test
  void run_caIssuingForEachCsr_everyCertificateChainsAndCarriesTheCsrKey() throws Exception {
    try (SigningApi service = service(SigningApi.Behaviour.HONEST, true);
        Workload w = api(service, spec("ca.yaml", CA_SPEC), Map.of("csr-keys", "2"))) {
      MeasuredRun.of("api ca", w, SHORT).assertEverySucceeded();
    }
  }

  @Test
  void run_caCertifyingAnotherKey_everyOperationFailsNamingTheCheck() throws Exception {
    try (SigningApi service = service(SigningApi.Behaviour.LIAR, false);
        Workload w = api(service, spec("ca-liar.yaml", CA_SPEC), Map.of("csr-keys", "2"))) {
      MeasuredRun.of("api ca liar", w, SHORT)
          .assertEveryFailedWith(
              "check x509 (line 7): the certificate issued does not carry the CSR's key");
    }
  }

  @Test
  void run_mutualTlsWithClientCertAndKeyFiles_everyOperationSucceedsAsThatClient()
      throws Exception {
    try (SigningApi service =
            new SigningApi(
                mutualTls,
                true,
                TOKEN,
                SigningApi.Behaviour.HONEST,
                signerKey,
                caKey,
                ca,
                openSslCms);
        Workload w =
            api(
                service,
                spec("mtls.yaml", SIGN_SPEC),
                Map.of(
                    "client-cert", dir.resolve("client.pem").toString(),
                    "client-key", dir.resolve("client.key").toString()))) {
      MeasuredRun.of("api mutual tls", w, SHORT).assertEverySucceeded();
      assertEquals(Set.of("CN=client"), service.clientSubjects);
    }
  }

  @Test
  void run_mutualTlsWithoutClientCert_everyOperationFailsInTheFirstStep() throws Exception {
    try (SigningApi service =
            new SigningApi(
                mutualTls,
                true,
                TOKEN,
                SigningApi.Behaviour.HONEST,
                signerKey,
                caKey,
                ca,
                openSslCms);
        Workload w = api(service, spec("no-client.yaml", SIGN_SPEC), Map.of())) {
      MeasuredRun.of("api mutual tls, no client certificate", w, SHORT)
          .assertEveryFailedWith("step 1 (POST /v1/documents, line 4): ");
      assertEquals(Set.of(), service.clientSubjects);
    }
  }

  /** -p identities=DIR: worker i presents the directory's i-th pair, on its own connections. */
  @Test
  void newOperation_identitiesDirectory_eachWorkerPresentsItsOwnCertificate() throws Exception {
    try (SigningApi service =
            new SigningApi(
                mutualTls,
                true,
                TOKEN,
                SigningApi.Behaviour.HONEST,
                signerKey,
                caKey,
                ca,
                openSslCms);
        Workload w =
            api(
                service,
                spec("ids.yaml", SIGN_SPEC),
                Map.of("identities", dir.resolve("ids").toString()))) {
      w.newOperation(0).execute();
      assertEquals(Set.of("CN=client-a"), service.clientSubjects);
      w.newOperation(1).execute();
      assertEquals(Set.of("CN=client-a", "CN=client-b"), service.clientSubjects);
    }
  }
}
