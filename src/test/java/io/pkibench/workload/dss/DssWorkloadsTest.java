package io.pkibench.workload.dss;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import eu.europa.esig.dss.enumerations.SignaturePackaging;
import eu.europa.esig.dss.model.InMemoryDocument;
import io.pkibench.cli.CliContext;
import io.pkibench.cli.Main;
import io.pkibench.formats.ades.AdesChecks;
import io.pkibench.formats.ades.TwoPhaseSigner;
import io.pkibench.keys.TlsContexts;
import io.pkibench.server.dss.DssServer;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.WorkloadFactory;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dss:* workloads against EU DSS's own REST services as {@code serve dss} wires them (one DSS
 * for the class, real HTTP on loopback), and against services that answer wrong: every bad answer a
 * counted failure with its reason.
 */
@org.junit.jupiter.api.Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES)
class DssWorkloadsTest {
  @TempDir static Path tmp;
  static TestKeys fixture;
  static DssServer dss;

  @BeforeAll
  static void serveDss() throws Exception {
    fixture = TestKeys.in(tmp);
    dss =
        DssServer.forTestPki(
            fixture.pki, fixture.keys, "127.0.0.1", 0, InstantSource.system(), line -> {});
    dss.start();
  }

  @AfterAll
  static void stop() {
    if (dss != null) dss.close();
  }

  static Map<String, String> target(String url, String... more) {
    Map<String, String> params = new HashMap<>(Map.of("target", url));
    for (int i = 0; i < more.length; i += 2) params.put(more[i], more[i + 1]);
    return params;
  }

  @Test
  void everyDssWorkload_againstServedDss_succeedsAndVerifies() throws Exception {
    for (WorkloadFactory f :
        new WorkloadFactory[] {
          new DssSigningWorkload.Factory("cades"),
          new DssSigningWorkload.Factory("cades-t"),
          new DssSigningWorkload.Factory("pades"),
          new DssSigningWorkload.Factory("pades-t"),
          new DssSigningWorkload.Factory("xades"),
          new DssValidateWorkload.Factory(),
          new DssServerSignWorkload.Factory()
        }) {
      Map<String, String> params =
          f.name().equals("dss:cades") || f.name().equals("dss:cades-t")
              ? target(dss.baseUrl(), "size", "16k")
              : target(dss.baseUrl());
      try (var w =
          fixture.workload(
              f, params)) { // --verify on: each output checked by our independent verifiers
        MeasuredRun.of(f.name(), w, Duration.ofMillis(1200)).assertEverySucceeded();
      }
    }
  }

  /**
   * -p document=pdf: DSS's CAdES signs the 137 KB sample PDF the PAdES types sign, as http:cades
   * does; openssl checks it over that PDF.
   */
  @Test
  void dssCades_documentPdf_signsTheSamplePdf() throws Exception {
    byte[] signed;
    try (var w =
        (DssSigningWorkload)
            fixture.workload(
                new DssSigningWorkload.Factory("cades"),
                target(dss.baseUrl(), "document", "pdf"))) {
      signed = w.signOnce();
    }
    Path dir = Files.createTempDirectory(tmp, "cms-pdf");
    Files.write(dir.resolve("document.pdf"), io.pkibench.formats.ades.SamplePdf.generate());
    Files.write(dir.resolve("dss.p7s"), signed);
    Files.writeString(
        dir.resolve("chain.pem"), Files.readString(fixture.pki.certificatePem("intermediate-a")));
    String ok =
        Openssl.run(
            dir,
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            "dss.p7s",
            "-content",
            "document.pdf",
            "-CAfile",
            fixture.pki.certificatePem("root-ca").toString(),
            "-certfile",
            "chain.pem",
            "-out",
            "/dev/null");
    assertTrue(Openssl.succeeded(ok), "signed over the sample PDF: " + ok);
  }

