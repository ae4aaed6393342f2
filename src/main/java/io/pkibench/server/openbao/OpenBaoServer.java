package io.pkibench.server.openbao;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.openbao.OpenBaoClient;
import io.pkibench.openbao.OpenBaoException;
import io.pkibench.openbao.Transit;
import io.pkibench.pki.Entity;
import io.pkibench.pki.KeyAlgorithm;
import io.pkibench.pki.Role;
import io.pkibench.pki.Secret;
import io.pkibench.pki.TestPki;
import io.pkibench.server.ReferenceServer;
import io.pkibench.server.nginx.NginxPeer;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;

/**
 * A real OpenBao on loopback, as {@code pkibench serve openbao} runs it: {@code nodes} bao servers
 * with integrated storage (Raft; one node is a cluster of one), TLS with the test PKI's {@code
 * tls-server} identity, initialised with one key share and unsealed, then a {@code transit} mount
 * holding the test PKI's RSA, ECDSA and Ed25519 signer keys and its TLS client's (imported, each
 * with its certificate chain set, so {@code --keys openbao:…} signs with the very keys {@code
 * --keys software} does) and an exportable {@code pkibench-aes} key, and a {@code pki} mount whose
 * CA is the test PKI's {@code intermediate-a}, with a role per key type. The root token and the
 * unseal key go to owner-only files in {@code dir}; neither is printed.
 */
public final class OpenBaoServer implements ReferenceServer {
  /** The exportable AES-256-GCM key of the encrypt, decrypt and HMAC workloads. */
  public static final String AES_KEY = "pkibench-aes";

  /** The pki mount's CA: an intermediate of the test PKI. */
  public static final String PKI_CA = "intermediate-a";

  /** pki roles by name: key type and bits. */
  public static final Map<String, List<String>> ROLES =
      Map.of(
          "rsa2048", List.of("rsa", "2048"),
          "ecdsa-p256", List.of("ec", "256"),
          "ed25519", List.of("ed25519", "0"));

  private static final Set<KeyAlgorithm> TRANSIT_TYPES =
      Set.of(
          KeyAlgorithm.RSA2048,
          KeyAlgorithm.RSA3072,
          KeyAlgorithm.ECDSA_P256,
          KeyAlgorithm.ED25519);

  /**
   * {@code port}: node i's API listens on port + 2i, its cluster (Raft) port on port + 2i + 1.
   * {@code restartAfter}: a node that dies once the cluster is up is started again (and unsealed)
   * this long after, as a supervisor would; null or zero leaves it down.
   */
  public record Config(
      Path dir, int nodes, int port, TestPki pki, Path bao, Duration restartAfter) {
    /** A cluster whose dead nodes stay down. */
    public Config(Path dir, int nodes, int port, TestPki pki, Path bao) {
      this(dir, nodes, port, pki, bao, null);
    }

    boolean supervised() {
      return restartAfter != null && !restartAfter.isZero() && !restartAfter.isNegative();
    }
  }

  private final Config config;
  private final Process[] processes;
  private final List<URI> urls = new ArrayList<>();
  private SSLContext tls;

  /** Set by {@link #close()}: a node stopped then is not started again. */
  private volatile boolean closing;

  /** Set once the cluster is up: only then does a dead node get started again. */
  private volatile boolean started;

  private volatile Consumer<String> events = line -> {};

  public OpenBaoServer(Config config) {
    this.config = config;
    this.processes = new Process[config.nodes()];
    for (int i = 0; i < config.nodes(); i++)
      urls.add(URI.create("https://127.0.0.1:" + apiPort(i)));
  }

  /** Problems of the configuration, each naming its flag: found before anything starts. */
  public static List<String> problems(int nodes, int port, Path dir) {
    List<String> problems = new ArrayList<>();
    if (nodes < 1 || nodes > 7) problems.add("--nodes " + nodes + ": give 1 to 7");
    if (port < 1024 || port + 2 * nodes > 65535)
      problems.add("--port " + port + ": give 1024 to " + (65535 - 2 * nodes));
    if (dir != null && Files.isDirectory(dir)) {
      try (var entries = Files.list(dir)) {
        if (entries.findAny().isPresent())
          problems.add(
              "--dir "
                  + dir
                  + ": not empty (a previous OpenBao's storage and token); give an empty or new directory");
      } catch (IOException e) {
        problems.add("--dir " + dir + ": cannot list it (" + e.getMessage() + ")");
      }
    }
    return problems;
  }

  private int apiPort(int i) {
    return config.port() + 2 * i;
  }

  public List<URI> urls() {
    return List.copyOf(urls);
  }

  /** The owner-only file holding the root token. */
  public Path tokenFile() {
    return config.dir().resolve("root-token");
  }

