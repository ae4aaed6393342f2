package io.pkibench.workload.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.cli.CliContext;
import io.pkibench.cli.Main;
import io.pkibench.pki.TestPki;
import io.pkibench.pki.WorkerIdentities;
import io.pkibench.results.RunResultJson;
import io.pkibench.testing.OpensslServer;
import io.pkibench.testing.TestKeys;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
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
 * One client identity per worker ({@code -p identities}), proved by a server we did not write:
 * {@code openssl s_server -Verify 1} prints the subject of every client certificate it verifies,
 * and must see as many distinct subjects as the run has workers.
 */
@org.junit.jupiter.api.Timeout(
    value = 4,
    unit =
        java.util.concurrent.TimeUnit
            .MINUTES) // talks to openssl s_server: a hang fails, said as one
class WorkerIdentitiesTest {
  @TempDir static Path dir;
  static TestKeys fixture;
  static final Pattern WORKER_SUBJECT = Pattern.compile("CN ?= ?pkibench tls-client worker (\\d+)");

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  /** The worker numbers whose certificates s_server verified. */
  static Set<Integer> subjectsSeen(OpensslServer server) {
    Set<Integer> seen = new TreeSet<>();
    Matcher m = WORKER_SUBJECT.matcher(server.output());
    while (m.find()) seen.add(Integer.parseInt(m.group(1)));
    return seen;
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

  static List<String> handshakes(int port, String concurrency, String out, String... params) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "run",
                "tls-handshake",
                "--target",
                "tls://127.0.0.1:" + port,
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
                out));
    for (String p : params) args.addAll(List.of("-p", p));
    return args;
  }

  @Test
  void run_identitiesPerWorker_serverSeesOneSubjectPerWorker_issuedOnceAndKept() throws Exception {
    StringWriter out = new StringWriter(), err = new StringWriter();
    try (OpensslServer server =
        OpensslServer.start(
            fixture,
            dir,
            "-Verify",
            "1",
            "-verify_return_error",
            "-CAfile",
            fixture.pki.caChainPem().toString())) {
      int code =
          run(
              out,
              err,
              handshakes(
                      server.port,
                      "4",
                      "per-worker.json",
                      "client=tls-client",
                      "identities=per-worker")
                  .toArray(new String[0]));
      assertEquals(0, code, err.toString() + out);
      var counts =
          RunResultJson.read(dir.resolve("per-worker.json"))
              .workloads()
              .get(0)
              .levels()
              .get(0)
              .counts();
      assertTrue(counts.succeeded() > 0 && counts.failed() == 0, counts.toString());
      assertEquals(
          Set.of(0, 1, 2, 3),
          subjectsSeen(server),
          "s_server saw each of the 4 workers' own certificate: " + server.output());
    }
    Path kept = fixture.pki.dir().resolve("identities/tls-client");
    List<String> files;
    try (var list = Files.list(kept)) {
      files = list.map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertEquals(
        List.of(
            "tls-client-worker-0.p12",
            "tls-client-worker-1.p12",
            "tls-client-worker-2.p12",
            "tls-client-worker-3.p12"),
        files);
    var first =
        new WorkerIdentities(fixture.pki, "tls-client", InstantSource.system())
            .forWorker(2)
            .chain()
            .get(0);
    var again =
        new WorkerIdentities(TestPki.open(fixture.pki.dir()), "tls-client", InstantSource.system())
            .forWorker(2)
            .chain()
            .get(0);
    assertEquals(first, again, "kept between runs: the same certificate, not a new one");
    assertEquals(
        fixture.pki.certificate("tls-client").getIssuerX500Principal(),
        first.getIssuerX500Principal(),
        "issued by tls-client's CA");
  }

  /**
   * A user's own directory of PEM pairs: worker i presents the i-th pair. More workers than pairs
   * stops the run naming the directory and its count; a pair that cannot be read is named;
   * per-worker without -p client and a directory that is not there are refused before the run.
   */
  @Test
  void run_identitiesFromADirectory_oneEach_tooFewOrUnreadableRefusedNamingIt() throws Exception {
    Path own = Files.createDirectories(dir.resolve("own"));
    WorkerIdentities issuer =
        new WorkerIdentities(fixture.pki, "tls-client", InstantSource.system());
    for (int i = 0; i < 3; i++) {
      var issued = issuer.forWorker(10 + i);
      Files.writeString(own.resolve("user-" + i + ".crt"), TestPki.pem(issued.chain()));
      StringWriter key = new StringWriter();
      try (JcaPEMWriter w = new JcaPEMWriter(key)) {
        w.writeObject(new org.bouncycastle.openssl.jcajce.JcaPKCS8Generator(issued.key(), null));
      }
      Files.writeString(own.resolve("user-" + i + ".key"), key.toString());
    }
    StringWriter out = new StringWriter(), err = new StringWriter();
    try (OpensslServer server =
        OpensslServer.start(
            fixture,
            dir,
            "-Verify",
            "1",
            "-verify_return_error",
            "-CAfile",
            fixture.pki.caChainPem().toString())) {
      assertEquals(
          0,
          run(
              out,
              err,
              handshakes(server.port, "3", "own.json", "identities=" + own).toArray(new String[0])),
          err.toString() + out);
      var counts =
          RunResultJson.read(dir.resolve("own.json")).workloads().get(0).levels().get(0).counts();
      assertTrue(counts.succeeded() > 0 && counts.failed() == 0, counts.toString());
      assertEquals(
          Set.of(10, 11, 12),
          subjectsSeen(server),
          "each of the 3 workers presented its own pair: " + server.output());

      out.getBuffer().setLength(0);
      err.getBuffer().setLength(0);
      int code =
          run(
              out,
              err,
              handshakes(server.port, "4", "too-few.json", "identities=" + own)
                  .toArray(new String[0]));
      assertEquals(2, code, "four workers, three pairs, refused before the run: " + out + err);
      assertTrue(
          (out.toString() + err)
              .contains(
                  "-p identities="
                      + own
                      + " holds 3 identities (PEM pairs), and --concurrency 4 needs 4, one per worker"),
          out.toString() + err);
    }

    Files.writeString(own.resolve("user-3.crt"), "not a certificate");
    Files.writeString(own.resolve("user-3.key"), "not a key");
    StringWriter out2 = new StringWriter(), err2 = new StringWriter();
    assertTrue(
        run(out2, err2, handshakes(1, "1", "bad.json", "identities=" + own).toArray(new String[0]))
            != 0);
    assertTrue(
        (out2.toString() + err2)
            .contains(
                "-p identities=" + own + ": user-3 (user-3.crt with user-3.key): cannot be read: "),
        out2.toString() + err2);

    StringWriter err3 = new StringWriter();
    assertEquals(
        2,
        run(
            new StringWriter(),
            err3,
            handshakes(1, "1", "x.json", "identities=per-worker").toArray(new String[0])));
    assertTrue(
        err3.toString().contains("-p identities=per-worker needs -p client=NAME"), err3.toString());
    StringWriter err4 = new StringWriter();
    assertEquals(
        2,
        run(
            new StringWriter(),
            err4,
            handshakes(1, "1", "x.json", "identities=" + dir.resolve("nowhere"))
                .toArray(new String[0])));
    assertTrue(
        err4.toString().contains("-p identities=" + dir.resolve("nowhere") + ": no such directory"),
        err4.toString());
  }
}
