package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.engine.ProgressListener;
import io.pkibench.report.StudyTables;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.StudyRecord;
import io.pkibench.session.ForkedSeries;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Security;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ssl study: originals tried and substitutes named, then a quick run of one engine through the
 * study shape.
 */
@org.junit.jupiter.api.Timeout(
    value = 10,
    unit = TimeUnit.MINUTES) // a study talks to its service JVMs: a hang fails, said as one
class SslStudyTest {
  /**
   * Each quick iteration cut to half a second, as {@code study --smoke}: the suite proves the study
   * runs and checks, not its figures.
   */
  static final Duration SMOKE = Duration.ofMillis(500);

  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  static StudyOptions quick() {
    return new StudyOptions(true, Duration.ofSeconds(5), "software", dir.resolve("pki"), null)
        .withQuickIterationsOfAtMost(SMOKE);
  }

  /**
   * {@code --client-auth need} wired without a study run (the comparison itself is
   * bench/ssl-peers'): both servers are started demanding a client certificate, the report says so,
   * and the study's own https-rr step against its nginx service (a {@code serve nginx} JVM, as the
   * study starts it) passes with the certificate and fails every request without.
   */
  @Test
  void clientAuthNeed_bothServersDemandACertificate_theStudysStepPresentsIt() throws Exception {
    assertTrue(
        new SslStudy(List.of("openssl"), List.of("pkibench"), null, true)
            .problems(quick()).stream()
                .anyMatch(
                    p -> p.startsWith("--client-auth need: only with --server pkibench,nginx")),
        "IBM's table had no client certificates");
    Path nginxDir = dir.resolve("mutual-nginx");
    var study = new SslStudy(List.of("openssl"), List.of("pkibench", "nginx"), nginxDir, true);
    assertEquals(List.of(), study.problems(quick()));
    List<ServiceSpec> specs = study.services(quick());
    for (var spec : specs) {
      int at = spec.args().indexOf("--client-auth");
      assertTrue(
          at >= 0 && spec.args().get(at + 1).equals("need"),
          spec.name() + " demands a client certificate: " + spec.args());
    }
    assertTrue(
        study.notes(quick()).stream()
            .anyMatch(
                n -> n.startsWith("mutual TLS on every server: nginx with ssl_verify_client on")),
        "the report says it");
    var nginxSpec = specs.stream().filter(s -> s.name().equals(SslStudy.NGINX)).toList();
    List<String> log = new ArrayList<>();
    try (RunningServices services =
        RunningServices.plan(
            nginxSpec, ForkedSeries.thisJvm(), Map.of("PATH", System.getenv("PATH")), log::add)) {
      services.startAll();
      assertTrue(
          Files.readString(nginxDir.resolve("nginx.conf")).contains("ssl_verify_client on;"),
          "nginx verifies clients");
      var step =
          new TlsServerComparison(List.of("openssl"), List.of("pkibench", "nginx"), nginxDir, true)
              .spec(TlsServerComparison.HTTPS.get(0), services.url(SslStudy.NGINX));
      var factory = WorkloadCatalog.builtIn().find(step.name()).orElseThrow();
      try (var w = fixture.workload(factory, step.params())) {
        MeasuredRun.of("https-rr mutual", w, Duration.ofMillis(700)).assertEverySucceeded();
      }
      Map<String, String> anonymous = new HashMap<>(step.params());
      anonymous.remove("client");
      try (var w = fixture.workload(factory, anonymous)) {
        MeasuredRun.of("https-rr without certificate", w, Duration.ofMillis(700))
            .assertEveryFailedWith("No required SSL certificate was sent");
      }
    }
  }

  /** Its rows count no verified: the notes say why (the handshake is the checked answer). */
  @Test
  void notes_sayWhyNothingIsVerifiedApart() {
    List<String> notes = new SslStudy(List.of("jsse", "openssl")).notes(quick());
    assertTrue(notes.contains(SslStudy.CHECKED), notes.toString());
    assertTrue(SslStudy.CHECKED.contains("CertificateVerify"), SslStudy.CHECKED);
  }

