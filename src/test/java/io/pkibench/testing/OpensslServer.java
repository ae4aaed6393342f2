package io.pkibench.testing;

import io.pkibench.pki.TestPki;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code openssl s_server} on a loopback port with the test PKI's TLS server certificate, its
 * output kept (what it printed about each client: the certificate it was shown, a reused session),
 * stopped on close.
 */
public final class OpensslServer implements AutoCloseable {
  private final Process process;
  private final StringBuffer output = new StringBuffer();
  public final int port;

  private OpensslServer(Process process, int port) {
    this.process = process;
    this.port = port;
    Thread drain =
        new Thread(
            () -> {
              byte[] buf = new byte[4096];
              try (var in = process.getInputStream()) {
                for (int n = in.read(buf); n >= 0; n = in.read(buf))
                  output.append(new String(buf, 0, n, StandardCharsets.UTF_8));
              } catch (IOException ended) {
                // the server stopped
              }
            },
            "openssl-s_server-output");
    drain.setDaemon(true);
    drain.start();
  }

  /**
   * The test PKI's {@code tls-server} key, exported to PEM in {@code dir} (its password read from
   * the PKI's file, never a flag value).
   */
  public static Path serverKeyPem(TestKeys fixture, Path dir) throws Exception {
    return serverKeyPem(fixture.pki, dir);
  }

  public static Path serverKeyPem(TestPki pki, Path dir) throws Exception {
    Path key = dir.resolve("tls-server.key");
    String r =
        Openssl.run(
            "pkcs12",
            "-in",
            pki.keystore("tls-server").toString(),
            "-nocerts",
            "-nodes",
            "-passin",
            "file:" + pki.dir().resolve("keystore.pass"),
            "-out",
            key.toString());
    if (!Openssl.succeeded(r))
      throw new IllegalStateException("cannot export the server key: " + r);
    return key;
  }

  /**
   * Starts {@code openssl s_server} with {@code extra} flags (e.g. -Verify 1 -CAfile ca-chain.pem)
   * and waits until it accepts.
   */
  public static OpensslServer start(TestKeys fixture, Path dir, String... extra) throws Exception {
    return start(fixture.pki, dir, extra);
  }

  public static OpensslServer start(TestPki pki, Path dir, String... extra) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "openssl",
                "s_server",
                "-accept",
                "127.0.0.1:" + port,
                "-cert",
                pki.certificatePem("tls-server").toString(),
                "-key",
                serverKeyPem(pki, dir).toString(),
                "-cert_chain",
                pki.caChainPem().toString()));
    cmd.addAll(List.of(extra));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    OpensslServer server = new OpensslServer(p, port);
    Await.until(
        java.time.Duration.ofSeconds(20),
        "openssl s_server to accept",
        () -> server.output().contains("ACCEPT") || !p.isAlive());
    if (!p.isAlive())
      throw new IllegalStateException("openssl s_server did not start: " + server.output());
    return server;
  }

  public String output() {
    return output.toString();
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(5, TimeUnit.SECONDS))
      process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
  }
}
