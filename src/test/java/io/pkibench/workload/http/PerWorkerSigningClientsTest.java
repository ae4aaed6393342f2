package io.pkibench.workload.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.ades.CertificateLogin;
import io.pkibench.formats.tls.TlsServerKeys;
import io.pkibench.pki.WorkerIdentities;
import io.pkibench.server.nginx.NginxPeer;
import io.pkibench.server.signer.SignerServer;
import io.pkibench.testing.Await;
import io.pkibench.testing.ListeningPorts;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code -p identities} on the signing service's clients, proved by a terminator we did not write:
 * Debian's nginx in front of {@code serve signer}, demanding a client certificate of the test PKI
 * and logging {@code $ssl_client_s_dn} for every request, must see each worker's own subject;
 * {@code http:auth} with per-worker identities logs each worker in with a certificate and key of
 * its own, and the service answers for that worker's subject.
 */
@org.junit.jupiter.api.Timeout(
    value = 4,
    unit = TimeUnit.MINUTES) // talks to nginx and the signing service: a hang fails, said as one
class PerWorkerSigningClientsTest {
  @TempDir static Path dir;
  static TestKeys fixture;
  static SignerServer signer;
  static Process nginx;
  static int nginxPort;
  static final Pattern TLS_WORKER = Pattern.compile("CN=pkibench tls-client worker (\\d+)");

  @BeforeAll
  static void start() throws Exception {
    assertNull(NginxPeer.problem(), "./test installs nginx-light");
    fixture = TestKeys.in(dir);
    signer =
        SignerServer.forTestPki(
            fixture.pki,
            fixture.keys,
            CertificateLogin.Revocation.CRL,
            "127.0.0.1",
            0,
            InstantSource.system());
    signer.start();
    Path chain = dir.resolve("server-chain.pem"),
        key = dir.resolve("server.key"),
        temp = Files.createDirectories(dir.resolve("temp"));
    NginxPeer.writeIdentity(TlsServerKeys.of(fixture.pki, "rsa2048"), chain, key);
    String conf =
        String.join(
            "\n",
            "root".equals(System.getProperty("user.name")) ? "user root;" : "",
            "worker_processes 1;",
            "daemon off;",
            "pid " + dir.resolve("nginx.pid") + ";",
            "error_log " + dir.resolve("error.log") + " warn;",
            "events { worker_connections 256; }",
            "http {",
            "  log_format subjects '$ssl_client_s_dn';",
            "  access_log " + dir.resolve("access.log") + " subjects;",
            "  client_body_temp_path " + temp + "/body;",
            "  proxy_temp_path " + temp + "/proxy;",
            "  fastcgi_temp_path " + temp + "/fastcgi;",
            "  uwsgi_temp_path " + temp + "/uwsgi;",
            "  scgi_temp_path " + temp + "/scgi;",
            "  server {",
            "    listen 127.0.0.1:PORT ssl;",
            "    ssl_certificate " + chain + ";",
            "    ssl_certificate_key " + key + ";",
            "    ssl_verify_client on;",
            "    ssl_verify_depth 4;",
            "    ssl_client_certificate " + fixture.pki.caChainPem() + ";",
            "    client_max_body_size 16m;",
            "    location / { proxy_pass "
                + signer.baseUrl()
                + "; proxy_http_version 1.1; proxy_ssl_verify off; }",
            "  }",
            "}",
            "");
    // nginx cannot bind port 0, so the port is probed free and handed over; another process may
    // take it in between: then nginx says so and exits, and it is started again on another. It
    // counts as listening when the kernel shows the port among nginx's own listening sockets, not
    // when something answers there.
    Path file = dir.resolve("nginx.conf");
    for (int attempt = 1; ; attempt++) {
      nginxPort = io.pkibench.testing.ReservedPorts.one();
      Files.writeString(file, conf.replace("127.0.0.1:PORT", "127.0.0.1:" + nginxPort));
      Files.deleteIfExists(dir.resolve("error.log"));
      Process started =
          new ProcessBuilder(
                  "nginx",
                  "-p",
                  dir.toString(),
                  "-c",
                  file.toString(),
                  "-e",
                  dir.resolve("error.log").toString())
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("nginx.out").toFile())
              .start();
      nginx = started;
      Await.until(
          Duration.ofSeconds(60),
          "nginx to listen",
          () -> !started.isAlive() || ListeningPorts.of(started).contains(nginxPort));
      if (started.isAlive()) break;
      String said = Files.readString(dir.resolve("nginx.out")) + read("error.log");
      if (attempt == 5 || !said.contains("Address already in use"))
        throw new AssertionError("nginx exited (attempt " + attempt + "): " + said);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (nginx != null) {
      nginx.destroy();
      if (!nginx.waitFor(10, TimeUnit.SECONDS))
        nginx.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
    }
    if (signer != null) signer.close();
  }

  static String read(String file) throws java.io.IOException {
    return Files.exists(dir.resolve(file)) ? Files.readString(dir.resolve(file)) : "";
  }