  @Test
  void choices_refusedOriginalsNamedWithTheirSubstitute_neverSilent() {
    var full = new StudyOptions(false, Duration.ofSeconds(5), "software", dir.resolve("pki"), null);
    List<IbmTlsTable.Choice> choices = new IbmTlsTable(List.of("jsse", "openssl")).choices(full);
    assertEquals(2 * IbmTlsTable.COLUMNS.size(), choices.size());
    for (IbmTlsTable.Choice c : choices) {
      if (c.substitutedBecause() == null) {
        assertEquals(
            c.engine().suiteName(c.column().suite()),
            c.measured().suite(),
            "measured as the original (JSSE names it SSL_…): " + c);
        assertEquals("TLSv1", c.measured().protocol());
      } else {
        assertTrue(
            c.substitutedBecause().contains(c.column().suite())
                && c.substitutedBecause().contains("refused"),
            c.toString());
        if (c.measured() != null)
          assertTrue(c.substitutedBecause().contains("substitute is"), c.toString());
      }
    }
    // JSSE, given the legacy security properties in its own JVM, speaks every original: RC4, 3DES,
    // TLS 1.0, RSA key exchange, RSA-1024
    for (IbmTlsTable.Choice c :
        choices.stream().filter(c -> c.engine().flag.equals("jsse")).toList()) {
      assertNull(c.substitutedBecause(), c.toString());
      assertEquals("jsse-original", c.service(), c.toString());
    }
    // BoringSSL has no RC4 or 3DES: the same key exchange, key and TLS 1.0 with AES-CBC, the TDES
    // cell said to be FASTER
    for (IbmTlsTable.Choice c :
        choices.stream().filter(c -> c.engine().flag.equals("openssl")).toList()) {
      assertEquals("TLSv1", c.measured().protocol(), c.toString());
      assertEquals("rsa1024", c.measured().keyFlag(), c.toString());
      assertTrue(c.measured().suite().startsWith("TLS_RSA_WITH_AES_"), c.toString());
      assertEquals(
          c.column().label().startsWith("TDES"),
          c.substitutedBecause() != null && c.substitutedBecause().contains("FASTER"),
          c.toString());
    }
    // the JVM running the tests (and the study's own process) kept the JDK's list
    assertTrue(Security.getProperty("jdk.tls.disabledAlgorithms").contains("3DES_EDE_CBC"));
    assertFalse(LegacyTls.disabledAlgorithms().contains("3DES_EDE_CBC"));
  }

  /**
   * Where both engines refuse a column's original, both measure the first substitute both speak.
   */
  @Test
  void choices_bothEnginesRefuse_sameSubstituteForBoth() {
    var full = new StudyOptions(false, Duration.ofSeconds(5), "software", dir.resolve("pki"), null);
    // RC4 on BoringSSL is refused; TLS 1.2 with RSA-1024 and AES-CBC is spoken by both engines here
    var column =
        new IbmTlsTable.Column(
            "X",
            "TLS_RSA_WITH_RC4_128_MD5",
            List.of(
                new IbmTlsTable.Substitute(
                    "TLS_RSA_WITH_AES_128_CBC_SHA", "TLSv1.2", "rsa1024", "both speak it", false)));
    List<IbmTlsTable.Choice> choices =
        new IbmTlsTable(List.of("openssl")).choicesFor(full, List.of(column));
    assertEquals(1, choices.size());
    assertEquals("TLS_RSA_WITH_AES_128_CBC_SHA", choices.get(0).measured().suite());
    assertEquals("openssl-rsa1024-tlsv1.2", choices.get(0).service());
  }