  private Path unsealKeyFile() {
    return config.dir().resolve("unseal-key");
  }

  public Path caFile() {
    return config.dir().resolve("tls").resolve("ca.pem");
  }

  @Override
  public String baseUrl() {
    return urls.get(0).toString();
  }

  @Override
  public String details() {
    return (config.nodes() > 1 ? "Raft cluster of " + config.nodes() + " nodes " + urls + "; " : "")
        + "mounts transit and pki; root token in "
        + tokenFile()
        + " (owner only)";
  }

  @Override
  public long pid() {
    return processes[0] == null ? ProcessHandle.current().pid() : processes[0].pid();
  }

  public long pid(int node) {
    return processes[node].pid();
  }

  @Override
  public void start() throws Exception {
    Files.createDirectories(config.dir());
    Path tlsDir = config.dir().resolve("tls");
    Files.createDirectories(tlsDir);
    TestPki pki = config.pki();
    SoftwareKeySource software = new SoftwareKeySource(() -> pki, ProviderChoice.JDK);
    NginxPeer.writeIdentity(
        software.key("tls-server"), tlsDir.resolve("chain.pem"), tlsDir.resolve("key.pem"));
    Files.writeString(caFile(), TestPki.pem(List.of(pki.certificate("root-ca"))));
    tls = TlsContexts.trusting(pki.certificate("root-ca"));
    for (int i = 0; i < config.nodes(); i++) {
      Path node = config.dir().resolve("node-" + i);
      Files.createDirectories(node.resolve("data"));
      Files.writeString(node.resolve("bao.hcl"), hcl(i, node, tlsDir));
      startNode(i);
    }
    // sys/init bootstraps raft and writes the keyring with fsyncs: seconds on a quiet machine, more
    // than ten on a loaded one (a CI run timed out there)
    try (OpenBaoClient open = new OpenBaoClient(urls, null, tls, Duration.ofSeconds(90))) {
      awaitHealth(open, 0, Set.of(501), Duration.ofSeconds(30));
      Map<String, Object> init = new LinkedHashMap<>();
      init.put("secret_shares", 1);
      init.put("secret_threshold", 1);
      JsonNode keys = open.postTo(0, "sys/init", init);
      writeOwnerOnly(unsealKeyFile(), keys.path("keys_base64").path(0).asText());
      writeOwnerOnly(tokenFile(), keys.path("root_token").asText());
      unseal(open, 0);
      awaitHealth(open, 0, Set.of(200), Duration.ofSeconds(60));
    }
    Secret token = Secret.fromFile(tokenFile());
    try (OpenBaoClient root = new OpenBaoClient(urls, token, tls, Duration.ofSeconds(30))) {
      if (config.nodes() > 1) {
        // autopilot keeps a joined node a non-voter until it has been stable this long (10 s by
        // default): a leader killed before then leaves no quorum to elect another
        root.postTo(
            0,
            "sys/storage/raft/autopilot/configuration",
            Map.of("server_stabilization_time", "2s"));
        for (int i = 1; i < config.nodes(); i++) {
          awaitHealth(root, i, Set.of(501, 503), Duration.ofSeconds(30));
          unsealUntilJoined(root, i);
        }
        awaitVoters(root, Duration.ofSeconds(90));
      }
      mountTransit(root, software);
      mountPki(root, software);
    } finally {
      token.wipe();
    }
    started = true;
    for (int i = 0; i < config.nodes(); i++) watch(i, processes[i]);
  }

  /** Where lines about nodes dying and coming back go (serve openbao: its terminal). */
  public void reportingTo(Consumer<String> events) {
    this.events = events;
  }

