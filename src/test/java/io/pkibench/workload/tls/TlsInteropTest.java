package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.tls.Connection;
import io.pkibench.formats.tls.EchoProtocol;
import io.pkibench.formats.tls.TlsConnection;
import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.formats.tls.TlsServerKeys;
import io.pkibench.server.tlsecho.TlsEchoServer;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.OpensslServer;
import io.pkibench.testing.TestKeys;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every configuration the ssl study can measure, against OpenSSL's own command line in both
 * directions: {@code openssl s_client} gets its request echoed by our server, and our client
 * completes a handshake with {@code openssl s_server}, each side checking the suite and version the
 * other negotiated.
 */
@org.junit.jupiter.api.Timeout(
    value = 5,
    unit =
        java.util.concurrent.TimeUnit
            .MINUTES) // talks to openssl s_server/s_client: a hang fails, said as one
class TlsInteropTest {
  /** A configuration: engine, version, IANA suite, OpenSSL's name for it, server key. */
  record Claim(TlsEngine engine, String protocol, String suite, String opensslName, String key) {
    String[] opensslFlags() {
      String version =
          switch (protocol) {
            case "TLSv1" -> "-tls1";
            case "TLSv1.2" -> "-tls1_2";
            default -> "-tls1_3";
          };
      // Debian's OpenSSL refuses TLS 1.0 and RSA-1024 at its default security level: level 0 for
      // the original's configuration only.
      if (protocol.equals("TLSv1.3")) return new String[] {version, "-ciphersuites", opensslName};
      return new String[] {
        version, "-cipher", opensslName + (protocol.equals("TLSv1") ? "@SECLEVEL=0" : "")
      };
    }
  }

  static final List<Claim> CLAIMS = claims();

