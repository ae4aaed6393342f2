package io.pkibench.server.pebble;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.TestPki;
import io.pkibench.server.ReferenceServer;
import io.pkibench.server.nginx.NginxPeer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Let's Encrypt's Pebble (Debian's {@code pebble}) on loopback, as {@code pkibench serve pebble}
 * and {@code study ca} run it: a configuration written here (ACME on {@code port}, its management
 * interface on {@code port + 1}, both 127.0.0.1 only, TLS with the test PKI's {@code tls-server}
 * identity), validation always passing and never sleeping, and no nonce rejected at random (its
 * defaults for testing clients, which would measure the retries, not the CA). Pebble keeps
 * everything in memory and makes a new root on each start: its root is read from {@link
 * #issuerRootUrl()}.
 */
public final class PebbleServer implements ReferenceServer {
  public static final String ENV = "PKIBENCH_PEBBLE";
  static final Path DEBIAN_PEBBLE = Path.of("/usr/bin/pebble");
  static final String INSTALL = "apt-get install -y pebble (./test installs it, as root)";

  /** What Pebble's load settings are: validation passes at once, no nonce refused at random. */
  public static final Map<String, String> LOAD_ENV =
      Map.of(
          "PEBBLE_VA_ALWAYS_VALID", "1",
          "PEBBLE_VA_NOSLEEP", "1",
          "PEBBLE_WFE_NONCEREJECT", "0");

  public record Config(Path dir, int port, TestPki pki, Path pebble) {}

  private final Config config;
  private Process process;

  public PebbleServer(Config config) {
    this.config = config;
  }

  /** The {@code pebble} to run: {@code $PKIBENCH_PEBBLE}, else Debian's; empty when neither is. */
  public static Optional<Path> find(Map<String, String> env) {
    String given = env.get(ENV);
    Path p = given == null || given.isBlank() ? DEBIAN_PEBBLE : Path.of(given);
    return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
  }

  /** The {@code pebble} to run; throws saying where it was looked for and how to install it. */
  public static Path require(Map<String, String> env) {
    return find(env)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "Pebble was not found ("
                        + (env.containsKey(ENV)
                            ? "$" + ENV + "=" + env.get(ENV) + " is not an executable file"
                            : "not $" + ENV + ", not at " + DEBIAN_PEBBLE)
                        + "): "
                        + INSTALL));
  }

  /** Debian's package version, e.g. {@code 2.4.0+ds1-2+b4}; "" when dpkg does not know it. */
  public static String version() {
    try {
      Process p =
          new ProcessBuilder("dpkg-query", "-W", "-f=${Version}", "pebble")
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes()).strip();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? out : "";
    } catch (IOException | InterruptedException e) {
      return "";
    }
  }

  public static List<String> problems(int port) {
    List<String> problems = new ArrayList<>();
    if (port < 1024 || port > 65534) problems.add("--port " + port + ": give 1024 to 65534");
    return problems;
  }

  /** The ACME directory. */
  public String directoryUrl() {
    return directoryUrl(config.port());
  }

  /** The ACME directory of a Pebble run so on {@code port}. */
  public static String directoryUrl(int port) {
    return "https://127.0.0.1:" + port + "/dir";
  }

  /** Where Pebble's management interface gives its current root (PEM): issuers' trust. */
  public String issuerRootUrl() {
    return issuerRootUrl(config.port());
  }

  public static String issuerRootUrl(int port) {
    return "https://127.0.0.1:" + (port + 1) + "/roots/0";
  }

  @Override
  public String baseUrl() {
    return "https://127.0.0.1:" + config.port();
  }

  @Override
  public String details() {
    return "ACME directory "
        + directoryUrl()
        + "; its root at "
        + issuerRootUrl()
        + "; validation always passes (PEBBLE_VA_ALWAYS_VALID), in memory only";
  }

  @Override
  public long pid() {
    return process == null ? ProcessHandle.current().pid() : process.pid();
  }

  @Override
  public void start() throws Exception {
    Files.createDirectories(config.dir());
    Path chain = config.dir().resolve("tls-chain.pem");
    Path key = config.dir().resolve("tls-key.pem");
    TestPki pki = config.pki();
    NginxPeer.writeIdentity(
        new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key("tls-server"), chain, key);
    Path json = config.dir().resolve("pebble-config.json");
    Files.writeString(json, configJson(chain, key));
    ProcessBuilder pb =
        new ProcessBuilder(config.pebble().toString(), "-config", json.toString())
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(config.dir().resolve("pebble.log").toFile()));
    pb.environment().putAll(LOAD_ENV);
    process = pb.start();
    awaitDirectory();
  }

  /**
   * Pebble's configuration: loopback only; its own http-01/tls-alpn-01 validation ports are never
   * dialled (validation always passes), but must be named.
   */
  private String configJson(Path chain, Path key) {
    return """
        {
          "pebble": {
            "listenAddress": "127.0.0.1:%d",
            "managementListenAddress": "127.0.0.1:%d",
            "certificate": "%s",
            "privateKey": "%s",
            "httpPort": 5002,
            "tlsPort": 5001,
            "ocspResponderURL": "",
            "externalAccountBindingRequired": false
          }
        }
        """
        .formatted(config.port(), config.port() + 1, chain, key);
  }

  /** Until the directory answers 200, at most 30 s; a Pebble that exits is said at once. */
  private void awaitDirectory() throws Exception {
    HttpClient client =
        HttpClient.newBuilder()
            .sslContext(TlsContexts.trusting(config.pki().certificate("root-ca")))
            .connectTimeout(Duration.ofSeconds(2))
            .build();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String last = "";
    while (System.nanoTime() < deadline) {
      if (!process.isAlive())
        throw new IOException(
            "pebble exited with "
                + process.exitValue()
                + " before listening; see "
                + config.dir().resolve("pebble.log"));
      try {
        HttpResponse<Void> r =
            client.send(
                HttpRequest.newBuilder(URI.create(directoryUrl()))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() == 200) return;
        last = "HTTP " + r.statusCode();
      } catch (IOException e) {
        last = e.getMessage();
      }
      Thread.sleep(100);
    }
    close();
    throw new IOException(
        "pebble did not answer at " + directoryUrl() + " within 30 s (" + last + ")");
  }

  @Override
  public void close() {
    Process p = process;
    if (p == null) return;
    p.destroy();
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS)) p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }
}