  /**
   * With {@link Config#restartAfter()}: when {@code process}, node {@code i}'s, dies (a fault run's
   * SIGKILL, a crash), starts the node again that long after and unseals it, unless the cluster is
   * stopping or the node was started again meanwhile.
   */
  private void watch(int i, Process process) {
    if (!config.supervised() || !started) return;
    process
        .onExit()
        .thenRunAsync(
            () -> {
              if (closing || processes[i] != process) return;
              events.accept(
                  "OpenBao node "
                      + i
                      + " (pid "
                      + process.pid()
                      + ") exited ("
                      + process.exitValue()
                      + "); starting it again in "
                      + config.restartAfter().toSeconds()
                      + " s");
              try {
                Thread.sleep(config.restartAfter().toMillis());
                synchronized (this) {
                  if (closing || processes[i] != process) return;
                  restart(i);
                }
                events.accept(
                    "OpenBao node " + i + " started again (pid " + processes[i].pid() + ")");
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (Exception e) {
                if (!closing)
                  events.accept("OpenBao node " + i + " was not started again: " + e.getMessage());
              }
            });
  }

  private String hcl(int i, Path node, Path tlsDir) {
    StringBuilder b = new StringBuilder();
    b.append("ui = false\ndisable_mlock = true\nlog_level = \"warn\"\n");
    b.append("api_addr = \"https://127.0.0.1:").append(apiPort(i)).append("\"\n");
    b.append("cluster_addr = \"https://127.0.0.1:").append(apiPort(i) + 1).append("\"\n");
    b.append("storage \"raft\" {\n  path = \"").append(node.resolve("data")).append("\"\n");
    b.append("  node_id = \"node-").append(i).append("\"\n");
    for (int j = 0; j < config.nodes(); j++) {
      if (j == i) continue;
      b.append("  retry_join {\n    leader_api_addr = \"https://127.0.0.1:")
          .append(apiPort(j))
          .append("\"\n    leader_ca_cert_file = \"")
          .append(caFile())
          .append("\"\n  }\n");
    }
    b.append("}\n");
    b.append("listener \"tcp\" {\n  address = \"127.0.0.1:").append(apiPort(i)).append("\"\n");
    b.append("  cluster_address = \"127.0.0.1:").append(apiPort(i) + 1).append("\"\n");
    b.append("  tls_cert_file = \"").append(tlsDir.resolve("chain.pem")).append("\"\n");
    b.append("  tls_key_file = \"").append(tlsDir.resolve("key.pem")).append("\"\n}\n");
    return b.toString();
  }

  private void startNode(int i) throws IOException {
    Path node = config.dir().resolve("node-" + i);
    ProcessBuilder pb =
        new ProcessBuilder(config.bao().toString(), "server", "-config=" + node.resolve("bao.hcl"))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(node.resolve("bao.log").toFile()));
    // the server needs no token, and must not pick up the caller's
    for (String v : List.of("BAO_TOKEN", "VAULT_TOKEN", "BAO_ADDR", "VAULT_ADDR"))
      pb.environment().remove(v);
    processes[i] = pb.start();
  }

  /** Unseals node {@code i} with the key kept in {@code dir}. */
  private void unseal(OpenBaoClient open, int i) throws IOException {
    Secret key = Secret.fromFile(unsealKeyFile());
    try {
      open.postTo(i, "sys/unseal", Map.of("key", new String(key.chars())));
    } finally {
      key.wipe();
    }
  }

