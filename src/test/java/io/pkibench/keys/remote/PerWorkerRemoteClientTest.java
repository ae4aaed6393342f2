package io.pkibench.keys.remote;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.cli.CliContext;
import io.pkibench.cli.Main;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.pki.WorkerIdentities;
import io.pkibench.results.RunResultJson;
import io.pkibench.server.keyserver.KeyGrants;
import io.pkibench.server.keyserver.KeyServer;
import io.pkibench.server.keyserver.KeyService;
import io.pkibench.testing.TestKeys;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --keys remote:HOST:PORT,identities=per-worker}: each worker's key calls go out on
 * connections of its own presenting a certificate of its own, so the key server's own per-client
 * count sees as many clients as workers, and its grants decide per worker (the default grants take
 * the test PKI's per-worker certificates; a grant of tls-client's fingerprint alone refuses each
 * worker, naming its subject); {@code identities=DIR} does the same with a user's own PEM pairs.
 */
@org.junit.jupiter.api.Timeout(
    value = 3,
    unit =
        java.util.concurrent.TimeUnit
            .MINUTES) // talks to a key-server node: a hang fails, said as one
class PerWorkerRemoteClientTest {
  @TempDir static Path dir;
  static TestKeys fixture;
  static final Pattern WORKER_SUBJECT = Pattern.compile("CN=pkibench tls-client worker (\\d+)");

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  static KeyServer node(KeyGrants grants) throws Exception {
    var service = new KeyService(fixture.keys, fixture.keys.aliases(), grants, line -> {});
    SigningKey identity =
        new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK).key("keyserver");
    KeyServer server =
        new KeyServer(
            service,
            identity,
            fixture.pki.certificate("root-ca"),
            "127.0.0.1",
            0,
            KeyServer.Limits.defaults());
    server.start();
    return server;
  }

  static int run(StringWriter out, StringWriter err, String keys, String result) {
    return run(out, err, keys, "3", result);
  }

  static int run(
      StringWriter out, StringWriter err, String keys, String concurrency, String result) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "sign",
                "--keys",
                keys,
                "--pki",
                fixture.pki.dir().toString(),
                "--concurrency",
                concurrency,
                "--warmup",
                "0x1s",
                "--measure",
                "1x1s",
                "--quiet",
                "--out",
                result));
    return Main.execute(
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of("PATH", System.getenv("PATH")),
            InstantSource.system(),
            dir,
            false),
        args.toArray(new String[0]));
  }

  static Set<Integer> workersCounted(Map<String, Long> usesByClient) {
    Set<Integer> seen = new TreeSet<>();
    for (String subject : usesByClient.keySet()) {
      Matcher m = WORKER_SUBJECT.matcher(subject);
      if (m.find()) seen.add(Integer.parseInt(m.group(1)));
    }
    return seen;
  }

  @Test
  void run_identitiesPerWorker_keyServerCountsOneClientPerWorker_eachSigning() throws Exception {
    try (KeyServer server = node(KeyGrants.signerKeysFor(fixture.pki.certificate("tls-client")))) {
      StringWriter out = new StringWriter(), err = new StringWriter();
      int code =
          run(
              out,
              err,
              "remote:127.0.0.1:" + server.port() + ",identities=per-worker",
              "remote-per-worker.json");
      assertEquals(0, code, err.toString() + out);
      var level =
          RunResultJson.read(dir.resolve("remote-per-worker.json"))
              .workloads()
              .get(0)
              .levels()
              .get(0);
      assertTrue(
          level.counts().succeeded() > 0 && level.counts().failed() == 0,
          level.counts().toString());
      Map<String, Long> uses = server.usesByClient();
      assertEquals(
          Set.of(0, 1, 2),
          workersCounted(uses),
          "the node counted each worker as a client of its own: " + uses);
      long byWorkers =
          uses.entrySet().stream()
              .filter(e -> WORKER_SUBJECT.matcher(e.getKey()).find())
              .mapToLong(Map.Entry::getValue)
              .sum();
      assertTrue(
          byWorkers >= level.counts().succeeded(),
          "every measured signature was made under a worker's own certificate: " + uses);
      assertTrue(
          RunResultJson.read(dir.resolve("remote-per-worker.json"))
              .workloads()
              .get(0)
              .keys()
              .endsWith(",identities=per-worker"),
          "the result says how the clients presented themselves");
    }
  }

  @Test
  void run_identitiesPerWorker_grantOfTlsClientAlone_everyWorkerRefusedNamingItsSubject()
      throws Exception {
    try (KeyServer server = node(KeyGrants.everyKeyFor(fixture.pki.certificate("tls-client")))) {
      StringWriter out = new StringWriter(), err = new StringWriter();
      run(
          out,
          err,
          "remote:127.0.0.1:" + server.port() + ",identities=per-worker",
          "remote-refused.json");
      var level =
          RunResultJson.read(dir.resolve("remote-refused.json")).workloads().get(0).levels().get(0);
      assertTrue(
          level.counts().succeeded() == 0 && level.counts().failed() > 0,
          level.counts().toString());
      // the grant names tls-client's own certificate: a refusal means the worker presented another,
      // its own
      assertTrue(
          level
              .errors()
              .toString()
              .contains("PERMISSION_DENIED: no key 'signer-rsa2048-1' for the client certificate "),
          level.errors().toString());
      assertEquals(
          Set.of(),
          workersCounted(server.usesByClient()),
          "nothing granted to any worker (tls-client itself fetched the chain): "
              + server.usesByClient());
    }
  }

  /**
   * A user's own directory of PEM pairs: worker i connects with the i-th (here certificates whose
   * CN the default grants' {@code cn=pkibench tls-client worker *} takes; others are granted in the
   * node's --grants file). A directory that is not there, or holds fewer pairs than the largest
   * level's workers, is refused before the run, named.
   */
  @Test
  void run_identitiesFromADirectory_oneClientPerPair_tooFewOrMissingRefusedBeforeTheRun()
      throws Exception {
    Path own = java.nio.file.Files.createDirectories(dir.resolve("own"));
    WorkerIdentities issuer =
        new WorkerIdentities(fixture.pki, "tls-client", InstantSource.system());
    for (int i = 0; i < 2; i++) {
      var issued = issuer.forWorker(30 + i);
      java.nio.file.Files.writeString(
          own.resolve("user-" + i + ".crt"), TestPki.pem(issued.chain()));
      StringWriter pem = new StringWriter();
      try (JcaPEMWriter w = new JcaPEMWriter(pem)) {
        w.writeObject(new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(issued.key(), null));
      }
      java.nio.file.Files.writeString(own.resolve("user-" + i + ".key"), pem.toString());
    }
    try (KeyServer server = node(KeyGrants.signerKeysFor(fixture.pki.certificate("tls-client")))) {
      String keys = "remote:127.0.0.1:" + server.port() + ",identities=" + own;
      StringWriter out = new StringWriter(), err = new StringWriter();
      assertEquals(2, run(out, err, keys, "3", "too-few.json"), out.toString() + err);
      assertTrue(
          err.toString()
              .contains(
                  "--keys "
                      + keys
                      + ": "
                      + own
                      + " holds 2 identities (PEM pairs), and --concurrency 3 needs 3, one per worker:"
                      + " add 1 pair to "
                      + own
                      + " or lower --concurrency"),
          err.toString());
      assertEquals(Map.of(), server.usesByClient(), "nothing ran");

      StringWriter out2 = new StringWriter(), err2 = new StringWriter();
      assertEquals(0, run(out2, err2, keys, "2", "own.json"), err2.toString() + out2);
      var level = RunResultJson.read(dir.resolve("own.json")).workloads().get(0).levels().get(0);
      assertTrue(
          level.counts().succeeded() > 0 && level.counts().failed() == 0,
          level.counts().toString());
      assertEquals(
          Set.of(30, 31),
          workersCounted(server.usesByClient()),
          "each worker presented its own pair: " + server.usesByClient());
    }
    StringWriter out = new StringWriter(), err = new StringWriter();
    assertEquals(
        2,
        run(out, err, "remote:127.0.0.1:1,identities=" + dir.resolve("nowhere"), "1", "x.json"),
        out.toString() + err);
    assertTrue(
        err.toString()
            .contains(
                "identities="
                    + dir.resolve("nowhere")
                    + ": no such directory; give identities=per-worker"),
        err.toString());
  }
}
