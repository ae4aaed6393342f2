package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.analysis.ComparisonTest;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.pki.TestPki;
import io.pkibench.report.KeySourceShootout;
import io.pkibench.results.LevelResult;
import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.server.keyserver.KeyGrants;
import io.pkibench.server.keyserver.KeyServer;
import io.pkibench.server.keyserver.KeyService;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Commands run in-process against a context: output and exit code are what is asserted. */
@org.junit.jupiter.api.Timeout(
    value = 5,
    unit =
        java.util.concurrent.TimeUnit
            .MINUTES) // some commands start reference services: a hang fails, said as one
class CliTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return run(Map.of(), args);
  }

  int run(Map<String, String> env, String... args) {
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            env,
            InstantSource.system(),
            dir,
            false);
    return Main.execute(ctx, args);
  }

  /** A bad TLS client file is refused before anything runs, exit 2, each naming its flag. */
  @Test
  void runTls_badTrustAndKeyFiles_refusedAtStartNamingEachFlag() throws Exception {
    java.nio.file.Files.writeString(dir.resolve("cert.pem"), "not a certificate");
    assertEquals(
        2,
        run(
            "run",
            "tls-rr",
            "--target",
            "tls://127.0.0.1:1",
            "-p",
            "trust=missing-ca.pem",
            "-p",
            "client-cert=cert.pem",
            "-p",
            "client-key=missing.key",
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x1s"));
    for (String named : List.of("-p trust=missing-ca.pem", "-p client-cert=cert.pem"))
      assertTrue(err.toString().contains(named), err.toString());
    assertEquals(
        2,
        run(
            "run",
            "https-rr",
            "--target",
            "https://127.0.0.1:1/x",
            "-p",
            "client=tls-client",
            "-p",
            "client-key=k.pem"));
    assertTrue(err.toString().contains("give one identity"), err.toString());
  }

  @Test
  void study_noNameOrBadOptions_exit2BeforeAnyServiceStarts() {
    assertEquals(2, run("study"));
    assertTrue(err.toString().contains("name a study: restpki"), err.toString());
    assertEquals(2, run("study", "restpki", "--duration", "2s", "--keys", "hsm", "--pki", "pki"));
    String e = err.toString();
    assertTrue(
        e.contains("--duration: measure each type at least 5s") && e.contains("--keys hsm"),
        "every problem at once:\n" + e);
    assertTrue(!Files.exists(dir.resolve("restpki.json")), "nothing run, nothing written");
  }

  @Test
  void run_unknownFlag_exit2NamingTheFlag() {
    assertEquals(2, run("run", "noop", "--bogus", "3"));
    assertTrue(err.toString().contains("--bogus"), err.toString());
    assertEquals(2, run("run", "noop", "--concurency", "2"));
    String said = err.toString();
    assertTrue(
        said.contains("Unknown option: '--concurency'") && said.contains("--concurrency"),
        "a near miss gets the flag it missed: " + said);
    assertTrue(
        said.contains("see 'pkibench run --help' for every flag and an example")
            && !said.contains("Usage:"),
        "the message and where to read more, not forty lines of usage after it: " + said);
  }

  @Test
  void run_unknownWorkload_exit2WithSuggestion() {
    assertEquals(2, run("run", "sgn"));
    assertTrue(err.toString().contains("unknown workload 'sgn'"), err.toString());
    assertTrue(err.toString().contains("did you mean 'sign'"), err.toString());
    assertTrue(err.toString().contains("pkibench list"), err.toString());
  }

  @Test
  void run_badDuration_exit2NamingFlagAndSyntax() {
    assertEquals(2, run("run", "noop", "--measure", "5xfoo"));
    assertTrue(err.toString().contains("--measure"), err.toString());
    assertTrue(err.toString().contains("500ms, 10s, 5m"), err.toString());
  }

  @Test
  void run_severalBadFlags_reportsEachAtOnce() {
    assertEquals(
        2,
        run(
            "run",
            "sign",
            "-p",
            "alg=rsa1024",
            "-p",
            "colour=red",
            "--concurrency",
            "0",
            "--keys",
            "hsm",
            "--cpu",
            "gpu"));
    String e = err.toString();
    for (String expected :
        new String[] {"-p alg=rsa1024", "-p colour", "--concurrency", "--keys hsm", "--cpu"}) {
      assertTrue(e.contains(expected), "missing " + expected + " in:\n" + e);
    }
  }

  @Test
  void run_pkcs11WithoutPin_failsNamingBothWaysToGiveIt() throws Exception {
    Path config =
        Files.writeString(dir.resolve("hsm.cfg"), "name = x\nlibrary = /nonexistent.so\n");
    int code =
        run(
            "run",
            "sign",
            "--keys",
            "pkcs11:" + config,
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x200ms",
            "--out",
            "r.json",
            "--pki",
            "pki");
    // a token that cannot be opened is bad input, found before the run: exit 2, nothing written
    assertEquals(ExitCodes.USAGE, code, err.toString());
    assertTrue(err.toString().contains("--pin-file"), err.toString());
    assertTrue(err.toString().contains("PKIBENCH_PKCS11_PIN"), err.toString());
    assertFalse(Files.exists(dir.resolve("r.json")), "no result for a run that never started");
  }

  @Test
  void run_noop_writesResultAndPrintsTable() throws Exception {
    int code =
        run(
            "run",
            "noop",
            "--concurrency",
            "1,2",
            "--warmup",
            "1x200ms",
            "--measure",
            "2x300ms",
            "--out",
            "out/noop.json",
            "--html",
            "out/noop.html");
    assertEquals(0, code, err.toString());
    RunResult r = RunResultJson.read(dir.resolve("out/noop.json"));
    assertEquals(RunStatus.COMPLETE, r.status());
    assertEquals(2, r.workloads().get(0).levels().size());
    for (LevelResult l : r.workloads().get(0).levels()) {
      assertEquals(l.counts().started(), l.counts().succeeded() + l.counts().failed());
      assertEquals(3, l.iterations().size());
      assertTrue(l.throughput().mean() > 1000, "noop is fast: " + l.throughput());
    }
    assertTrue(Files.size(dir.resolve("out/noop.hlog")) > 0);
    assertTrue(
        Files.readString(dir.resolve("out/noop.html")).contains("id=\"throughput-1\""),
        "--html writes the report");
    assertTrue(out.toString().contains("conc"), out.toString());
    assertTrue(r.environment().commandLine().startsWith("pkibench run noop"));

    out.getBuffer().setLength(0);
    assertEquals(0, run("report", "out/noop.json", "--format", "csv"));
    assertEquals(3, out.toString().lines().count(), out.toString());
  }

  @Test
  void run_fork_eachSeriesInAFreshJvmAndIntervalsCopied() throws Exception {
    int code =
        run(
            "run",
            "noop",
            "--fork",
            "--series",
            "2",
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "2x300ms",
            "--out",
            "forked.json");
    assertEquals(0, code, err.toString());
    LevelResult level =
        RunResultJson.read(dir.resolve("forked.json")).workloads().get(0).levels().get(0);
    assertEquals(4, level.iterations().size(), "2 series x 2 iterations");
    assertEquals(
        java.util.List.of(1, 1, 2, 2), level.iterations().stream().map(i -> i.series()).toList());
    assertTrue(
        err.toString().contains("[fork]"), "the child's progress reaches the parent's stderr");
    String hlog = Files.readString(dir.resolve("forked.hlog"));
    assertTrue(hlog.contains("Tag=noop/c1/s1/m1") && hlog.contains("Tag=noop/c1/s2/m2"), hlog);
    try (var left = Files.list(dir)) {
      assertEquals(
          java.util.List.of(),
          left.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("series-")).toList(),
          "no request or response file is left behind");
    }
  }

  @Test
  void run_openLoopRates_recordsTargetAchievedAndUncorrected() throws Exception {
    int code =
        run(
            "run",
            "noop",
            "--rates",
            "200,400/s",
            "--concurrency",
            "2",
            "--warmup",
            "0x1s",
            "--measure",
            "2x500ms",
            "--out",
            "open.json");
    assertEquals(0, code, err.toString());
    RunResult r = RunResultJson.read(dir.resolve("open.json"));
    var levels = r.workloads().get(0).levels();
    assertEquals(2, levels.size());
    assertEquals(200.0, levels.get(0).openLoop().targetRate());
    assertEquals(400.0, levels.get(1).openLoop().targetRate());
    for (LevelResult l : levels) {
      // whether noop keeps up is the machine's business (a stalled VM misses starts): what the file
      // must say is
      // where every start of the timetable went, 2 × 500 ms of it, made or counted missed, and the
      // rate achieved
      long offered = Math.round(l.openLoop().targetRate() * 1.0);
      assertEquals(
          offered,
          l.counts().started() + l.openLoop().missedStarts(),
          4,
          "every scheduled start made or counted missed");
      assertTrue(
          l.openLoop().achievedRate() > 0
              && l.openLoop().achievedRate() <= l.openLoop().targetRate() * 1.05,
          l.openLoop().toString());
      assertEquals(l.counts().succeeded(), l.openLoop().uncorrectedLatencyNanos().count());
    }
    assertTrue(out.toString().contains("rate/s"), out.toString());
    assertTrue(
        r.analysis()
            .get("workloads")
            .get(0)
            .get("verdict")
            .get("text")
            .asText()
            .contains("the achieved rate"),
        "an open-loop verdict speaks of rates: " + r.analysis());
  }

  @Test
  void run_badRate_exit2NamingTheFlag() {
    assertEquals(2, run("run", "noop", "--rate", "fast"));
    assertTrue(
        err.toString().contains("--rate") && err.toString().contains("500/s"), err.toString());
    assertEquals(2, run("run", "noop", "--rate", "100", "--concurrency", "1,2"));
    assertTrue(err.toString().contains("one number of workers"), err.toString());
  }

  @Test
  void report_htmlAndJmhJson_writtenFromTheFileAlone() throws Exception {
    RunResultJson.write(
        ResultFixtures.closedRun(
            "sign",
            new int[] {1, 2, 4},
            new double[][] {{100, 101}, {190, 192}, {300, 310}},
            new long[] {1_000_000, 1_100_000, 1_500_000}),
        dir.resolve("r.json"));
    assertEquals(
        0,
        run(
            "report",
            "r.json",
            "--html",
            "out/report.html",
            "--format",
            "jmh-json",
            "--target-rate",
            "1000"));
    assertTrue(Files.readString(dir.resolve("out/report.html")).contains("<svg"));
    assertTrue(
        out.toString().startsWith("[") && out.toString().contains("\"primaryMetric\""),
        out.toString());
    out.getBuffer().setLength(0);
    assertEquals(0, run("report", "r.json", "--target-rate", "1000"));
    assertTrue(
        out.toString().contains("to sustain 1000 ops/s at 70% CPU you need"), out.toString());
    assertEquals(2, run("report", "r.json", "--baseline", "nothing"));
    assertTrue(err.toString().contains("--baseline nothing"), err.toString());
  }

  @Test
  void compare_exitCodes_0WhenHolding3WhenFailing2WhenBad() throws Exception {
    RunResultJson.write(ComparisonTest.BASE, dir.resolve("base.json"));
    RunResultJson.write(ComparisonTest.NEW, dir.resolve("new.json"));
    assertEquals(
        5,
        run("compare", "base.json", "base.json", "--threshold", "throughput:-5%"),
        "at 99% the fixture's ±3% iterations cannot rule out a 5% drop at c=2: " + out);
    assertTrue(out.toString().contains("measured iterations a side would tell"), out.toString());
    out.getBuffer().setLength(0);
    assertEquals(
        0,
        run(
            "compare",
            "base.json",
            "base.json",
            "--threshold",
            "throughput:-5%",
            "--confidence",
            "95"));
    assertTrue(out.toString().contains("every threshold holds"), out.toString());
    assertEquals(2, run("compare", "base.json", "base.json", "--confidence", "100"));
    assertTrue(err.toString().contains("--confidence 100"), err.toString());
    assertEquals(
        3,
        run(
            "compare",
            "base.json",
            "new.json",
            "--threshold",
            "throughput:-5%",
            "--format",
            "markdown"));
    assertTrue(out.toString().contains("**FAIL**"), out.toString());
    assertEquals(2, run("compare", "base.json", "new.json", "--threshold", "throughput:+5%"));
    assertTrue(err.toString().contains("throughput>-5%"), err.toString());
    assertEquals(2, run("compare", "base.json", "missing.json"));
    assertTrue(err.toString().contains("NEW missing.json: no such file"), err.toString());
  }

  /**
   * Files named on the command line are checked before anything runs: a missing PIN file, an --out
   * under a file.
   */
  @Test
  void run_missingPinFileOrUnwritableOut_exit2NamingEachBeforeRunning() throws Exception {
    Files.writeString(dir.resolve("a-file"), "x");
    assertEquals(
        2, run("run", "noop", "--pin-file", "no-such-pin.txt", "--out", "a-file/run.json"));
    String e = err.toString();
    assertTrue(
        e.contains("--pin-file no-such-pin.txt: no such file; it must hold the PKCS#11 PIN"), e);
    assertTrue(
        e.contains(
            "--out a-file/run.json: its directory "
                + dir.resolve("a-file")
                + " cannot be made ("
                + dir.resolve("a-file")
                + " is a file)"),
        e);
    assertTrue(!Files.exists(dir.resolve("results")), "nothing ran");
  }

  /**
   * A run whose only workload could not start is "failed", not "complete"; a --pki under a missing
   * directory is refused, not made.
   */
  @Test
  void run_everyWorkloadFailed_statusFailed_andAMistypedPkiRefused() throws Exception {
    String pki = dir.resolve("pki").toString();
    assertEquals(
        1,
        run(
            "run",
            "pec-sign",
            "-p",
            "provider1=no-such-key",
            "--pki",
            pki,
            "--warmup",
            "0x1s",
            "--measure",
            "1x1s",
            "--out",
            "r.json"));
    RunResult r = RunResultJson.read(dir.resolve("r.json"));
    assertEquals(RunStatus.FAILED, r.status());
    assertTrue(
        r.workloads().get(0).failure().contains("no-such-key"), r.workloads().get(0).failure());
    err.getBuffer().setLength(0);
    assertEquals(2, run("run", "sign", "--pki", "no/such/dir/pki"));
    assertTrue(
        err.toString().contains("--pki no/such/dir/pki: no test PKI there")
            && err.toString().contains("pkibench pki init --dir no/such/dir/pki"),
        err.toString());
    assertTrue(!Files.exists(dir.resolve("no")), "nothing made");
  }

  /**
   * The cryptography alone of either PEC path, run through the command line: every operation
   * succeeds on both paths.
   */
  @Test
  void runPecCeiling_bothPaths_everyOperationSucceeds_andABadPathOrKeyRefused() throws Exception {
    for (String path : List.of("sign", "verify")) {
      assertEquals(
          0,
          run(
              "run",
              "pec-ceiling",
              "-p",
              "path=" + path,
              "--pki",
              "pki",
              "--warmup",
              "0x1s",
              "--measure",
              "1x500ms",
              "--out",
              path + ".json"),
          err.toString());
      var level =
          RunResultJson.read(dir.resolve(path + ".json")).workloads().get(0).levels().get(0);
      assertTrue(
          level.counts().succeeded() > 0 && level.counts().failed() == 0,
          path + ": " + level.counts());
    }
    err.getBuffer().setLength(0);
    assertEquals(2, run("run", "pec-ceiling", "-p", "path=both", "--pki", "pki"));
    assertTrue(err.toString().contains("-p path=both"), err.toString());
    assertEquals(
        1,
        run(
            "run",
            "pec-ceiling",
            "-p",
            "provider2=no-such-key",
            "-p",
            "path=verify",
            "--pki",
            "pki",
            "--warmup",
            "0x1s",
            "--measure",
            "1x500ms",
            "--out",
            "nokey.json"));
    assertTrue(
        RunResultJson.read(dir.resolve("nokey.json"))
            .workloads()
            .get(0)
            .failure()
            .contains("no-such-key"));
  }

  /**
   * A port another process holds: the flag, the address and the way out, exit 2 (it once printed
   * only "Address already in use").
   */
  @Test
  void serve_portInUse_exit2NamingThePort() throws Exception {
    try (var taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      String port = Integer.toString(taken.getLocalPort());
      for (List<String> args :
          List.of(
              List.of("serve", "tsa"),
              List.of(
                  "serve", "pec", "--domain", "pec1.test", "--spool", "s", "--mailboxes", "m"))) {
        List<String> all = new java.util.ArrayList<>(args);
        all.addAll(List.of("--port", port, "--pki", dir.resolve("pki").toString()));
        err.getBuffer().setLength(0);
        assertEquals(2, run(all.toArray(String[]::new)), args + ": " + err);
        assertTrue(
            err.toString()
                .contains(
                    "--port "
                        + port
                        + ": cannot listen on 127.0.0.1:"
                        + port
                        + " (address already in use)"),
            args + ": " + err);
      }
    }
  }

  @Test
  void serveTlsecho_badFlags_exit2NamingEachBeforeListening() {
    assertEquals(
        2,
        run(
            "serve",
            "tlsecho",
            "--tls",
            "gnutls",
            "--key",
            "rsa512",
            "--idle-timeout",
            "soon",
            "--max-connections",
            "0"));
    String e = err.toString();
    assertTrue(
        e.contains("--tls gnutls")
            && e.contains("--key rsa512")
            && e.contains("--idle-timeout soon")
            && e.contains("--max-connections 0"),
        e);
  }

  @Test
  void serveKeyserver_badFlags_exit2NamingEach() {
    assertEquals(
        2,
        run(
            "serve",
            "keyserver",
            "--keys",
            "remote:127.0.0.1:9443",
            "--max-request",
            "10",
            "--idle-timeout",
            "soon",
            "--threads",
            "0",
            "--grants",
            "missing-grants.txt",
            "--pki",
            "pki"));
    String e = err.toString();
    for (String flag :
        List.of(
            "--keys remote:",
            "--max-request 10",
            "--idle-timeout soon",
            "--threads 0",
            "--grants missing-grants.txt")) {
      assertTrue(e.contains(flag), flag + " named in:\n" + e);
    }
    assertEquals(
        2,
        run(
            "run",
            "sign",
            "--keys",
            "remote:localhost,127.0.0.1:99999,[::1]:9443=0",
            "--pki",
            "pki"));
    String r = err.toString();
    assertTrue(
        r.contains("localhost: write HOST:PORT")
            && r.contains("the port is a number")
            && r.contains("the weight after ="),
        r);
  }

  /**
   * The remote key source from the command line: a node in this JVM on the CLI's test PKI, a real
   * sign run through it.
   */
  @Test
  void runSign_throughARemoteNode_verifiesEverySignature() throws Exception {
    var pki =
        TestPki.init(
            dir.resolve("pki"), InstantSource.system(), TestPki.DEFAULT_CRL_BASE_URL, line -> {});
    var keys = new SoftwareKeySource(() -> pki, ProviderChoice.JDK);
    var service =
        new KeyService(
            keys, keys.aliases(), KeyGrants.everyKeyFor(pki.certificate("tls-client")), line -> {});
    try (var node =
        new KeyServer(
            service,
            keys.key("keyserver"),
            pki.certificate("root-ca"),
            "127.0.0.1",
            0,
            KeyServer.Limits.defaults())) {
      node.start();
      assertEquals(
          0,
          run(
              "run",
              "sign",
              "-p",
              "alg=rsa2048",
              "--keys",
              "remote:127.0.0.1:" + node.port(),
              "--pki",
              "pki",
              "--concurrency",
              "4",
              "--warmup",
              "1x300ms",
              "--measure",
              "2x300ms",
              "--out",
              "remote.json"),
          err.toString());
      var result = RunResultJson.read(dir.resolve("remote.json"));
      var level = result.workloads().get(0).levels().get(0);
      assertTrue(
          level.counts().succeeded() > 0 && level.counts().failed() == 0,
          level.counts().toString());
      assertTrue(
          node.counts().served() >= level.counts().succeeded(),
          "every signature was made on the node: " + node.counts());
      assertTrue(out.toString().contains("keys remote:127.0.0.1:" + node.port()), out.toString());
      var nodes = result.workloads().get(0).keyNodes();
      assertEquals(1, nodes.size(), "the result records the node");
      assertTrue(
          nodes.get(0).calls() >= level.counts().succeeded() && nodes.get(0).failures() == 0,
          nodes.toString());
      assertTrue(
          out.toString()
              .contains(
                  "key-server calls, warm-ups included: 127.0.0.1:" + node.port() + " (weight 1)"),
          out.toString());
    }
  }

  /**
   * The provider shoot-out: one workload through several key sources into one result, one table,
   * ratios to the fastest.
   */
  @Test
  void runSign_severalKeySources_oneResultAndAComparison() throws Exception {
    assertEquals(
        List.of("software:jdk", "remote:127.0.0.1:1=50,127.0.0.1:2=50", "pkcs11:x.cfg", "software"),
        KeySources.split(
            "software:jdk,remote:127.0.0.1:1=50,127.0.0.1:2=50,pkcs11:x.cfg,software"));
    assertEquals(
        0,
        run(
            "run",
            "sign",
            "-p",
            "alg=ecdsa-p256",
            "--keys",
            "software:jdk,software:bc",
            "--pki",
            "pki",
            "--concurrency",
            "1",
            "--warmup",
            "1x200ms",
            "--measure",
            "2x200ms",
            "--out",
            "shoot.json"),
        err.toString());
    var result = RunResultJson.read(dir.resolve("shoot.json"));
    assertEquals(
        List.of("software:jdk", "software:bc"),
        result.workloads().stream().map(w -> w.keys()).toList());
    String o = out.toString();
    assertTrue(
        o.contains("key sources compared (each at its best level)") && o.contains("1.00"), o);
    var rows = KeySourceShootout.rows(result);
    assertEquals(2, rows.size());
    assertEquals(1.0, rows.get(0).ratioToFastest(), 1e-9, "sorted fastest first");
    assertTrue(rows.get(1).ratioToFastest() <= 1.0);
    // item 9 of issue 34: SunEC verifies Wycheproof's malleable ECDSA tcId 6, so the JDK is marked
    // for ecdsa keys and never recommended
    var jdk = rows.stream().filter(r -> r.keys().equals("software:jdk")).findFirst().orElseThrow();
    var bc = rows.stream().filter(r -> r.keys().equals("software:bc")).findFirst().orElseThrow();
    assertEquals(List.of("ecdsa-p256: accepts 1 invalid vector (tcId 6)"), jdk.wycheproof());
    assertEquals(List.of(), bc.wycheproof());
    assertEquals(
        "software:bc",
        KeySourceShootout.recommended(rows).get(jdk.workload()).keys(),
        "the marked provider is not recommended, faster or not");
    assertTrue(
        o.contains("software:jdk !")
            && o.contains(
                "! software:jdk ("
                    + jdk.workload()
                    + "): Wycheproof ecdsa-p256: accepts 1 invalid vector (tcId 6) - not recommended")
            && o.contains("recommended for " + jdk.workload() + ": software:bc"),
        o);
    String hlog = Files.readString(dir.resolve("shoot.hlog"));
    assertTrue(
        hlog.contains("Tag=sign@software:jdk/") && hlog.contains("Tag=sign@software:bc/"),
        "each source's intervals apart");
  }

  @Test
  void studyPix_badFault_exit2() {
    assertEquals(2, run("study", "pix", "--quick", "--fault", "kill-node@1s"));
    assertTrue(err.toString().contains("--fault kill-node@1s: kill between 3s"), err.toString());
    assertEquals(2, run("study", "pix", "--quick", "--fault", "crash"));
    assertTrue(
        err.toString().contains("--fault crash: the faults are kill-node@TIME"), err.toString());
  }

  @Test
  void studySsl_unknownEngine_exit2BeforeAnyServiceStarts() {
    assertEquals(2, run("study", "ssl", "--tls", "jsse,schannel", "--quick"));
    assertTrue(err.toString().contains("--tls schannel"), err.toString());
  }

  /**
   * The gate planted with each defect it exists for: runs with nothing in common, a change beyond
   * the noise but within its limit.
   */
  @Test
  void compare_runsSharingNoWorkload_exit2SayingNothingWasCompared() throws Exception {
    RunResultJson.write(ComparisonTest.BASE, dir.resolve("sign.json"));
    RunResultJson.write(
        ResultFixtures.closedRun(
            "verify",
            new int[] {1, 2},
            new double[][] {{1000, 1001}, {1900, 1910}},
            new long[] {1_000_000, 1_050_000}),
        dir.resolve("verify.json"));
    assertEquals(
        2,
        run("compare", "sign.json", "verify.json", "--threshold", "throughput:-5%"),
        out.toString());
    assertTrue(
        err.toString().contains("nothing to compare: the two runs share no workload and level"),
        err.toString());
  }

  @Test
  void compare_dropBeyondTheNoiseButWithinItsLimit_exit0() throws Exception {
    // ComparisonTest.NEW: c=1 drops 10%, outside the noise; a 20% limit holds it
    RunResultJson.write(ComparisonTest.BASE, dir.resolve("base.json"));
    RunResultJson.write(ComparisonTest.NEW, dir.resolve("new.json"));
    assertEquals(
        0,
        run(
            "compare",
            "base.json",
            "new.json",
            "--threshold",
            "throughput:-20%",
            "--confidence",
            "95"),
        out.toString());
    assertTrue(
        out.toString().contains("every threshold holds") && out.toString().contains("-10.0%"),
        out.toString());
  }

  /**
   * Issue 9: a consistent 50% drop over 5 iterations a side of a real run is a breach, not noise.
   */
  @Test
  void compare_realSignRunWithSuccessesHalved_exits3() throws Exception {
    assertEquals(
        0,
        run(
            "run",
            "sign",
            "-p",
            "alg=ecdsa-p256",
            "--concurrency",
            "1",
            "--warmup",
            "1x300ms",
            "--measure",
            "5x300ms",
            "--out",
            "base.json"),
        err.toString());
    var mapper = RunResultJson.mapper();
    // A loaded machine spreads 300 ms iterations by ±100%, which would leave even a halving
    // undecided (exit 5):
    // the base's measured iterations are set to one count per millisecond of each, so the
    // comparison sees the halving alone.
    var tree =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            mapper.readTree(dir.resolve("base.json").toFile());
    for (boolean halve : new boolean[] {false, true}) {
      for (var level : tree.withArray("/workloads/0/levels")) {
        for (var it : level.withArray("iterations")) {
          var iteration = (com.fasterxml.jackson.databind.node.ObjectNode) it;
          if (iteration.get("warmup").asBoolean()) continue;
          long perMilli =
              halve
                  ? iteration.get("succeeded").asLong() / 2
                  : iteration.get("durationNanos").asLong() / 1_000_000 * 40;
          iteration.put("succeeded", perMilli);
        }
        var throughput = (com.fasterxml.jackson.databind.node.ObjectNode) level.get("throughput");
        throughput.put("mean", halve ? throughput.get("mean").asDouble() / 2 : 40_000);
      }
      mapper.writeValue(dir.resolve(halve ? "halved.json" : "steady.json").toFile(), tree);
    }
    out.getBuffer().setLength(0);
    assertEquals(
        3,
        run("compare", "steady.json", "halved.json", "--threshold", "throughput:-5%"),
        out.toString());
    assertTrue(out.toString().contains("-50.0%"), out.toString());
  }

  @Test
  void report_missingOrForeignFile_exit2() throws Exception {
    assertEquals(2, run("report", "nothing.json"));
    assertTrue(err.toString().contains("no such file"), err.toString());
    Files.writeString(dir.resolve("x.json"), "[1,2]");
    assertEquals(2, run("report", "x.json"));
    assertTrue(err.toString().contains("not a pkibench result"), err.toString());
  }

  @Test
  void help_everyCommand_showsAnExample() {
    for (String[] cmd :
        new String[][] {
          {"--help"},
          {"run", "--help"},
          {"report", "--help"},
          {"compare", "--help"},
          {"merge", "--help"},
          {"list", "--help"},
          {"pki", "init", "--help"},
          {"serve", "tlsecho", "--help"},
          {"serve", "keyserver", "--help"},
          {"study", "ssl", "--help"},
          {"study", "restpki", "--help"},
          {"study", "pix", "--help"}
        }) {
      out.getBuffer().setLength(0);
      assertEquals(0, run(cmd));
      assertTrue(out.toString().contains("Example"), String.join(" ", cmd) + ":\n" + out);
    }
  }

  /**
   * No silent substitution: list says which provider "software" means here, and the result names
   * the one that ran.
   */
  @Test
  void listAndResult_nameTheProviderThatRan() throws Exception {
    String best = ProviderChoice.best().flag;
    assertEquals(0, run("list", "--check"));
    assertTrue(
        out.toString().contains("test PKI keys through the best provider here: " + best),
        out.toString());
    Throwable accp = ProviderChoice.accpLoadFailure();
    assertTrue(
        out.toString()
            .contains(
                accp == null
                    ? "Amazon Corretto Crypto Provider (loads here)"
                    : "(does NOT load here: " + accp),
        out.toString());
    // list wraps a long description under its own column: compared with every run of blanks and
    // line breaks as one space
    String listed = out.toString().replaceAll("\\s+", " ");
    assertTrue(
        listed.contains(
            "software:jdk the JDK's own providers [! Wycheproof: ecdsa-p256: accepts 1 invalid vector (tcId 6); "
                + "ecdsa-p384: accepts 1 invalid vector (tcId 6)]"),
        "the JDK marked with SunEC's Wycheproof deviation: " + out);
    assertTrue(
        listed.contains("software:bc BouncyCastle [Wycheproof: agrees with every vector]"),
        out.toString());

    assertEquals(
        0,
        run(
            "run",
            "sign",
            "-p",
            "alg=ecdsa-p256",
            "--keys",
            "software",
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x200ms",
            "--out",
            "software.json"),
        err.toString());
    RunResult r = RunResultJson.read(dir.resolve("software.json"));
    assertEquals(
        "software:" + best,
        r.workloads().get(0).keys(),
        "the result names the provider that ran, not just 'software'");
    String installed = best.equals("accp") ? "AmazonCorrettoCryptoProvider" : "SUN";
    assertTrue(
        r.environment().providers().stream().anyMatch(p -> p.startsWith(installed)),
        r.environment().providers().toString());
  }

  @Test
  void list_showsWorkloadsAndParams() {
    assertEquals(0, run("list"));
    for (String name :
        new String[] {
          "sign", "verify", "digest", "aes-gcm", "keygen", "noop", "-p alg=rsa2048", "pkcs11:CONFIG"
        }) {
      assertTrue(out.toString().contains(name), name);
    }
  }

  /**
   * A file the CLI reads that never ends (/dev/zero claims 0 bytes) is refused with a clear
   * message, not read until the heap runs out.
   */
  @Test
  void serve_endlessInputFiles_refusedNamingTheFileAndTheLimit() throws Exception {
    assertEquals(
        2,
        run(
            "serve",
            "pec",
            "--domain",
            "pec1.test",
            "--port",
            "0",
            "--users-file",
            "/dev/zero",
            "--pki",
            "pki"),
        err.toString());
    assertTrue(
        err.toString().contains("--users-file /dev/zero")
            && err.toString().contains("/dev/zero: more than"),
        err.toString());
    err.getBuffer().setLength(0);
    assertEquals(
        2,
        run("serve", "keyserver", "--port", "0", "--grants", "/dev/zero", "--pki", "pki"),
        err.toString());
    assertTrue(
        err.toString().contains("--grants /dev/zero")
            && err.toString().contains("past the limit for a grants file"),
        err.toString());
  }
}