  /**
   * A follower joins through retry_join once it can read the leader's challenge, which it can only
   * after an unseal attempt: unseal, and again until it says it is a standby (or active).
   */
  private void unsealUntilJoined(OpenBaoClient open, int i) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (true) {
      try {
        unseal(open, i);
      } catch (OpenBaoException e) {
        // not joined yet: "raft backend not joined" or similar, until retry_join is through
      }
      int status = health(open, i);
      if (status == 200 || status == 429 || status == 473) return;
      if (System.nanoTime() > deadline)
        throw new IOException(
            "OpenBao node "
                + i
                + " at "
                + urls.get(i)
                + " did not join the cluster within 90 s (sys/health "
                + status
                + "); its log: "
                + lastLog(i));
      Thread.sleep(500);
    }
  }

  /** Waits until every node votes in Raft, so that losing one leaves a quorum. */
  private void awaitVoters(OpenBaoClient root, Duration within) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    String servers = "";
    while (System.nanoTime() < deadline) {
      JsonNode list =
          root.get("sys/storage/raft/configuration").path("data").path("config").path("servers");
      servers = list.toString();
      int voters = 0;
      for (JsonNode n : list) if (n.path("voter").asBoolean()) voters++;
      if (voters == config.nodes()) return;
      Thread.sleep(500);
    }
    throw new IOException(
        "the OpenBao cluster's nodes did not all become Raft voters within "
            + within.toSeconds()
            + " s: "
            + servers);
  }

  /** sys/health's status of node {@code i}, 0 when it does not answer. */
  private int health(OpenBaoClient open, int i) {
    try {
      open.getFrom(i, "sys/health");
      return 200;
    } catch (OpenBaoException e) {
      return e.status();
    }
  }

  private void awaitHealth(OpenBaoClient open, int i, Set<Integer> wanted, Duration within)
      throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    int status = 0;
    while (System.nanoTime() < deadline) {
      if (!processes[i].isAlive())
        throw new IOException(
            "OpenBao node "
                + i
                + " exited ("
                + processes[i].exitValue()
                + "); its log: "
                + lastLog(i));
      status = health(open, i);
      if (wanted.contains(status)) return;
      Thread.sleep(200);
    }
    throw new IOException(
        "OpenBao node "
            + i
            + " at "
            + urls.get(i)
            + " not ready within "
            + within.toSeconds()
            + " s (sys/health "
            + status
            + ", wanted "
            + wanted
            + "); its log: "
            + lastLog(i));
  }

  private String lastLog(int i) {
    try {
      List<String> lines = Files.readAllLines(config.dir().resolve("node-" + i).resolve("bao.log"));
      return String.join(" | ", lines.subList(Math.max(0, lines.size() - 8), lines.size()));
    } catch (IOException e) {
      return "(none)";
    }
  }

  private void mountTransit(OpenBaoClient root, SoftwareKeySource software) throws Exception {
    root.post("sys/mounts/transit", Map.of("type", "transit"));
    PublicKey wrapping = Transit.wrappingKey(root.get("transit/wrapping_key"));
    for (Entity e : config.pki().entities()) {
      // signers, and the TLS client whose key study pix's handshakes sign with
      boolean wanted = e.role() == Role.SIGNER || e.role() == Role.TLS_CLIENT;
      if (!wanted || e.revoked() || !TRANSIT_TYPES.contains(e.keyAlgorithm())) continue;
      SigningKey key = software.key(e.alias());
      root.post(
          "transit/keys/" + e.alias() + "/import",
          Transit.importBody(key.privateKey(), Transit.keyType(key.publicKey()), wrapping));
      root.post(
          "transit/keys/" + e.alias() + "/set-certificate",
          Map.of("certificate_chain", TestPki.pem(key.chain())));
    }
    root.post("transit/keys/" + AES_KEY, Map.of("type", "aes256-gcm96", "exportable", true));
  }

  private void mountPki(OpenBaoClient root, SoftwareKeySource software) throws Exception {
    root.post("sys/mounts/pki", Map.of("type", "pki", "config", Map.of("max_lease_ttl", "87600h")));
    SigningKey ca = software.key(PKI_CA);
    String keyPem =
        "-----BEGIN PRIVATE KEY-----\n"
            + Base64.getMimeEncoder(64, new byte[] {'\n'})
                .encodeToString(ca.privateKey().getEncoded())
            + "\n-----END PRIVATE KEY-----\n";
    root.post("pki/config/ca", Map.of("pem_bundle", keyPem + TestPki.pem(ca.chain())));
    for (var role : ROLES.entrySet()) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("allow_any_name", true);
      body.put("enforce_hostnames", false);
      body.put("key_type", role.getValue().get(0));
      body.put("key_bits", Integer.parseInt(role.getValue().get(1)));
      body.put("ttl", "1h");
      body.put("no_store", true);
      root.post("pki/roles/" + role.getKey(), body);
    }
  }

  private static void writeOwnerOnly(Path file, String secret) throws IOException {
    Files.deleteIfExists(file);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, secret + "\n", StandardCharsets.UTF_8);
  }

  /**
   * The index of the node that is the active one (the Raft leader) now, asked of the nodes in turn;
   * -1 when none says.
   */
  public int leader() {
    try (OpenBaoClient open = new OpenBaoClient(urls, null, tls, Duration.ofSeconds(5))) {
      for (int i = 0; i < urls.size(); i++) {
        if (processes[i] == null || !processes[i].isAlive()) continue;
        try {
          // a standby may still name a leader that is gone: only the active node says is_self
          if (open.getFrom(i, "sys/leader").path("is_self").asBoolean()) return i;
        } catch (OpenBaoException e) {
          // this node does not know: ask the next
        }
      }
    }
    return -1;
  }

  /** SIGKILLs node {@code i} (a fault run's kill-leader). */
  public void kill(int i) throws InterruptedException {
    processes[i].destroyForcibly().waitFor(10, TimeUnit.SECONDS);
  }

  /** Starts node {@code i} again on its storage and unseals it; it rejoins as a standby. */
  public void restart(int i) throws Exception {
    startNode(i);
    watch(i, processes[i]);
    // sys/init bootstraps raft and writes the keyring with fsyncs: seconds on a quiet machine, more
    // than ten on a loaded one (a CI run timed out there)
    try (OpenBaoClient open = new OpenBaoClient(urls, null, tls, Duration.ofSeconds(90))) {
      awaitHealth(open, i, Set.of(503, 429, 200, 473), Duration.ofSeconds(30));
      unsealUntilJoined(open, i);
    }
  }

  @Override
  public void close() {
    closing = true;
    for (Process p : processes) if (p != null) p.destroy();
    for (Process p : processes) {
      if (p == null) continue;
      try {
        if (!p.waitFor(10, TimeUnit.SECONDS)) p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        p.destroyForcibly();
        Thread.currentThread().interrupt();
      }
    }
  }
}