  static List<Claim> claims() {
    List<Claim> list = new ArrayList<>();
    for (TlsEngine e : TlsEngine.values()) {
      list.add(
          new Claim(
              e,
              "TLSv1.2",
              "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
              "ECDHE-RSA-CHACHA20-POLY1305",
              "rsa2048"));
      list.add(
          new Claim(
              e,
              "TLSv1.2",
              "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
              "ECDHE-RSA-AES128-GCM-SHA256",
              "rsa2048"));
      list.add(
          new Claim(
              e,
              "TLSv1.2",
              "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
              "ECDHE-RSA-AES256-GCM-SHA384",
              "rsa2048"));
      list.add(
          new Claim(e, "TLSv1.3", "TLS_AES_128_GCM_SHA256", "TLS_AES_128_GCM_SHA256", "rsa2048"));
      list.add(
          new Claim(
              e,
              "TLSv1.2",
              "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
              "ECDHE-ECDSA-AES128-GCM-SHA256",
              "ecdsa-p256"));
    }
    // JSSE lets a TLS 1.3 suite be chosen; BoringSSL does not (the study falls back to ChaCha20 in
    // TLS 1.2 there).
    list.add(
        new Claim(
            TlsEngine.JSSE,
            "TLSv1.3",
            "TLS_CHACHA20_POLY1305_SHA256",
            "TLS_CHACHA20_POLY1305_SHA256",
            "rsa2048"));
    // The original's configuration, which BoringSSL still speaks.
    list.add(
        new Claim(
            TlsEngine.OPENSSL, "TLSv1", "TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA", "rsa1024"));
    list.add(
        new Claim(
            TlsEngine.OPENSSL, "TLSv1", "TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA", "rsa1024"));
    return list;
  }

  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  @Test
  void opensslClient_againstOurServer_echoedWithTheClaimedSuite() throws Exception {
    byte[] payload = "hello-interop-1234".getBytes(StandardCharsets.US_ASCII);
    Path frames = dir.resolve("frames.bin");
    // The request, then a frame of an unknown kind: the server closes, so s_client ends once it has
    // the answer.
    Files.write(
        frames,
        ByteBuffer.allocate(2 * EchoProtocol.HEADER_BYTES + payload.length)
            .put(EchoProtocol.header(EchoProtocol.REQUEST, payload.length, payload.length))
            .put(payload)
            .put(EchoProtocol.header((byte) 'X', 0, 0))
            .array());
    for (Claim claim : CLAIMS) {
      var identity = TlsServerKeys.of(fixture.pki, claim.key());
      var context =
          claim
              .engine()
              .server(
                  identity.privateKey(),
                  identity.chain(),
                  List.of(claim.protocol()),
                  List.of(claim.suite()));
      try (TlsEchoServer server =
          new TlsEchoServer(
              context, claim.engine().flag, "127.0.0.1", 0, -1, TlsEchoServer.Limits.DEFAULT)) {
        server.start();
        URI url = URI.create(server.baseUrl());
        List<String> cmd =
            new ArrayList<>(
                List.of(
                    "openssl",
                    "s_client",
                    "-connect",
                    "127.0.0.1:" + url.getPort(),
                    "-CAfile",
                    fixture.pki.dir().resolve("root-ca.pem").toString(),
                    "-verify_return_error",
                    "-brief",
                    "-nocommands",
                    "-ign_eof"));
        cmd.addAll(List.of(claim.opensslFlags()));
        Process p = new ProcessBuilder(cmd).redirectInput(frames.toFile()).start();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Thread drain =
            Thread.ofVirtual()
                .start(
                    () -> {
                      try {
                        p.getErrorStream().transferTo(err);
                      } catch (java.io.IOException ignored) {
                        // the process is gone
                      }
                    });
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), claim + ": s_client did not end");
        drain.join();
        String said = err.toString(StandardCharsets.US_ASCII);
        assertEquals(0, p.exitValue(), claim + ": " + said);
        assertTrue(
            said.contains("Protocol version: " + claim.protocol())
                && said.contains("Ciphersuite: " + claim.opensslName())
                && said.contains("Verification: OK"),
            claim + ": " + said);
        assertEquals("hello-interop-1234", out, claim + ": the echo");
      }
    }
  }

  @Test
  void ourClient_againstOpensslServer_negotiatesTheClaimedSuite() throws Exception {
    for (Claim claim : CLAIMS) {
      String alias = TlsServerKeys.ALIASES.get(claim.key());
      Path key = dir.resolve(alias + ".key.pem");
      if (!Files.exists(key)) {
        String r =
            Openssl.run(
                "pkcs12",
                "-in",
                fixture.pki.keystore(alias).toString(),
                "-nocerts",
                "-nodes",
                "-passin",
                "file:" + fixture.pki.dir().resolve("keystore.pass"),
                "-out",
                key.toString());
        assertTrue(Openssl.succeeded(r), r);
      }
      List<String> cmd =
          new ArrayList<>(
              List.of(
                  "openssl",
                  "s_server",
                  "-accept",
                  "127.0.0.1:0", // the port it binds, read back from its ACCEPT line
                  "-naccept",
                  "1",
                  "-cert",
                  fixture.pki.certificatePem(alias).toString(),
                  "-key",
                  key.toString(),
                  "-cert_chain",
                  fixture.pki.certificatePem("intermediate-a").toString()));
      cmd.addAll(List.of(claim.opensslFlags()));
      // its stdin stays open: s_server ends on its EOF, or when closed
      try (OpensslServer server = OpensslServer.launch(cmd)) {
        var context =
            claim
                .engine()
                .client(
                    fixture.pki.certificate("root-ca"),
                    List.of(claim.protocol()),
                    List.of(claim.suite()));
        try (TlsConnection done =
            TlsConnection.handshake(
                Connection.connect(new InetSocketAddress("127.0.0.1", server.port), 5000),
                TlsEngine.engine(context))) {
          assertEquals(claim.protocol(), done.protocol(), claim.toString());
          assertEquals(claim.suite(), done.cipherSuite(), claim.toString());
        }
      }
    }
  }

  /**
   * The tls-handshake workload's server side (its SSLContext, a client certificate required) over a
   * real socket accepts {@code openssl s_client} presenting the test PKI's tls-client certificate,
   * TLS 1.2 and 1.3.
   */
  @Test
  void handshakeServer_acceptsOpensslClientWithACertificate() throws Exception {
    Path clientKey = dir.resolve("tls-client.key.pem");
    if (!Files.exists(clientKey)) {
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
              clientKey.toString());
      assertTrue(Openssl.succeeded(r), r);
    }
    var context = HandshakeWorkload.serverContext(fixture.pki, false);
    for (String protocol : List.of("TLSv1.2", "TLSv1.3")) {
      try (ServerSocket listener =
          new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
        Process client =
            new ProcessBuilder(
                    "openssl",
                    "s_client",
                    "-connect",
                    "127.0.0.1:" + listener.getLocalPort(),
                    "-cert",
                    fixture.pki.certificatePem("tls-client").toString(),
                    "-key",
                    clientKey.toString(),
                    "-cert_chain",
                    fixture.pki.certificatePem("intermediate-b").toString(),
                    "-CAfile",
                    fixture.pki.caChainPem().toString(),
                    protocol.equals("TLSv1.2") ? "-tls1_2" : "-tls1_3")
                .redirectErrorStream(true)
                .start();
        try {
          listener.setSoTimeout(10_000);
          try (var socket = listener.accept()) {
            socket.setSoTimeout(10_000);
            var engine = context.createSSLEngine();
            engine.setUseClientMode(false);
            engine.setNeedClientAuth(true);
            engine.setEnabledProtocols(new String[] {protocol});
            try (TlsConnection c = TlsConnection.accept(socket, engine)) {
              assertEquals(protocol, c.protocol());
              assertTrue(
                  c.peerCertificates().length > 0
                      && c.peerCertificates()[0].equals(fixture.pki.certificate("tls-client")),
                  protocol + ": the server saw the client's certificate");
            }
          }
        } finally {
          client.getOutputStream().close();
          String said = new String(client.getInputStream().readAllBytes());
          client.waitFor(10, TimeUnit.SECONDS);
          assertTrue(said.contains("Verify return code: 0 (ok)"), protocol + ": " + said);
        }
      }
    }
  }
}