  @Test
  void quickStudy_oneEngine_gridOfPerCpuFiguresAndRelativeCost() throws Exception {
    Path out = dir.resolve("ssl.json");
    List<String> log = new ArrayList<>();
    StudyRunner runner =
        new StudyRunner(
            WorkloadCatalog.builtIn(),
            new StudyRunner.Options(
                out,
                InstantSource.system(),
                ProgressListener.NONE,
                log::add,
                Map.of("PATH", System.getenv("PATH")),
                ForkedSeries.thisJvm(),
                spec -> fixture.keys,
                () -> fixture.pki,
                Duration.ofSeconds(30)));
    RunResult result =
        runner.run(
            new SslStudy(List.of("openssl")),
            quick(),
            fixture.environment("pkibench study ssl --quick --tls openssl"));
    assertEquals(RunStatus.COMPLETE, result.status(), String.join("\n", log));
    StudyRecord study = RunResultJson.read(out).study();
    assertEquals(StudyRecord.Unit.TPS_PER_SERVER_CPU, study.unit());
    StudyRecord.Grid grid = study.grid();
    assertNotNull(grid);
    assertEquals(
        List.of("plain", "RC4/MD5", "RC4/SHA-1", "AES128/SHA-1", "AES256/SHA-1", "TDES/SHA-1"),
        grid.columns(),
        "quick measures all six");
    assertEquals(3 + 3 * 5, grid.cells().size());
    for (StudyRecord.Cell cell : grid.cells()) {
      var row =
          StudyTables.rows(result).stream()
              .filter(r -> r.label().equals(cell.step()))
              .findFirst()
              .orElseThrow();
      LevelResult level = row.level().orElseThrow(() -> new AssertionError(cell + " not measured"));
      assertEquals(0, level.counts().failed(), cell.step() + ": " + level.errors());
      assertTrue(
          level.cpu().opsPerCpuSecond() != null && level.cpu().opsPerCpuSecond() > 0,
          cell + ": the server's CPU was measured");
    }
    // each cell's CPU was its own server's: the plain server's pid for plain, the TLS server's for
    // the others
    var services = study.services().stream().map(StudyRecord.ServiceRecord::name).toList();
    assertEquals(
        List.of("plain", "openssl-original"),
        services,
        "BoringSSL's substitutes keep the original's TLS 1.0 and RSA-1024");

    String hlog = Files.readString(dir.resolve("ssl.hlog"));
    assertTrue(
        hlog.contains("Tag=RR_128_B___AES128/SHA-1_[openssl].measure/tls-rr/c4/"),
        "tags are printable ASCII without spaces");
    assertTrue(hlog.chars().allMatch(c -> c < 128), "the interval log is ASCII");

    String table = StudyTables.terminal(result);
    assertTrue(table.contains("transactions per server CPU-second (openssl)"), table);
    assertTrue(
        table.contains(
            "relative CPU cost per transaction, plain = 1 (openssl); the original's ratio in brackets"),
        table);
    assertTrue(
        table.contains("(orig. 7.98)") && table.contains("(orig. 12.96)"),
        "IBM's table 5.7 beside ours (ACRR and Stream AES128): " + table);
    assertTrue(
        table.contains("* RC4/SHA-1 (openssl): the original (TLS_RSA_WITH_RC4_128_SHA"), table);
    assertTrue(
        table.contains(
            "AES128/SHA-1 (openssl): measured as the original, TLS_RSA_WITH_AES_128_CBC_SHA, TLSv1"),
        table);
    assertTrue(
        table.contains("RR 128 B · AES128/SHA-1 [openssl]"),
        "the published figure beside ours: " + table);
    // beside the original, the substituted RC4 rows are starred and the measured-as-original AES
    // rows are not
    List<String[]> beside = StudyTables.published(result);
    List<String[]> rc4 =
        beside.subList(1, beside.size()).stream().filter(r -> r[0].contains("RC4/SHA-1")).toList();
    List<String[]> asOriginal =
        beside.subList(1, beside.size()).stream()
            .filter(r -> r[0].contains("AES128/SHA-1") || r[0].contains("plain"))
            .toList();
    assertFalse(
        rc4.isEmpty() || asOriginal.isEmpty(),
        "both kinds of row beside the original: " + beside.stream().map(r -> r[0]).toList());
    for (String[] r : rc4) assertTrue(r[3].endsWith(" *"), String.join(" | ", r));
    for (String[] r : asOriginal) assertFalse(r[3].endsWith(" *"), String.join(" | ", r));
    assertTrue(
        table.contains("* ours measured a substitute for the original's configuration"), table);
  }

