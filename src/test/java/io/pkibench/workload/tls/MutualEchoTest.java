package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.tls.EchoProtocol;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.remote.NodeAddress;
import io.pkibench.keys.remote.RemoteKeySource;
import io.pkibench.server.keyserver.KeyGrants;
import io.pkibench.server.keyserver.KeyServer;
import io.pkibench.server.keyserver.KeyService;
import io.pkibench.server.tlsecho.TlsEchoServer;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve tlsecho --client-auth need}: openssl s_client with the test PKI's client certificate
 * gets its echo and without one is refused; our tls-rr with the client's key on a key-server node
 * passes on both engines (the server counts the certificate), and without an identity every
 * transaction is counted failed.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = TimeUnit.MINUTES)
class MutualEchoTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  static TlsEchoServer mutualEcho(String engine) throws Exception {
    var config =
        new TlsEchoServer.Config(
            "127.0.0.1",
            0,
            -1,
            engine,
            "rsa2048",
            List.of(),
            List.of(),
            TlsEchoServer.Limits.DEFAULT,
            "need",
            List.of());
    assertEquals(List.of(), config.problems());
    TlsEchoServer server = TlsEchoServer.open(config, fixture.pki, line -> {});
    server.start();
    return server;
  }

  /**
   * s_client sends one request frame then an unknown kind (the server closes); returns exit code,
   * then what it printed, then the echo.
   */
  static List<String> sClient(int port, boolean withCertificate, String protocolFlag)
      throws Exception {
    byte[] payload = "mutual-hello-42".getBytes(StandardCharsets.US_ASCII);
    Path frames = dir.resolve("frames.bin");
    Files.write(
        frames,
        ByteBuffer.allocate(2 * EchoProtocol.HEADER_BYTES + payload.length)
            .put(EchoProtocol.header(EchoProtocol.REQUEST, payload.length, payload.length))
            .put(payload)
            .put(EchoProtocol.header((byte) 'X', 0, 0))
            .array());
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "openssl",
                "s_client",
                "-connect",
                "127.0.0.1:" + port,
                "-CAfile",
                fixture.pki.dir().resolve("root-ca.pem").toString(),
                "-verify_return_error",
                "-brief",
                "-nocommands",
                "-ign_eof",
                protocolFlag));
    if (withCertificate) {
      Path key = dir.resolve("tls-client.key");
      if (!Files.exists(key)) {
        String r =
            Openssl.run(
                "pkcs12",
                "-in",
                fixture.pki.keystore("tls-client").toString(),
                "-nocerts",
                "-nodes",
                "-passin",
                "file:" + fixture.pki.dir().resolve("keystore.pass"),
                "-out",
                key.toString());
        assertTrue(Openssl.succeeded(r), r);
      }
      cmd.addAll(
          List.of(
              "-cert",
              fixture.pki.certificatePem("tls-client").toString(),
              "-key",
              key.toString(),
              "-cert_chain",
              fixture.pki.caChainPem().toString()));
    }
    Process p = new ProcessBuilder(cmd).redirectInput(frames.toFile()).start();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Thread drain =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    p.getErrorStream().transferTo(err);
                  } catch (java.io.IOException ignored) {
                    // ended
                  }
                });
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    assertTrue(p.waitFor(20, TimeUnit.SECONDS), "s_client did not end");
    drain.join();
    return List.of(Integer.toString(p.exitValue()), err.toString(StandardCharsets.US_ASCII), out);
  }

  static long counter(TlsEchoServer server, String name) {
    String json = server.counters().json();
    var m = java.util.regex.Pattern.compile("\"" + name + "\":(\\d+)").matcher(json);
    assertTrue(m.find(), json);
    return Long.parseLong(m.group(1));
  }

  @Test
  void opensslClient_withAndWithoutItsCertificate_echoedOrRefused() throws Exception {
    for (String engine : List.of("jsse", "openssl")) {
      try (TlsEchoServer server = mutualEcho(engine)) {
        int port = URI.create(server.baseUrl()).getPort();
        // BoringSSL's tlsecho with no --protocols speaks TLS 1.2 only (its default suite list has
        // no TLS 1.3 suite)
        String protocol = engine.equals("jsse") ? "-tls1_3" : "-tls1_2";
        List<String> with = sClient(port, true, protocol);
        assertEquals(
            "mutual-hello-42",
            with.get(2),
            engine + ": the echo with a certificate; s_client said " + with.get(1));
        assertEquals(
            1,
            counter(server, "clientCertificates"),
            engine + ": the server saw the client's certificate");
        List<String> without = sClient(port, false, protocol);
        assertEquals(
            "",
            without.get(2),
            engine + ": no echo without a certificate; s_client said " + without.get(1));
        assertTrue(
            without.get(1).toLowerCase(java.util.Locale.ROOT).contains("alert"),
            engine + ": refused with an alert: " + without.get(1));
        assertEquals(
            1, counter(server, "clientCertificates"), engine + ": no other certificate seen");
      }
    }
  }

  @Test
  void tlsRr_withTheKeyOnAKeyServer_passesOnBothEngines_andWithoutAnIdentityEveryTransactionFails()
      throws Exception {
    var keys = new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK);
    var service =
        new KeyService(
            keys,
            keys.aliases(),
            KeyGrants.everyKeyFor(fixture.pki.certificate("tls-client")),
            line -> {});
    try (var node =
        new KeyServer(
            service,
            keys.key("keyserver"),
            fixture.pki.certificate("root-ca"),
            "127.0.0.1",
            0,
            KeyServer.Limits.defaults())) {
      node.start();
      try (var remote =
          new RemoteKeySource(
              List.of(new NodeAddress("127.0.0.1", node.port(), 1)),
              keys.key("tls-client"),
              fixture.pki.certificate("root-ca"),
              InstantSource.system(),
              line -> {})) {
        WorkloadContext context = new WorkloadContext(remote, false, () -> fixture.pki);
        var acrr = new TlsWorkload.Factory(TlsWorkload.Kind.ACRR);
        for (String engine : List.of("jsse", "openssl")) {
          try (TlsEchoServer server = mutualEcho(engine)) {
            for (String clientEngine : List.of("jsse", "openssl")) {
              long signed = node.counts().served();
              try (Workload w =
                  acrr.create(
                      context,
                      Params.resolve(
                          "tls-acrr",
                          acrr.params(),
                          Map.of(
                              "target",
                              server.baseUrl(),
                              "engine",
                              clientEngine,
                              "client",
                              "tls-client",
                              "response",
                              "1k")))) {
                MeasuredRun run =
                    MeasuredRun.of(
                            "tls-acrr " + clientEngine + " → " + engine, w, Duration.ofMillis(500))
                        .assertEverySucceeded();
                assertTrue(
                    node.counts().served() - signed >= run.succeeded(),
                    "a signature on the node per new connection: " + node.counts());
              }
            }
            assertNotEquals(0, counter(server, "clientCertificates"));
            try (Workload w =
                acrr.create(
                    context,
                    Params.resolve(
                        "tls-acrr", acrr.params(), Map.of("target", server.baseUrl())))) {
              MeasuredRun run =
                  MeasuredRun.of("tls-acrr without identity → " + engine, w, Duration.ofSeconds(1));
              assertTrue(run.started() > 1 && run.failed() == run.started(), run.toString());
            }
          }
        }
      }
    }
  }
}
