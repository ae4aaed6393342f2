package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.cli.CliContext;
import io.pkibench.cli.Main;
import io.pkibench.pki.TestPki;
import io.pkibench.pki.WorkerIdentities;
import io.pkibench.server.tlsecho.TlsEchoServer;
import io.pkibench.testing.Await;
import io.pkibench.testing.ListeningPorts;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Workload;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code -p identities} on tls-rr and tls-hold, proved by a TLS terminator we did not write:
 * Debian's stunnel4, demanding a client certificate of the test PKI in front of our plain echo,
 * logs the subject of every certificate it accepts and must see each worker's own. A directory with
 * fewer pairs than the plan's largest level is refused before the run.
 */
@org.junit.jupiter.api.Timeout(
    value = 3,
    unit = TimeUnit.MINUTES) // talks to stunnel: a hang fails, said as one
class PerWorkerClientsTest {
  @TempDir static Path dir;
  static TestKeys fixture;
  static final Pattern WORKER_SUBJECT = Pattern.compile("CN=pkibench tls-client worker (\\d+)");

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  /** The worker numbers whose certificates stunnel accepted, from {@code log}. */
  static Set<Integer> subjectsSeen(String log) {
    Set<Integer> seen = new TreeSet<>();
    Matcher m = WORKER_SUBJECT.matcher(log);
    while (m.find()) seen.add(Integer.parseInt(m.group(1)));
    return seen;
  }

