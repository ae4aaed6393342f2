package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.report.FaultTimeline;
import io.pkibench.report.StudyTables;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.WorkloadResult;
import io.pkibench.testing.TestKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pix study, quick: two key-server JVMs, the handshake and SPI sweeps through them, the draw to
 * subtract.
 */
@org.junit.jupiter.api.Timeout(
    value = 10,
    unit = TimeUnit.MINUTES) // a study talks to its service JVMs: a hang fails, said as one
class PixStudyTest {
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

  @Test
  void badOptions_namedBeforeAnythingStarts() {
    var options =
        new StudyOptions(
            true, Duration.ofMillis(500), "remote:127.0.0.1:9443", dir.resolve("pki"), null);
    List<String> problems = new PixStudy().problems(options);
    assertEquals(2, problems.size(), problems.toString());
    assertTrue(
        problems.get(0).contains("--duration") && problems.get(1).contains("--keys remote:"),
        problems.toString());
  }

  /**
   * One quick study serves both tests below (a pix study is a minute and a half of the suite): the
   * fault and --check-sizing together, as a user may ask for them. Run on first use; its log kept
   * for the messages.
   */
  private static RunResult shared;

  /** The study that made it, with --save-samples: its samples are that run's own answers. */
  private static PixStudy sharedStudy;

  private static final List<String> sharedLog = Collections.synchronizedList(new ArrayList<>());

  private static synchronized RunResult quickStudyWithFaultAndSizingCheck() throws Exception {
    if (shared != null) return shared;
    Assertions.assertTrue(
        CpuQuota.problem(CpuQuota.DEFAULT_ROOTS).isEmpty(),
        "--check-sizing needs a writable cgroup cpu controller: run the tests as root, as ./test does on CI; "
            + CpuQuota.problem(CpuQuota.DEFAULT_ROOTS));
    Path out = dir.resolve("pix.json");
    var options =
        new StudyOptions(true, Duration.ofSeconds(10), "software", dir.resolve("pki"), null)
            .withQuickIterationsOfAtMost(SMOKE);
    // down 5 s, then 25 s for the node to start again and rejoin: a JVM's start on a loaded 2-core
    // machine has taken more than the default 15 s
    sharedStudy =
        new PixStudy(
                PixStudy.Fault.parse("kill-node@4s")
                    .lasting(Duration.ofSeconds(5), Duration.ofSeconds(25)))
            .checkingSizing(new CheckSizing(CpuQuota.DEFAULT_ROOTS))
            .savingSamplesIn(dir.resolve("samples"));
    RunResult result =
        fixture
            .studyRunner(out, sharedLog)
            .run(
                sharedStudy,
                options,
                fixture.environment(
                    "pkibench study pix --quick --fault kill-node@4s --check-sizing"));
    assertEquals(RunStatus.COMPLETE, result.status(), String.join("\n", sharedLog));
    shared = RunResultJson.read(out);
    return shared;
  }

