package io.pkibench.server.keyserver;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.OpensslRenegotiation;
import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * testssl.sh's renegotiation check on a key-server node, as on the signing service and the PEC
 * provider: the node's TLS is gRPC's own BoringSSL, which never renegotiates as a server; this
 * holds it to that, should gRPC fall back to the JDK's engine (which renegotiates whenever asked).
 */
@org.junit.jupiter.api.Timeout(
    value = 2,
    unit = java.util.concurrent.TimeUnit.MINUTES) // talks to openssl: a hang fails, said as one
class KeyServerRenegotiationTest {
  @TempDir static Path dir;

  @Test
  void renegotiation_clientInitiatedOverTls12_refusedWithAnAlert() throws Exception {
    TestKeys fixture = TestKeys.in(dir);
    var service =
        new KeyService(
            fixture.keys,
            fixture.keys.aliases(),
            KeyGrants.everyKeyFor(fixture.pki.certificate("tls-client")),
            line -> {});
    var identity = new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK).key("keyserver");
    KeyServer server =
        new KeyServer(
            service,
            identity,
            fixture.pki.certificate("root-ca"),
            "127.0.0.1",
            0,
            KeyServer.Limits.defaults());
    server.start();
    try {
      Path key = dir.resolve("tls-client.key.pem");
      String exported =
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
      assertTrue(Openssl.succeeded(exported), exported);
      // mutual TLS, as the node requires: the test PKI's tls-client with its chain; h2, as gRPC
      // requires
      OpensslRenegotiation.Attempt attempt =
          OpensslRenegotiation.attempt(
              server.port(),
              true, // the node's HTTP/2 SETTINGS follow the handshake at once
              "-cert",
              fixture.pki.certificatePem("tls-client").toString(),
              "-key",
              key.toString(),
              "-cert_chain",
              fixture.pki.caChainPem().toString(),
              "-alpn",
              "h2");
      assertTrue(
          attempt.refused(), "s_client renegotiated, or never connected: " + attempt.output());
      assertTrue(
          attempt.afterRenegotiating().contains("alert no renegotiation"),
          attempt.afterRenegotiating());
    } finally {
      server.close();
    }
  }
}