  @Test
  void tlsRrAndTlsHold_identitiesPerWorker_stunnelAcceptsOneSubjectPerWorker() throws Exception {
    Path key = dir.resolve("key.pem"),
        chain = dir.resolve("chain.pem"),
        log = dir.resolve("stunnel.log");
    String r =
        Openssl.run(
            "pkcs12",
            "-in",
            fixture.pki.keystore("tls-server").toString(),
            "-nocerts",
            "-nodes",
            "-passin",
            "file:" + fixture.pki.dir().resolve("keystore.pass"),
            "-out",
            key.toString());
    assertTrue(Openssl.succeeded(r), r);
    Files.writeString(
        chain,
        Files.readString(fixture.pki.certificatePem("tls-server"))
            + Files.readString(fixture.pki.certificatePem("intermediate-a")));
    try (TlsEchoServer plain =
        new TlsEchoServer(null, "plain", "127.0.0.1", 0, -1, TlsEchoServer.Limits.DEFAULT)) {
      plain.start();
      Path conf = dir.resolve("stunnel.conf");
      // debug = 5 (notice): stunnel logs "Certificate accepted at depth=0: <subject>" for each
      // client certificate it verified
      Files.writeString(
          conf,
          String.join(
              "\n",
              "foreground = yes",
              "pid =",
              "debug = 5",
              "[echo]",
              "accept = 127.0.0.1:0", // the port it binds, read back from the kernel
              "connect = " + URI.create(plain.baseUrl()).getAuthority(),
              "cert = " + chain,
              "key = " + key,
              "verifyChain = yes",
              "requireCert = yes",
              "CAfile = " + fixture.pki.caChainPem(),
              ""));
      Process stunnel =
          new ProcessBuilder("stunnel4", conf.toString())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      try {
        int port = ListeningPorts.await(stunnel, Duration.ofSeconds(60), log);
        String target = "tls://127.0.0.1:" + port;
        try (Workload w =
            fixture.workload(
                new TlsWorkload.Factory(TlsWorkload.Kind.RR),
                Map.of("target", target, "client", "tls-client", "identities", "per-worker"))) {
          for (int worker = 0; worker < 3; worker++) {
            Operation op = w.newOperation(worker);
            for (int i = 0; i < 3; i++) op.execute();
          }
        }
        Await.until(
            Duration.ofSeconds(10),
            "stunnel to log tls-rr's three workers",
            () -> subjectsSeen(Files.readString(log)).size() >= 3);
        assertEquals(
            Set.of(0, 1, 2),
            subjectsSeen(Files.readString(log)),
            "stunnel accepted each tls-rr worker's own certificate: " + Files.readString(log));

        long before = Files.size(log);
        try (Workload w =
            fixture.workload(
                new HoldWorkload.Factory(),
                Map.of(
                    "target",
                    target,
                    "client",
                    "tls-client",
                    "identities",
                    "per-worker",
                    "interval",
                    "1ms"))) {
          for (int worker = 3; worker < 5; worker++) {
            Operation op = w.newOperation(worker);
            for (int i = 0; i < 2; i++) op.execute();
          }
        }
        Await.until(
            Duration.ofSeconds(10),
            "stunnel to log tls-hold's two workers",
            () -> subjectsSeen(Files.readString(log).substring((int) before)).size() >= 2);
        assertEquals(
            Set.of(3, 4),
            subjectsSeen(Files.readString(log).substring((int) before)),
            "stunnel accepted each held connection's own certificate: " + Files.readString(log));
        assertEquals(
            3 * 3 + 2 * 2,
            TlsEchoTest.counter(TlsEchoTest.counters(plain.baseUrl()), "transactions"),
            "every transaction passed the echo behind stunnel");
      } finally {
        stunnel.destroy();
        stunnel.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  static int run(StringWriter out, StringWriter err, String... args) {
    return Main.execute(
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of("PATH", System.getenv("PATH")),
            InstantSource.system(),
            dir,
            false),
        args);
  }

  /**
   * A directory of {@code n} PEM pairs the test PKI issued (workers 20.. of tls-client), as a user
   * would bring.
   */
  static Path pairs(String name, int n) throws Exception {
    Path own = Files.createDirectories(dir.resolve(name));
    WorkerIdentities issuer =
        new WorkerIdentities(fixture.pki, "tls-client", InstantSource.system());
    for (int i = 0; i < n; i++) {
      var issued = issuer.forWorker(20 + i);
      Files.writeString(own.resolve("user-" + i + ".crt"), TestPki.pem(issued.chain()));
      StringWriter pem = new StringWriter();
      try (JcaPEMWriter w = new JcaPEMWriter(pem)) {
        w.writeObject(new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(issued.key(), null));
      }
      Files.writeString(own.resolve("user-" + i + ".key"), pem.toString());
    }
    return own;
  }

  /**
   * More workers at the plan's largest level than the directory has pairs: refused before anything
   * starts (exit 2, no result written), naming the directory, its count and the level, for
   * --concurrency levels, a --rate's workers and --stages.
   */
  @Test
  void run_moreWorkersThanTheDirectoryHolds_refusedBeforeTheRunNamingDirectoryCountAndLevel()
      throws Exception {
    Path own = pairs("two-pairs", 2);
    List<List<String>> loads =
        List.of(
            List.of("--concurrency", "1,3", "--measure", "1x1s"),
            List.of("--rate", "50", "--concurrency", "3", "--measure", "1x1s"),
            List.of("--stages", "1s:2,1s:3"));
    List<String> levels =
        List.of(
            "--concurrency 3 needs 3",
            "--concurrency 3 (the workers serving --rate) needs 3",
            "--stages (3 workers at its highest) needs 3");
    for (int i = 0; i < loads.size(); i++) {
      List<String> args =
          new ArrayList<>(
              List.of(
                  "run",
                  "tls-rr",
                  "--target",
                  "tls://127.0.0.1:1",
                  "--pki",
                  fixture.pki.dir().toString(),
                  "--warmup",
                  "0x1s",
                  "--quiet",
                  "--out",
                  "refused-" + i + ".json",
                  "-p",
                  "identities=" + own));
      args.addAll(loads.get(i));
      StringWriter out = new StringWriter(), err = new StringWriter();
      int code = run(out, err, args.toArray(new String[0]));
      assertEquals(2, code, "refused as a bad flag: " + out + err);
      assertTrue(
          err.toString()
              .contains(
                  "-p identities="
                      + own
                      + " holds 2 identities (PEM pairs), and "
                      + levels.get(i)
                      + ", one per worker: add 1 pair to "
                      + own
                      + " or lower --"),
          err.toString());
      assertTrue(!Files.exists(dir.resolve("refused-" + i + ".json")), "nothing ran");
    }

    // a mix: every worker may draw either member, so each member needs a pair per worker, and each
    // is named
    StringWriter out = new StringWriter(), err = new StringWriter();
    int code =
        run(
            out,
            err,
            "run",
            "--mix",
            "tls-rr=1,tls-acrr=1",
            "--target",
            "tls://127.0.0.1:1",
            "--pki",
            fixture.pki.dir().toString(),
            "--warmup",
            "0x1s",
            "--measure",
            "1x1s",
            "--quiet",
            "--out",
            "refused-mix.json",
            "-p",
            "identities=" + own,
            "--concurrency",
            "3");
    assertEquals(2, code, "refused as a bad flag: " + out + err);
    for (String member : List.of("tls-rr", "tls-acrr")) {
      assertTrue(
          err.toString()
              .contains(
                  "mix member "
                      + member
                      + ": -p identities="
                      + own
                      + " holds 2 identities (PEM pairs), and --concurrency 3 needs 3"),
          err.toString());
    }
  }
}