  @Test
  void quickStudy_sweepsBothBenchmarksThroughTwoNodes_fiftyFifty_andANodeKilledMidRunRejoins()
      throws Exception {
    RunResult saved = quickStudyWithFaultAndSizingCheck();
    List<String> log = sharedLog;
    assertEquals(2, saved.study().services().size(), "two key-server JVMs");
    for (String step : List.of(PixStudy.HANDSHAKE, PixStudy.SPI)) {
      var row =
          StudyTables.rows(saved).stream()
              .filter(r -> r.label().equals(step))
              .findFirst()
              .orElseThrow();
      WorkloadResult w = row.measured();
      assertEquals(
          List.of(1, 4, 16, 64),
          w.levels().stream().map(l -> l.concurrency()).toList(),
          step + " swept");
      assertTrue(
          w.levels().stream().allMatch(l -> l.counts().failed() == 0 && l.counts().succeeded() > 0),
          step + ": " + w.levels());
      if (step.equals(PixStudy.SPI))
        assertTrue(
            w.levels().stream()
                .allMatch(l -> Long.valueOf(l.counts().succeeded()).equals(l.counts().verified())),
            step + ": every signature checked over the message sent: " + w.levels());
      assertTrue(w.keys().startsWith("remote:") && w.keys().contains("=50,"), w.keys());
      assertEquals(2, w.keyNodes().size(), "both nodes recorded");
      long total = w.keyNodes().stream().mapToLong(WorkloadResult.KeyNode::calls).sum();
      for (var node : w.keyNodes()) {
        double share = (double) node.calls() / total;
        assertTrue(
            share > 0.35 && share < 0.65,
            step + ": equal weights give near-equal shares: " + w.keyNodes());
      }
      assertTrue(
          w.levels().stream().allMatch(l -> l.cpu().opsPerCpuSecond() != null),
          step + ": the key servers' CPU was measured");
    }
    // the fault: a real SIGKILL of the first node's JVM, a new pid after the restart, the calls in
    // flight counted as failures
    assertEquals(
        2,
        saved.study().services().get(0).pids().size(),
        "keyserver-1 was started again: "
            + saved.study().services()
            + "\n"
            + String.join("\n", log.subList(Math.max(0, log.size() - 60), log.size())));
    var faultRow =
        StudyTables.rows(saved).stream()
            .filter(r -> r.label().equals(PixStudy.FAULT))
            .findFirst()
            .orElseThrow();
    var timeline = FaultTimeline.of(saved);
    assertEquals(1, timeline.size());
    var killed = faultRow.measured().keyNodes().get(0);
    assertTrue(
        killed.transitions().size() >= 2
            && !killed.transitions().get(0).up()
            && killed.transitions().get(1).up()
            && killed.upAtEnd(),
        "taken out, then rejoined: "
            + killed
            + "\n"
            + String.join(
                "\n",
                log.stream()
                    .filter(
                        l ->
                            l.contains("keyserver-1")
                                || l.contains("fault")
                                || l.contains(PixStudy.FAULT))
                    .toList()));
    assertEquals(
        faultRow.measured().levels().get(0).counts().failed(), timeline.get(0).failedCalls());
    assertEquals(
        killed.failures(),
        timeline.get(0).failedCalls(),
        "every failure was a call to the killed node");
    String table = StudyTables.terminal(saved);
    assertTrue(table.contains("through the fault: " + PixStudy.FAULT), table);
    // the client's side at 16 threads beside the key servers': the original's 1 generic : 2
    // cryptographic estimate, ours
    assertTrue(
        table.contains(PixStudy.SPI + " at 16 threads: ")
            && table.contains("client : server = 1 : "),
        table);
    assertTrue(table.contains("swept over [1, 4, 16, 64] threads; the row is the peak"), table);
    assertTrue(table.contains("the original beside ours"), table);
    var clientSpi =
        StudyTables.rows(saved).stream()
            .filter(r -> r.label().equals(PixStudy.SPI + PixStudy.CLIENT_CPU))
            .findFirst()
            .orElseThrow()
            .measured()
            .levels()
            .get(0)
            .counts();
    assertTrue(
        clientSpi.verified() != null
            && clientSpi.verified() > 0
            && clientSpi.verified() * 10 < clientSpi.succeeded(),
        "the client-CPU step checks a sample, its checks kept out of the client's figure: "
            + clientSpi);
  }

