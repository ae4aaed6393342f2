package io.pkibench.server.pebble;

import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.pki.TestPki;
import io.pkibench.server.LoopbackPort;
import io.pkibench.server.ReferenceServer;
import io.pkibench.server.nginx.NginxPeer;
import io.pkibench.text.OutsideText;
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
 * identity), validation always passing (or, {@link Config#validates()}, fetching http-01 answers
 * for real from pkibench's listener) and never sleeping, and no nonce rejected at random (its
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

  /**
   * How Pebble passes a challenge: always ({@code http01Port} 0, for load), or by really fetching
   * the http-01 key authorization on 127.0.0.1:{@code http01Port} (pkibench's own listener, {@code
   * acme:order -p challenge=http-01}), every name resolved to 127.0.0.1 by pebble-challtestsrv's
   * DNS on {@code port + 2} (its management on {@code port + 3}, its own challenge listeners off).
   */
  public record Config(Path dir, int port, TestPki pki, Path pebble, int http01Port) {
    /** Always-valid validation, for load. */
    public Config(Path dir, int port, TestPki pki, Path pebble) {
      this(dir, port, pki, pebble, 0);
    }

    public boolean validates() {
      return http01Port != 0;
    }
  }

  /** Debian's DNS for Pebble's validation: every A query answered 127.0.0.1. */
  static final String CHALLTESTSRV = "pebble-challtestsrv";

  private final Config config;
  private Process process;
  private Process dns;

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

  /**
   * The flags of a Pebble that validates http-01 on {@code http01Port}: every problem, with the
   * fix.
   */
  public static List<String> problems(int port, int http01Port, Path pebble) {
    List<String> problems = problems(port);
    if (http01Port == 0) return problems;
    if (port > 65532)
      problems.add(
          "--port " + port + ": http-01 also takes --port + 2 and + 3; give 1024 to 65532");
    if (http01Port < 1 || http01Port > 65535 || http01Port >= port && http01Port <= port + 3)
      problems.add(
          "--http-port "
              + http01Port
              + ": give a free port (1 to 65535) other than --port to --port + 3, where pkibench's acme:order -p challenge=http-01 listens");
    if (pebble != null && !Files.isExecutable(pebble.resolveSibling(CHALLTESTSRV)))
      problems.add(
          "--challenge http-01: "
              + pebble.resolveSibling(CHALLTESTSRV)
              + " (the DNS that points Pebble's validation at 127.0.0.1) is not there: "
              + INSTALL);
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
        + (config.validates()
            ? "; http-01 validated for real on 127.0.0.1:"
                + config.http01Port()
                + " (acme:order -p challenge=http-01 -p http-port="
                + config.http01Port()
                + "), names resolved to 127.0.0.1 by pebble-challtestsrv on 127.0.0.1:"
                + (config.port() + 2)
            : "; validation always passes (PEBBLE_VA_ALWAYS_VALID)")
        + ", in memory only";
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
    List<String> command =
        new ArrayList<>(List.of(config.pebble().toString(), "-config", json.toString()));
    if (config.validates()) {
      startDns();
      command.addAll(List.of("-dnsserver", "127.0.0.1:" + (config.port() + 2)));
    }
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(config.dir().resolve("pebble.log").toFile()));
    pb.environment().putAll(LOAD_ENV);
    // validating for real: the one setting that makes Pebble fetch what the client serves
    if (config.validates()) pb.environment().remove("PEBBLE_VA_ALWAYS_VALID");
    process = pb.start();
    awaitDirectory();
  }

  /**
   * pebble-challtestsrv as Pebble's DNS only (A: 127.0.0.1 for every name; no AAAA, so Pebble dials
   * 127.0.0.1 alone), its own http-01, https-01 and tls-alpn-01 listeners off: the http-01 answer
   * is pkibench's. Ready once its management port (bound after the DNS) takes a connection, at most
   * 10 s.
   */
  private void startDns() throws Exception {
    int management = config.port() + 3;
    dns =
        new ProcessBuilder(
                config.pebble().resolveSibling(CHALLTESTSRV).toString(),
                "-dns01",
                "127.0.0.1:" + (config.port() + 2),
                "-http01",
                "",
                "-https01",
                "",
                "-tlsalpn01",
                "",
                "-defaultIPv6",
                "",
                "-management",
                "127.0.0.1:" + management)
            .redirectErrorStream(true)
            .redirectOutput(
                ProcessBuilder.Redirect.appendTo(config.dir().resolve("challtestsrv.log").toFile()))
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (true) {
      if (!dns.isAlive())
        throw new IOException(
            CHALLTESTSRV
                + " exited with "
                + dns.exitValue()
                + "; see "
                + config.dir().resolve("challtestsrv.log"));
      if (LoopbackPort.accepts(management)) return;
      if (System.nanoTime() > deadline) {
        close();
        throw new IOException(
            CHALLTESTSRV + " did not listen on 127.0.0.1:" + management + " within 10 s");
      }
      Thread.sleep(50);
    }
  }

  /**
   * Pebble's configuration: loopback only; {@code httpPort} is where its validation fetches http-01
   * answers (pkibench's listener; never dialled when validation always passes, but must be named),
   * its tls-alpn-01 port is never dialled.
   */
  private String configJson(Path chain, Path key) {
    return """
        {
          "pebble": {
            "listenAddress": "127.0.0.1:%d",
            "managementListenAddress": "127.0.0.1:%d",
            "certificate": "%s",
            "privateKey": "%s",
            "httpPort": %d,
            "tlsPort": 5001,
            "ocspResponderURL": "",
            "externalAccountBindingRequired": false
          }
        }
        """
        .formatted(
            config.port(),
            config.port() + 1,
            chain,
            key,
            config.validates() ? config.http01Port() : 5002);
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
                + " before listening ("
                + lastLines(config.dir().resolve("pebble.log"))
                + "); see "
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

  /**
   * The end of this start's log, for the error: why Pebble gave up (a port taken) without opening
   * the file. Escaped, since its text reaches the terminal.
   */
  private static String lastLines(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      List<String> last = lines.subList(Math.max(0, lines.size() - 2), lines.size());
      return OutsideText.forTerminal(String.join(" | ", last), 400);
    } catch (IOException | RuntimeException unreadable) {
      return "its log unreadable";
    }
  }

  @Override
  public void close() {
    stop(process);
    stop(dns);
  }

  private static void stop(Process p) {
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