  static Workload client(String kind, Map<String, String> params) throws Exception {
    var factory = new HttpSigningWorkload.Factory(kind);
    return factory.create(
        new WorkloadContext(fixture.keys, true, () -> fixture.pki),
        Params.resolve(factory.name(), factory.params(), params));
  }

  /** The tls-client worker numbers nginx logged since byte {@code from} of its access log. */
  static Set<Integer> tlsWorkersSeen(long from) throws java.io.IOException {
    Set<Integer> seen = new TreeSet<>();
    Matcher m = TLS_WORKER.matcher(read("access.log").substring((int) from));
    while (m.find()) seen.add(Integer.parseInt(m.group(1)));
    return seen;
  }

  static void runWorkers(Workload w, int first, int last, int each) throws Exception {
    for (int worker = first; worker <= last; worker++) {
      Operation op = w.newOperation(worker);
      for (int i = 0; i < each; i++)
        op.execute(); // throws on any failure: the service's answer is checked (--verify on)
    }
  }

  @Test
  void httpCades_overMutualTls_identitiesPerWorker_nginxLogsOneSubjectPerWorker() throws Exception {
    long before = read("access.log").length();
    String target = "https://127.0.0.1:" + nginxPort;
    try (Workload w =
        client(
            "cades",
            Map.of(
                "target",
                target,
                "client",
                "tls-client",
                "identities",
                "per-worker",
                "size",
                "4k"))) {
      runWorkers(w, 0, 2, 2);
    }
    Await.until(
        Duration.ofSeconds(10),
        "nginx to log the three workers' requests",
        () -> tlsWorkersSeen(before).size() >= 3);
    assertEquals(
        Set.of(0, 1, 2),
        tlsWorkersSeen(before),
        "nginx verified each worker's own certificate: " + read("access.log"));
    assertEquals(
        3 * 2 * 2,
        read("access.log").substring((int) before).lines().count(),
        "start and finish of each of the 6 signatures, each logged once");
  }

  @Test
  void httpAuth_identitiesPerWorker_eachWorkerLogsInAsItself_overMutualTlsEachPresentsItsOwn()
      throws Exception {
    long before = read("access.log").length();
    String target = "https://127.0.0.1:" + nginxPort;
    try (Workload w =
        client(
            "auth", Map.of("target", target, "client", "tls-client", "identities", "per-worker"))) {
      runWorkers(
          w, 3, 5, 2); // each login checks that the service answered for this worker's own subject
    }
    Await.until(
        Duration.ofSeconds(10),
        "nginx to log the three workers' logins",
        () -> tlsWorkersSeen(before).size() >= 3);
    assertEquals(
        Set.of(3, 4, 5),
        tlsWorkersSeen(before),
        "each worker presented its own TLS certificate: " + read("access.log"));
    WorkerIdentities logins =
        new WorkerIdentities(fixture.pki, "signer-rsa2048-1", InstantSource.system());
    Set<BigInteger> serials = new HashSet<>();
    for (int worker = 3; worker <= 5; worker++) {
      assertTrue(
          Files.exists(logins.file(worker)),
          "worker " + worker + " logged in with its own signer identity");
      var leaf = logins.forWorker(worker).chain().get(0);
      assertEquals(
          fixture.pki.certificate("signer-rsa2048-1").getIssuerX500Principal(),
          leaf.getIssuerX500Principal(),
          "issued beside signer-rsa2048-1");
      serials.add(leaf.getSerialNumber());
    }
    assertEquals(3, serials.size(), "three workers, three login certificates");

    // straight to the service (no mutual TLS): the login identities alone, no -p client needed
    try (Workload w =
        client("auth", Map.of("target", signer.baseUrl(), "identities", "per-worker"))) {
      runWorkers(w, 6, 6, 1);
    }
    assertTrue(Files.exists(logins.file(6)), "worker 6 logged in with its own signer identity");
  }

  @Test
  void problems_perWorkerWithoutClientOnASigningType_refusedNamingTheFlag_authNeedsNone()
      throws Exception {
    var cades = new HttpSigningWorkload.Factory("cades");
    List<String> problems =
        cades.problems(
            Params.resolve(
                cades.name(),
                cades.params(),
                Map.of("target", "https://127.0.0.1:1", "identities", "per-worker")),
            "software");
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(
        problems.get(0).startsWith("-p identities=per-worker on http:cades needs -p client=NAME"),
        problems.toString());
    var auth = new HttpSigningWorkload.Factory("auth");
    assertEquals(
        List.of(),
        auth.problems(
            Params.resolve(
                auth.name(),
                auth.params(),
                Map.of("target", "https://127.0.0.1:1", "identities", "per-worker")),
            "software"));
    String nowhere = dir.resolve("nowhere").toString();
    assertTrue(
        auth.problems(
                Params.resolve(
                    auth.name(),
                    auth.params(),
                    Map.of("target", "https://127.0.0.1:1", "identities", nowhere)),
                "software")
            .contains(
                "-p identities="
                    + nowhere
                    + ": no such directory; give per-worker (the test PKI issues one per worker) or a directory of PEM pairs"
                    + " (NAME.crt or NAME.pem with NAME.key)"));
  }
}
