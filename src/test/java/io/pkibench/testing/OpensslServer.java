package io.pkibench.testing;

import io.pkibench.pki.TestPki;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code openssl s_server} on a loopback port with the test PKI's TLS server certificate, its
 * output kept (what it printed about each client: the certificate it was shown, a reused session),
 * stopped on close.
 */
public final class OpensslServer implements AutoCloseable {
  private final Process process;
  private final StringBuffer output;
  public final int port;

  private OpensslServer(Process process, StringBuffer output, int port) {
    this.process = process;
    this.output = output;
    this.port = port;
  }

  /** Keeps what {@code process} prints in {@code output}, on a daemon thread. */
  private static void drain(Process process, StringBuffer output) {
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
    // Port 0: s_server binds a port the kernel picks and says it ("ACCEPT 127.0.0.1:PORT"), which
    // is read back; a port probed free and then handed over could be taken in between.
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "openssl",
                "s_server",
                "-accept",
                "127.0.0.1:0",
                "-cert",
                pki.certificatePem("tls-server").toString(),
                "-key",
                serverKeyPem(pki, dir).toString(),
                "-cert_chain",
                pki.caChainPem().toString()));
    cmd.addAll(List.of(extra));
    return launch(cmd);
  }

  /**
   * Runs {@code command}, an {@code openssl s_server} told {@code -accept 127.0.0.1:0}, and waits
   * until it says the port it listens on.
   */
  public static OpensslServer launch(List<String> command) throws Exception {
    if (!command.contains("127.0.0.1:0"))
      throw new IllegalArgumentException("tell s_server -accept 127.0.0.1:0: " + command);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    StringBuffer output = new StringBuffer();
    drain(p, output);
    Await.until(
        Duration.ofSeconds(60),
        "openssl s_server to accept",
        () -> ACCEPT.matcher(output).find() || !p.isAlive());
    Matcher accept = ACCEPT.matcher(output);
    if (!p.isAlive() || !accept.find())
      throw new IllegalStateException("openssl s_server did not start: " + output);
    return new OpensslServer(p, output, Integer.parseInt(accept.group(1)));
  }

  /** s_server's line once it listens, with the port it bound. */
  static final Pattern ACCEPT = Pattern.compile("ACCEPT 127\\.0\\.0\\.1:(\\d+)\\s");

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
