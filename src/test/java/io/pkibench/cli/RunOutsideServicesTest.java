package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.keys.SigningKey;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.ThresholdVerdict;
import io.pkibench.results.WorkloadResult;
import io.pkibench.server.crl.RevocationServer;
import io.pkibench.testing.DerFront;
import io.pkibench.testing.OpensslServices;
import io.pkibench.testing.TestKeys;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run tsp} and {@code run ocsp} as a user types them: what stops a run, and what its table
 * and result say.
 */
@org.junit.jupiter.api.Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
class RunOutsideServicesTest {
  @TempDir Path dir;
  @TempDir static Path shared;

  /**
   * One test PKI for the class (making one costs seconds); its CRL and OCSP URLs name a free
   * loopback port.
   */
  static TestKeys fixture;

  @org.junit.jupiter.api.BeforeAll
  static void pki() throws Exception {
    fixture =
        TestKeys.in(
            shared, "http://127.0.0.1:" + io.pkibench.testing.ReservedPorts.one() + "/crl/");
  }

  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

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

  static final String[] SHORT = {
    "--concurrency", "1", "--warmup", "0x1s", "--measure", "1x1s", "--quiet"
  };

  String[] args(String... first) {
    String[] all = java.util.Arrays.copyOf(first, first.length + SHORT.length);
    System.arraycopy(SHORT, 0, all, first.length, SHORT.length);
    return all;
  }

  @Test
  void run_unreachableTarget_stopsBeforeItBeginsNamingTheUrl() {
    assertEquals(
        2, run(args("run", "tsp", "--target", "http://127.0.0.1:1/tsa", "--out", "tsp.json")));
    assertTrue(
        err.toString()
            .contains(
                "--target http://127.0.0.1:1/tsa: nothing answers there (connection refused)"),
        err.toString());
    assertFalse(Files.exists(dir.resolve("tsp.json")), "nothing run, nothing written");
    // the check signs once, as a worker would: with the class's test PKI
    assertEquals(
        2,
        run(
            args(
                "run",
                "cades-t",
                "-p",
                "tsa=http://127.0.0.1:1/",
                "--pki",
                shared.resolve("pki").toString(),
                "--out",
                "cades.json")));
    assertTrue(
        err.toString()
            .contains("-p tsa http://127.0.0.1:1/: nothing answers there (connection refused)"),
        err.toString());
    assertFalse(Files.exists(dir.resolve("cades.json")), "nothing run, nothing written");
  }

  @Test
  void run_tspWithoutTrust_tableAndResultSayTokensNotVerified() throws Exception {
    SigningKey tsa = fixture.keys.key("tsa");
    try (DerFront front =
        new DerFront(
            "application/timestamp-reply",
            OpensslServices.tsa(
                dir.resolve("openssl-ts"), tsa.certificate(), tsa.privateKey(), tsa.chain(), 1))) {
      assertEquals(
          0,
          run(
              args(
                  "run",
                  "tsp",
                  "--target",
                  front.url("/tsa"),
                  "--out",
                  "tsp.json",
                  "--html",
                  "tsp.html")),
          err.toString());
    }
    assertTrue(
        out.toString().contains("note: tokens not verified: no -p trust given"), out.toString());
    assertTrue(
        Files.readString(dir.resolve("tsp.html")).contains("<b>Note:</b> tokens not verified"),
        "the HTML report says it too");
    WorkloadResult w = RunResultJson.read(dir.resolve("tsp.json")).workloads().get(0);
    assertTrue(w.notes().get(0).startsWith("tokens not verified"), w.notes().toString());
    assertTrue(
        w.levels().get(0).counts().succeeded() > 0 && w.levels().get(0).counts().failed() == 0,
        w.levels().get(0).counts().toString());
  }