  /**
   * --check-sizing: the handshake and the SPI signature again with both nodes under one cgroup
   * quota, at each sweep's peak level; the half core held, predicted, measured and miss kept, the
   * group removed at the end.
   */
  @Test
  void checkSizing_bothBenchmarks_quotaHeldOnBothNodesAndGroupRemoved() throws Exception {
    RunResult saved = quickStudyWithFaultAndSizingCheck();
    List<String> log = sharedLog;
    assertEquals(
        List.of(PixStudy.HANDSHAKE, PixStudy.SPI),
        saved.study().sizingChecks().stream().map(c -> c.step()).toList());
    for (var c : saved.study().sizingChecks()) {
      WorkloadResult sweep =
          StudyTables.rows(saved).stream()
              .filter(r -> r.label().equals(c.step()))
              .findFirst()
              .orElseThrow()
              .measured();
      int peak =
          sweep.levels().stream()
              .max(Comparator.comparingDouble(l -> l.throughput().mean()))
              .orElseThrow()
              .concurrency();
      assertEquals(peak, c.level(), c.step() + ": checked at its sweep's peak level");
      var limited =
          saved.study().steps().stream()
              .filter(st -> st.label().equals(c.limitedStep()))
              .findFirst()
              .orElseThrow();
      assertEquals("the peak of the sweep of step '" + c.step() + "'", limited.chosenBecause());
      assertTrue(
          c.notCheckedBecause() == null
              && c.miss() != null
              && c.predictedOpsPerSecond() > 0
              && c.measuredOpsPerSecond() > 0,
          c.toString());
      assertTrue(
          c.serviceCoresLimited() <= 0.55,
          c.step() + ": both nodes together held to half a core: " + c.serviceCoresLimited());
    }
    assertTrue(
        log.stream().anyMatch(l -> l.startsWith("services limited to 0.5 core: cgroup")),
        String.join("\n", log));
    assertTrue(
        StudyTables.terminal(saved)
            .contains("check-sizing: the capacity at 1 core predicted from 0.5 core"));
    try (var groups = Files.list(CpuQuota.DEFAULT_ROOTS.get(0))) {
      assertEquals(
          List.of(),
          groups
              .filter(
                  g ->
                      g.getFileName()
                          .toString()
                          .startsWith("pkibench-" + ProcessHandle.current().pid() + "-"))
              .toList());
    }
  }

  /**
   * --save-samples: the signed message is the shared run's own first checked SPI signature (its
   * signature value from the key servers), beside the message as sent; it and the chain checked by
   * xmlsec1, Python's C14N and openssl through verify.sh; a tamper fails. A study that measured no
   * SPI signature hands out none rather than one made here.
   */
  @Test
  void samples_theRunsOwnSignature_verifyWithIndependentTools_andATamperFails() throws Exception {
    quickStudyWithFaultAndSizingCheck();
    Path samples = dir.resolve("samples");
    var list = sharedStudy.samples(samples, fixture.pki, fixture.keys, InstantSource.system());
    SampleScripts.write(samples, "pix", list);
    var id =
        java.util.regex.Pattern.compile("<MsgId>[^<]+</MsgId>")
            .matcher(Files.readString(samples.resolve("spi-message.xml")));
    assertTrue(id.find(), "spi-message.xml is a pacs.008 as sent");
    assertTrue(
        Files.readString(samples.resolve("spi-sign.xml")).contains(id.group()),
        "spi-sign.xml signs the message sent, " + id.group());
    assertTrue(Files.notExists(samples.resolve(".answers")), "the kept answers moved into place");
    Path none = dir.resolve("samples-of-nothing");
    List<String> unmeasured =
        new PixStudy()
                .savingSamplesIn(none)
                .samples(none, fixture.pki, fixture.keys, InstantSource.system())
                .stream()
                .map(s -> s.file())
                .toList();
    assertEquals(List.of("chain.pem"), unmeasured, "no SPI signature measured, none handed out");
    Process p =
        new ProcessBuilder("bash", samples.resolve("verify.sh").toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.waitFor(), out);
    assertTrue(
        out.contains("OK   spi-sign.xml")
            && out.contains("OK   chain.pem")
            && out.contains("2 verified, 0 failed"),
        out);

    Path message = samples.resolve("spi-sign.xml");
    String xml = Files.readString(message);
    Files.writeString(message, xml.replaceFirst("<Purp><Cd>IPAY</Cd>", "<Purp><Cd>GSCB</Cd>"));
    p =
        new ProcessBuilder("bash", samples.resolve("verify.sh").toString())
            .redirectErrorStream(true)
            .start();
    out = new String(p.getInputStream().readAllBytes());
    assertEquals(1, p.waitFor(), out);
    assertTrue(out.contains("FAIL spi-sign.xml") && out.contains("the Document's digest is"), out);
  }
}