  @Test
  void dssCades_verifiesWithOpensslCms() throws Exception {
    var factory = new DssSigningWorkload.Factory("cades");
    byte[] signed;
    try (var w =
        (DssSigningWorkload) fixture.workload(factory, target(dss.baseUrl(), "size", "8k"))) {
      signed = w.signOnce();
    }
    Path dir = Files.createTempDirectory(tmp, "cms");
    Files.write(
        dir.resolve("document.bin"),
        AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, 8 * 1024));
    Files.write(dir.resolve("dss.p7s"), signed);
    Files.writeString(
        dir.resolve("chain.pem"), Files.readString(fixture.pki.certificatePem("intermediate-a")));
    String ok =
        Openssl.run(
            dir,
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            "dss.p7s",
            "-content",
            "document.bin",
            "-CAfile",
            fixture.pki.certificatePem("root-ca").toString(),
            "-certfile",
            "chain.pem",
            "-out",
            "/dev/null");
    assertTrue(Openssl.succeeded(ok), ok);
    // and openssl refuses it over another document: the check can fail
    byte[] other = AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, 8 * 1024);
    other[100] ^= 1;
    Files.write(dir.resolve("other.bin"), other);
    String refused =
        Openssl.run(
            dir,
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            "dss.p7s",
            "-content",
            "other.bin",
            "-CAfile",
            fixture.pki.certificatePem("root-ca").toString(),
            "-certfile",
            "chain.pem",
            "-out",
            "/dev/null");
    assertTrue(!Openssl.succeeded(refused), refused);
  }

  @Test
  void dssValidate_tamperedSample_isACountedFailureNamingTheIndication() throws Exception {
    byte[] content = AdesChecks.sampleDocument(TwoPhaseSigner.Format.CADES, 4096);
    byte[] signed =
        new TwoPhaseSigner(null, InstantSource.system())
            .sign(
                TwoPhaseSigner.Format.CADES,
                new InMemoryDocument(content),
                fixture.keys.key("signer-rsa2048-1"),
                SignaturePackaging.ENVELOPING);
    Path good = tmp.resolve("good.p7m");
    Files.write(good, signed);
    try (var w =
        fixture.workload(
            new DssValidateWorkload.Factory(), target(dss.baseUrl(), "sample", good.toString()))) {
      MeasuredRun.of("dss:validate good", w, Duration.ofMillis(1000)).assertEverySucceeded();
    }
    int at = indexOf(signed, content);
    assertTrue(at > 0, "the enveloped content is in the CMS");
    byte[] tampered = signed.clone();
    tampered[at + 10] ^= 0x01;
    Path bad = tmp.resolve("tampered.p7m");
    Files.write(bad, tampered);
    try (var w =
        fixture.workload(
            new DssValidateWorkload.Factory(), target(dss.baseUrl(), "sample", bad.toString()))) {
      MeasuredRun.of("dss:validate tampered", w, Duration.ofMillis(1500))
          .assertEveryFailedWith("not TOTAL_PASSED");
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) if (haystack[i + j] != needle[j]) continue outer;
      return i;
    }
    return -1;
  }

  /**
   * A service at the target that answers every request with {@code status}, {@code type} and {@code
   * body}.
   */
  static HttpServer answering(int status, String type, byte[] body) throws Exception {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          exchange.getResponseHeaders().set("Content-Type", type);
          exchange.sendResponseHeaders(status, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    return server;
  }

  @Test
  void badAnswers_areCountedFailuresWithTheirReason() throws Exception {
    record Case(int status, String type, String body, String reason) {}
    for (Case c :
        new Case[] {
          new Case(
              500,
              "application/json",
              "{\"message\":\"boom\"}",
              "HTTP 500 from signature/one-document/getDataToSign: {\"message\":\"boom\"}"),
          new Case(
              200,
              "text/html",
              "<html><body>Welcome to nginx</body></html>",
              "is text/html, not JSON: <html><body>Welcome to nginx"),
          new Case(
              200,
              "application/json",
              "{\"bytes\":\"AAEC",
              "unreadable JSON from signature/one-document/getDataToSign")
        }) {
      HttpServer server =
          answering(c.status(), c.type(), c.body().getBytes(StandardCharsets.UTF_8));
      try (var w =
          fixture.workload(
              new DssSigningWorkload.Factory("cades"),
              target(
                  "http://127.0.0.1:" + server.getAddress().getPort() + "/services/rest",
                  "size",
                  "1k"))) {
        MeasuredRun.of("dss:cades against " + c.type(), w, Duration.ofMillis(1000))
            .assertEveryFailedWith(c.reason());
      } finally {
        server.stop(0);
      }
    }
  }

  /**
   * An https DSS elsewhere: -p trust names the CA its certificate chains to; another CA's is
   * refused in the handshake.
   */
  @Test
  void httpsTarget_trustsTheGivenCa_only(@TempDir Path dir) throws Exception {
    var https =
        com.sun.net.httpserver.HttpsServer.create(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    https.setHttpsConfigurator(
        new com.sun.net.httpserver.HttpsConfigurator(
            TlsContexts.withIdentity(
                fixture.keys.key("tls-server"), fixture.pki.certificate("root-ca"))));
    byte[] body = "{\"message\":\"over TLS\"}".getBytes(StandardCharsets.UTF_8);
    https.createContext(
        "/",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(500, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    https.start();
    try {
      String url = "https://127.0.0.1:" + https.getAddress().getPort() + "/services/rest";
      try (var w =
          fixture.workload(
              new DssSigningWorkload.Factory("cades"),
              target(
                  url, "size", "1k", "trust", fixture.pki.certificatePem("root-ca").toString()))) {
        MeasuredRun.of("dss:cades over https, its CA trusted", w, Duration.ofMillis(1000))
            .assertEveryFailedWith(
                "HTTP 500 from signature/one-document/getDataToSign: {\"message\":\"over TLS\"}");
      }
      TestKeys other = TestKeys.in(dir); // another test PKI: another root
      try (var w =
          fixture.workload(
              new DssSigningWorkload.Factory("cades"),
              target(url, "size", "1k", "trust", other.pki.certificatePem("root-ca").toString()))) {
        MeasuredRun.of("dss:cades over https, another CA trusted", w, Duration.ofMillis(1000))
            .assertEveryFailedWith("SSLHandshakeException");
      }
    } finally {
      https.stop(0);
    }
  }

  @Test
  void unreachableTarget_stopsTheRunBeforeItBegins_namingIt(@TempDir Path dir) throws Exception {
    int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    String url = "http://127.0.0.1:" + closed + "/services/rest";
    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of("PATH", System.getenv("PATH")),
            InstantSource.system(),
            dir,
            false);
    int code =
        Main.execute(
            ctx,
            "run",
            "dss:cades",
            "--target",
            url,
            "--pki",
            tmp.resolve("pki").toString(),
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x1s",
            "--out",
            "run.json");
    // the check before the run (one real request) stops it: nothing measured, nothing written
    assertEquals(2, code, out + "\n" + err);
    String said = out + "\n" + err;
    assertTrue(
        said.contains("--target " + url + ": nothing answers there (connection refused)"), said);
    assertFalse(java.nio.file.Files.exists(dir.resolve("run.json")), "nothing was measured");
  }
}
