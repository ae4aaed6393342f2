package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.SigningKey;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.testing.Await;
import io.pkibench.testing.DerFront;
import io.pkibench.testing.OpensslServices;
import io.pkibench.testing.ReservedPorts;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.http.OcspWorkload;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run} against services that do not work: the check before the run (one real operation of
 * the workload) stops it with one line naming the URL and the cause, and a level whose every
 * operation failed ends the run with exit 7.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class RunPreCheckTest {
  @TempDir Path dir;
  @TempDir static Path shared;
  static TestKeys fixture;

  @BeforeAll
  static void pki() throws Exception {
    fixture = TestKeys.in(shared, "http://127.0.0.1:" + ReservedPorts.one() + "/crl/");
  }

  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  /** An owner-only file holding a token no service will ever see. */
  Path tokenFile() throws IOException {
    Path file = dir.resolve("bao-token");
    if (!Files.exists(file)) {
      Files.createFile(
          file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(file, "s.not-a-real-token\n");
    }
    return file;
  }

  int run(String... args) {
    return Main.execute(
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            InstantSource.system(),
            dir,
            false),
        args);
  }

  static int freePort() throws Exception {
    return ReservedPorts.one();
  }

  @Test
  void run_targetWithNothingListening_stopsBeforeAnyLevelNamingTheUrlAndConnectionRefused()
      throws Exception {
    int port = freePort();
    for (var c :
        List.of(
            List.of("http:cades", "https://127.0.0.1:" + port),
            List.of("tls-rr", "tls://127.0.0.1:" + port),
            List.of("https-rr", "https://127.0.0.1:" + port + "/"),
            // a workload that calls the service already while it is set up (the key's public key)
            List.of(
                "openbao:transit-sign",
                "https://127.0.0.1:" + port,
                "-p",
                "token-file=" + tokenFile()))) {
      err.getBuffer().setLength(0);
      String result = c.get(0).replace(':', '-') + ".json";
      List<String> args = new ArrayList<>(List.of("run", c.get(0), "--target", c.get(1)));
      args.addAll(c.subList(2, c.size()));
      int code =
          run(
              Stream.concat(
                      args.stream(),
                      Stream.of(
                          "--pki",
                          shared.resolve("pki").toString(),
                          "--concurrency",
                          "1",
                          "--warmup",
                          "0x1s",
                          "--measure",
                          "1x1s",
                          "--quiet",
                          "--out",
                          result))
                  .toArray(String[]::new));
      assertEquals(2, code, c + ": " + err + out);
      assertTrue(
          err.toString()
              .contains(
                  "--target "
                      + c.get(1)
                      + ": nothing answers there (connection refused); start the service or correct the URL"),
          c + ": " + err);
      assertFalse(
          Files.exists(dir.resolve(result))
              && !RunResultJson.read(dir.resolve(result)).workloads().stream()
                  .allMatch(w -> w.levels().isEmpty()),
          c + ": no level run");
    }
  }

  @Test
  void run_socketTargetWithoutItsScheme_refusedBeforeAnythingRuns_exit2_noResult()
      throws Exception {
    for (String workload : List.of("tls-rr", "tls-acrr", "tls-stream")) {
      err.getBuffer().setLength(0);
      String result = workload + "-no-scheme.json";
      int code =
          run(
              "run",
              workload,
              "--target",
              "127.0.0.1:1",
              "--pki",
              shared.resolve("pki").toString(),
              "--concurrency",
              "1",
              "--measure",
              "1x1s",
              "--quiet",
              "--out",
              result);
      assertEquals(2, code, workload + ": " + err + out);
      assertTrue(
          err.toString()
              .contains(
                  "--target 127.0.0.1:1: write tls://HOST:PORT or tcp://HOST:PORT, e.g."
                      + " tls://127.0.0.1:8444"),
          workload + ": " + err);
      assertFalse(Files.exists(dir.resolve(result)), workload + ": no result saved");
    }
  }

  @Test
  void run_everyOperationFailsAfterTheCheck_exits7SayingSoAndKeepsTheLevel() throws Exception {
    SigningKey ca = fixture.keys.key("intermediate-a");
    DerFront.Backend openssl =
        OpensslServices.ocsp(
            dir.resolve("openssl-ocsp"),
            ca.certificate(),
            ca.certificate(),
            ca.privateKey(),
            List.of(fixture.pki.certificate("signer-rsa2048-1")),
            List.of(),
            2);
    java.util.concurrent.atomic.AtomicReference<DerFront> self =
        new java.util.concurrent.atomic.AtomicReference<>();
    // Answers the first request (the check's) as a responder should, then every other with a 500
    // ("internal error").
    DerFront.Backend firstOnly =
        request -> {
          byte[] answer = openssl.answer(request);
          self.get().fault(DerFront.Fault.HTTP_500);
          return answer;
        };
    int code;
    try (DerFront front = new DerFront(OcspWorkload.REPLY_TYPE, firstOnly)) {
      self.set(front);
      code =
          run(
              "run",
              "ocsp",
              "--target",
              front.url("/ocsp"),
              "-p",
              "cert=" + fixture.pki.certificatePem("signer-rsa2048-1"),
              "-p",
              "issuer=" + fixture.pki.certificatePem("intermediate-a"),
              "--concurrency",
              "1,2",
              "--warmup",
              "0x1s",
              "--measure",
              "1x1s",
              "--quiet",
              "--out",
              "ocsp.json");
    }
    assertEquals(7, code, err.toString() + out);
    assertTrue(
        err.toString().contains("checked: one ocsp operation against --target http://127.0.0.1:"),
        err.toString());
    assertTrue(
        err.toString().contains("every operation failed at concurrency 1: HTTP 500"),
        err.toString());
    assertTrue(err.toString().contains("internal error"), "the service's words: " + err);
    RunResult result = RunResultJson.read(dir.resolve("ocsp.json"));
    List<LevelResult> levels = result.workloads().get(0).levels();
    assertEquals(1, levels.size(), "the level is kept and the run ends there: " + levels);
    assertEquals(0, levels.get(0).counts().succeeded());
    assertTrue(levels.get(0).counts().failed() > 0, levels.get(0).counts().toString());
  }

  @Test
  void run_tableOfRefusedConnections_showsTheCauseInWordsNotClassChains() throws Exception {
    // A service that answers the check and is gone before the first level: the table's causes are
    // what users read.
    SigningKey ca = fixture.keys.key("intermediate-a");
    DerFront.Backend openssl =
        OpensslServices.ocsp(
            dir.resolve("openssl-gone"),
            ca.certificate(),
            ca.certificate(),
            ca.privateKey(),
            List.of(fixture.pki.certificate("signer-rsa2048-1")),
            List.of(),
            2);
    DerFront front = new DerFront(OcspWorkload.REPLY_TYPE, openssl);
    try {
      // The progress line that ends the check stops the service: the level after it finds nothing
      // listening.
      StringWriter watched =
          new StringWriter() {
            @Override
            public void write(String text, int off, int len) {
              super.write(text, off, len);
              if (getBuffer().indexOf("checked: one ocsp operation") >= 0) front.close();
            }
          };
      int code =
          Main.execute(
              new CliContext(
                  new PrintWriter(out, true),
                  new PrintWriter(watched, true),
                  Map.of(),
                  InstantSource.system(),
                  dir,
                  false),
              "run",
              "ocsp",
              "--target",
              front.url("/ocsp"),
              "-p",
              "cert=" + fixture.pki.certificatePem("signer-rsa2048-1"),
              "-p",
              "issuer=" + fixture.pki.certificatePem("intermediate-a"),
              "--concurrency",
              "1",
              "--warmup",
              "0x1s",
              "--measure",
              "1x1s",
              "--out",
              "gone.json");
      assertEquals(7, code, watched + "\n" + out);
      assertTrue(out.toString().contains("connection refused (ConnectException)"), out.toString());
      assertFalse(out.toString().contains("java.net.ConnectException"), out.toString());
    } finally {
      front.close();
    }
  }

  /**
   * OpenSSL's own responder, started as its manual says ({@code openssl ocsp -index … -port PORT
   * -rsigner … -rkey … -CA …}): it serves one connection at a time and waits for good on one that
   * sends nothing, so a check that connects and closes leaves it answering nobody. OpenSSL 3.0
   * listens on every interface with no way to name one, so it runs in a network namespace of its
   * own ({@code unshare -rn}), reached from 127.0.0.1 through two socat relays over a Unix socket,
   * which pass each connection on as it comes (a bare connect too).
   */
  @Test
  void run_ocspAgainstOpensslsOwnResponder_noOperationFailsAndItStillAnswersAfterwards()
      throws Exception {
    org.junit.jupiter.api.Assertions.assertTrue(
        works("unshare", "-rn", "true") && works("socat", "-V"),
        "needs unshare -rn (user and network namespaces) and socat to keep OpenSSL's responder off every interface but its own");
    SigningKey ca = fixture.keys.key("intermediate-a");
    Path files = dir.resolve("openssl-responder");
    OpensslServices.ocsp(
        files,
        ca.certificate(),
        ca.certificate(),
        ca.privateKey(),
        List.of(fixture.pki.certificate("signer-rsa2048-1")),
        List.of(),
        1);
    Path socket = files.resolve("ocsp.sock");
    int port = freePort();
    String leaf = fixture.pki.certificatePem("signer-rsa2048-1").toString();
    String issuer = fixture.pki.certificatePem("intermediate-a").toString();
    List<Process> started = new java.util.ArrayList<>();
    try {
      // -nrequest bounds it even if nothing stops it; timeout bounds the whole namespace
      started.add(
          new ProcessBuilder(
                  "timeout",
                  "120",
                  "unshare",
                  "-rn",
                  "sh",
                  "-c",
                  "ip link set lo up && { openssl ocsp -index index.txt -port 18080"
                      + " -rsigner signer.pem -rkey signer.key -CA ca.pem -nmin 5 -nrequest 100000 & exec socat UNIX-LISTEN:"
                      + socket
                      + ",fork TCP:127.0.0.1:18080; }")
              .directory(files.toFile())
              .redirectErrorStream(true)
              .redirectOutput(files.resolve("responder.log").toFile())
              .start());
      started.add(
          new ProcessBuilder(
                  "timeout",
                  "120",
                  "socat",
                  "TCP-LISTEN:" + port + ",bind=127.0.0.1,fork,reuseaddr",
                  "UNIX-CONNECT:" + socket)
              .redirectErrorStream(true)
              .redirectOutput(files.resolve("relay.log").toFile())
              .start());
      String url = "http://127.0.0.1:" + port + "/";
      Await.until(
          java.time.Duration.ofSeconds(30),
          "OpenSSL's responder answering its own client",
          () -> opensslAsks(url, issuer, leaf).contains(": good"));
      int code =
          run(
              "run",
              "ocsp",
              "--target",
              url,
              "-p",
              "cert=" + leaf,
              "-p",
              "issuer=" + issuer,
              "--concurrency",
              "1",
              "--warmup",
              "0x1s",
              "--measure",
              "1x1s",
              "--quiet",
              "--out",
              "openssl.json");
      assertEquals(
          0, code, err.toString() + out + Files.readString(files.resolve("responder.log")));
      LevelResult level =
          RunResultJson.read(dir.resolve("openssl.json")).workloads().get(0).levels().get(0);
      assertEquals(0, level.counts().failed(), level.errors().toString());
      assertTrue(level.counts().succeeded() > 0, level.counts().toString());
      assertTrue(
          opensslAsks(url, issuer, leaf).contains(": good"),
          "OpenSSL's client still gets its answer after the run");
    } finally {
      for (Process p : started) {
        p.descendants().forEach(ProcessHandle::destroy);
        p.destroy();
      }
      for (Process p : started) p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
    }
  }

  static boolean works(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (Exception e) {
      return false;
    }
  }

  /**
   * What {@code openssl ocsp} as a client prints for {@code cert} (its answer, not its signature,
   * is what is asked: -noverify).
   */
  static String opensslAsks(String url, String issuer, String cert) throws Exception {
    Process p =
        new ProcessBuilder(
                "openssl",
                "ocsp",
                "-url",
                url,
                "-issuer",
                issuer,
                "-cert",
                cert,
                "-noverify",
                "-timeout",
                "5")
            .redirectErrorStream(true)
            .start();
    String printed = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) p.destroyForcibly();
    return printed;
  }
}