  /**
   * --server pkibench,nginx: the HTTPS rows on serve tlsecho and on nginx started from its
   * generated configuration, nginx the baseline.
   */
  @Test
  void quickPeers_tlsechoBesideNginx_everyCellMeasuredAndSetAgainstNginx() throws Exception {
    Path out = dir.resolve("peers.json");
    List<String> log = new ArrayList<>();
    StudyRunner runner =
        new StudyRunner(
            WorkloadCatalog.builtIn(),
            new StudyRunner.Options(
                out,
                InstantSource.system(),
                ProgressListener.NONE,
                log::add,
                Map.of("PATH", System.getenv("PATH")),
                ForkedSeries.thisJvm(),
                spec -> fixture.keys,
                () -> fixture.pki,
                Duration.ofSeconds(30)));
    Path nginxDir = dir.resolve("peers-nginx");
    var study = new SslStudy(List.of("jsse", "openssl"), List.of("pkibench", "nginx"), nginxDir);
    assertEquals(List.of(), study.problems(quick()));
    RunResult result =
        runner.run(
            study,
            quick(),
            fixture.environment(
                "pkibench study ssl --quick --tls jsse,openssl --server pkibench,nginx"));
    assertEquals(RunStatus.COMPLETE, result.status(), String.join("\n", log));
    StudyRecord record = RunResultJson.read(out).study();
    StudyRecord.Grid grid = record.grid();
    assertEquals(List.of("nginx", "pkibench"), grid.columns());
    assertEquals("nginx", grid.baseline());
    for (StudyRecord.Cell cell : grid.cells()) {
      var row =
          StudyTables.rows(result).stream()
              .filter(r -> r.label().equals(cell.step()))
              .findFirst()
              .orElseThrow();
      LevelResult level = row.level().orElseThrow(() -> new AssertionError(cell + " not measured"));
      assertEquals(0, level.counts().failed(), cell.step() + ": " + level.errors());
      assertTrue(
          level.counts().succeeded() > 0
              && level.cpu().opsPerCpuSecond() != null
              && level.cpu().opsPerCpuSecond() > 0,
          cell + ": its server's CPU");
    }
    assertTrue(
        Files.readString(nginxDir.resolve("nginx.conf"))
            .contains("ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256;"),
        "nginx ran from the configuration generated beside the result");
    // like for like as started (resumption off, BoringSSL's groups everywhere): every cell compared
    for (String engine : List.of("jsse", "openssl"))
      assertTrue(
          record.notes().stream()
              .anyMatch(n -> n.startsWith("pkibench-" + engine + " is like for like with nginx")),
          engine + ": " + String.join("\n", record.notes()));
    assertEquals(
        List.of(),
        grid.cells().stream().filter(c -> c.notComparedBecause() != null).toList(),
        "no cell left uncompared");
    assertTrue(
        Files.readString(nginxDir.resolve("nginx.conf"))
            .contains("ssl_ecdh_curve X25519:prime256v1:secp384r1;"),
        "nginx accepts BoringSSL's groups");
    String table = StudyTables.terminal(result);
    assertTrue(table.contains("relative CPU cost per transaction, nginx = 1 (openssl)"), table);
    assertTrue(
        StudySeedTest.line(
                table.substring(
                    table.indexOf("relative CPU cost per transaction, nginx = 1 (jsse)")),
                "HTTPS ACRR 8 KB")
            .matches(".*1\\.00\\s+[0-9.]+$"),
        "JSSE's cell set against nginx's: " + table);
    assertTrue(
        table.contains("worker processes"), "the report states nginx's worker count: " + table);
  }
}
