package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.server.ReadyLine;
import io.pkibench.session.ForkedSeries;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pkibench serve crl}: its bad input in-process (exit 2 before listening); and, since a
 * serve command returns only when its JVM stops, the service itself in a child JVM started as a
 * user would, its CRL read by the JDK and its OCSP answers checked by {@code openssl ocsp}.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // talks to a server: a hang fails, said as one
class ServeCrlTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    err.getBuffer().setLength(0);
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            InstantSource.system(),
            dir,
            false);
    return Main.execute(ctx, args);
  }

  @Test
  void serveCrl_portInUseOrNotANumber_exit2NamingThePort() throws Exception {
    try (var taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      String port = Integer.toString(taken.getLocalPort());
      assertEquals(2, run("serve", "crl", "--port", port, "--pki", "pki"));
      assertTrue(
          err.toString()
              .contains(
                  "--port "
                      + port
                      + ": cannot listen on 127.0.0.1:"
                      + port
                      + " (address already in use)"),
          err.toString());
    }
    assertEquals(2, run("serve", "crl", "--port", "eighty"));
    assertTrue(
        err.toString().contains("'eighty'") && err.toString().contains("--port"), err.toString());
  }

  @Test
  void serveCrl_inItsOwnJvm_servesTheCaCrlAndOcspSaysGoodAndRevoked() throws Exception {
    TestKeys fixture = TestKeys.in(dir);
    List<String> cmd = new ArrayList<>(ForkedSeries.thisJvm());
    cmd.addAll(List.of("serve", "crl", "--port", "0", "--pki", fixture.pki.dir().toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
      ReadyLine ready = null;
      for (String l; ready == null && (l = lines.readLine()) != null; )
        ready = ReadyLine.parse(l).orElse(null);
      assertTrue(ready != null, "serve crl ended without its ready line");
      assertEquals("crl", ready.service());

      byte[] der;
      try (HttpClient http = HttpClient.newHttpClient()) {
        var reply =
            http.send(
                HttpRequest.newBuilder(URI.create(ready.url() + "/crl/intermediate-a.crl"))
                    .GET()
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, reply.statusCode());
        der = reply.body();
      }
      X509CRL crl =
          (X509CRL)
              CertificateFactory.getInstance("X.509").generateCRL(new ByteArrayInputStream(der));
      crl.verify(
          fixture
              .pki
              .certificate("intermediate-a")
              .getPublicKey()); // throws unless intermediate-a signed it
      assertTrue(
          crl.isRevoked(fixture.pki.certificate("signer-rsa2048-revoked")),
          "the revoked signer is listed");
      assertTrue(
          !crl.isRevoked(fixture.pki.certificate("signer-rsa2048-1")), "a good signer is not");

      assertTrue(
          ocsp(fixture, ready, "signer-rsa2048-1").contains(": good"),
          "openssl ocsp: good for signer-rsa2048-1");
      assertTrue(
          ocsp(fixture, ready, "signer-rsa2048-revoked").contains(": revoked"),
          "openssl ocsp: revoked for signer-rsa2048-revoked");
    } finally {
      p.destroy();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  static String ocsp(TestKeys fixture, ReadyLine ready, String alias) throws Exception {
    String answer =
        Openssl.run(
            "ocsp",
            "-issuer",
            fixture.pki.certificatePem("intermediate-a").toString(),
            "-cert",
            fixture.pki.certificatePem(alias).toString(),
            "-url",
            ready.url() + "/ocsp/intermediate-a",
            "-CAfile",
            fixture.pki.certificatePem("root-ca").toString());
    assertTrue(Openssl.succeeded(answer) && answer.contains("Response verify OK"), answer);
    return answer;
  }
}