  /**
   * Seven certificates, one revoked, each expected revoked: six distinct reasons (one per serial),
   * of which the table shows the five most frequent and says one more is in the file; the statuses
   * are counted in table and result.
   */
  @Test
  void run_ocspWithUnexpectedStatuses_countsThemAndShowsTheFirstReasons() throws Exception {
    List<String> aliases =
        List.of(
            "signer-rsa2048-revoked",
            "signer-rsa2048-1",
            "signer-rsa2048-3",
            "signer-ecdsa-p256-1",
            "signer-ecdsa-p256-3",
            "tls-server",
            "tsa");
    String certs =
        aliases.stream()
            .map(a -> fixture.pki.certificatePem(a).toString())
            .collect(Collectors.joining(","));
    int port =
        Integer.parseInt(fixture.pki.manifest().crlBaseUrl().replaceAll(".*:(\\d+)/.*", "$1"));
    try (RevocationServer server = new RevocationServer(fixture.pki, "127.0.0.1", port)) {
      server.start();
      assertEquals(
          0,
          run(
              args(
                  "run",
                  "ocsp",
                  "--target",
                  server.baseUrl() + "/ocsp/intermediate-a",
                  "-p",
                  "cert=" + certs,
                  "-p",
                  "issuer=" + fixture.pki.certificatePem("intermediate-a"),
                  "-p",
                  "expect=revoked",
                  "-p",
                  "method=get",
                  "--out",
                  "ocsp.json")),
          err.toString());
    }
    String table = out.toString();
    WorkloadResult w = RunResultJson.read(dir.resolve("ocsp.json")).workloads().get(0);
    assertTrue(
        w.outcomes().get("good") > 0
            && w.outcomes().get("revoked") > 0
            && w.outcomes().get("unknown") == 0,
        w.outcomes().toString());
    assertTrue(
        table.contains("answers, all levels, warm-ups included: good " + w.outcomes().get("good")),
        table);
    assertEquals(6, w.levels().get(0).errors().size(), w.levels().get(0).errors().toString());
    assertEquals(
        5,
        table
            .lines()
            .filter(
                l ->
                    l.contains(" error ×")
                        && l.contains("expected revoked, the responder says good"))
            .count(),
        table);
    assertTrue(table.contains("… 1 more distinct reasons"), table);
  }

  /**
   * {@code run --threshold errors<…} on real failures: a good and a revoked certificate, each
   * expected revoked, so the good one's answers are counted as errors by the workload itself; the
   * error rate is failed over started.
   */
  @Test
  void run_ocspAnswersNotExpected_errorRateIsFailedOverStartedAndFailsItsLimit() throws Exception {
    String certs =
        fixture.pki.certificatePem("signer-rsa2048-revoked")
            + ","
            + fixture.pki.certificatePem("signer-rsa2048-1");
    int port =
        Integer.parseInt(fixture.pki.manifest().crlBaseUrl().replaceAll(".*:(\\d+)/.*", "$1"));
    int code;
    try (RevocationServer server = new RevocationServer(fixture.pki, "127.0.0.1", port)) {
      server.start();
      code =
          run(
              "run",
              "ocsp",
              "--target",
              server.baseUrl() + "/ocsp/intermediate-a",
              "-p",
              "cert=" + certs,
              "-p",
              "issuer=" + fixture.pki.certificatePem("intermediate-a"),
              "-p",
              "expect=revoked",
              "--concurrency",
              "1",
              "--warmup",
              "0x1s",
              "--measure",
              "1x1s",
              "--quiet",
              "-o",
              "ocsp.json",
              "--threshold",
              "errors<1%",
              "--threshold",
              "errors>=10%");
    }
    assertEquals(3, code, err.toString());
    RunResult r = RunResultJson.read(dir.resolve("ocsp.json"));
    LevelResult level = r.workloads().get(0).levels().get(0);
    assertTrue(
        level.counts().failed() > 0, "the good certificate's answers failed: " + level.counts());
    ThresholdVerdict under1 = r.thresholds().get(0);
    assertEquals(
        level.counts().failed() * 100.0 / level.counts().started(),
        under1.observed(),
        1e-9,
        "failed over started, in percent");
    assertFalse(under1.passed(), under1.toString());
    assertTrue(
        r.thresholds().get(1).passed(), "about half the answers failed: " + r.thresholds().get(1));
    assertTrue(out.toString().contains("✗ errors<1%"), out.toString());
  }
}
