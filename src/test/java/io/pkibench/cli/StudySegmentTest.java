package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.ades.CertificateLogin;
import io.pkibench.formats.ades.TimeStampAuthority;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.results.AgentRecord;
import io.pkibench.results.Counts;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.StudyRecord;
import io.pkibench.server.signer.SignerServer;
import io.pkibench.session.ForkedSeries;
import io.pkibench.testing.TestKeys;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code study restpki --segment I/2 --target URL}: two agents of one study against one signer
 * running elsewhere (here, on loopback in the test's JVM), agent 1 a JVM of its own and agent 2
 * this one, on one shared start; {@code merge} adds their study results into the study's; a missing
 * agent, and studies that cannot be split, refused by name.
 */
@org.junit.jupiter.api.Timeout(
    value = 4,
    unit =
        java.util.concurrent.TimeUnit
            .MINUTES) // agents talk to a signer and wait for a shared start
class StudySegmentTest {
  @TempDir static Path dir;
  static SignerServer signer;
  static final StringWriter OUT = new StringWriter();
  static final StringWriter ERR = new StringWriter();
  static int agentOneExit;
  static int agentTwoExit;
  static Instant startAt;

  @BeforeAll
  static void twoAgentsAgainstOneSigner() throws Exception {
    TestKeys fixture = TestKeys.in(dir);
    signer =
        new SignerServer(
            new TimeStampAuthority(fixture.keys.key("tsa"), InstantSource.system()),
            CertificateLogin.of(fixture.pki, CertificateLogin.Revocation.CRL),
            TlsContexts.withIdentity(
                new SoftwareKeySource(() -> fixture.pki, ProviderChoice.JDK).key("tls-server"),
                null),
            "127.0.0.1",
            0,
            InstantSource.system());
    signer.start();
    // Time for the other agent's JVM to start on a loaded machine: the shared start is what lines
    // their iterations up.
    startAt = Instant.now().plusSeconds(20).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    List<String> agentOne = new ArrayList<>(ForkedSeries.thisJvm());
    agentOne.addAll(agentArgs(1));
    Process one =
        new ProcessBuilder(agentOne)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("agent1.log").toFile())
            .start();
    try {
      agentTwoExit = InThisJvm.run(dir, OUT, ERR, agentArgs(2).toArray(String[]::new));
      agentOneExit = one.waitFor();
    } finally {
      one.destroy();
    }
  }

  static List<String> agentArgs(int k) {
    return List.of(
        "study",
        "restpki",
        "--smoke",
        "--types",
        "cades",
        "--target",
        signer.baseUrl(),
        "--segment",
        k + "/2",
        "--concurrency",
        "3",
        "--start-at",
        startAt.toString(),
        "--pki",
        "pki",
        "--out",
        "agent" + k + ".json");
  }

  @AfterAll
  static void stop() {
    if (signer != null) signer.close();
  }

  int run(StringWriter out, StringWriter err, String... args) {
    return InThisJvm.run(dir, out, err, args);
  }

  @Test
  void merge_twoStudyAgents_stepIsTheSumOfTheAgentsShares() throws Exception {
    assertEquals(0, agentOneExit, () -> readLog());
    assertEquals(0, agentTwoExit, ERR + "\n" + OUT);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    assertEquals(
        0,
        run(out, err, "merge", "agent1.json", "agent2.json", "-o", "restpki.json"),
        err + "\n" + out);
    RunResult merged = RunResultJson.read(dir.resolve("restpki.json"));
    RunResult one = RunResultJson.read(dir.resolve("agent1.json"));
    RunResult two = RunResultJson.read(dir.resolve("agent2.json"));
    assertEquals(RunStatus.COMPLETE, merged.status());
    StudyRecord.StepRecord step = merged.study().steps().get(0);
    assertEquals("CAdES", step.label());
    assertEquals(3, step.chosenLevel(), "the level given, not a probe's");
    assertEquals(null, step.probeWorkload(), "an agent probes nothing");
    LevelResult a = one.workloads().get(0).levels().get(0);
    LevelResult b = two.workloads().get(0).levels().get(0);
    LevelResult m = merged.workloads().get(step.measuredWorkload()).levels().get(0);
    assertEquals(
        List.of(2, 1, 3),
        List.of(a.concurrency(), b.concurrency(), m.concurrency()),
        "3 workers split 2 + 1, merged back");
    assertTrue(
        a.counts().succeeded() > 0 && b.counts().succeeded() > 0, a.counts() + " " + b.counts());
    assertTrue(
        a.counts().verified() != null && b.counts().verified() != null,
        "each agent checks the service's answers: " + a.counts() + " " + b.counts());
    assertEquals(
        new Counts(
            a.counts().started() + b.counts().started(),
            a.counts().succeeded() + b.counts().succeeded(),
            a.counts().failed() + b.counts().failed(),
            a.counts().verified() + b.counts().verified()),
        m.counts(),
        "the step's counts are the agents' summed");
    Histogram sum = a.mergedHistogram();
    sum.add(b.mergedHistogram());
    assertEquals(sum, m.mergedHistogram(), "the step's histogram is the agents' summed");
    for (RunResult agent : List.of(one, two)) {
      assertEquals(startAt, agent.agent().startAt(), "one shared start");
      // Compared with the signer's HTTP Date, or, when the signer could not be asked in time (a
      // loaded machine), saying so by name.
      AgentRecord.Clock clock = agent.agent().clock();
      assertTrue(
          clock.offsetMillis() != null
              ? clock.reference() != null
              : clock.note().contains(signer.baseUrl()),
          "each agent compared its clock with the signer's: " + clock);
    }
    assertEquals(2, merged.merge().sections().size());
    assertTrue(
        out.toString().contains("CAdES") && out.toString().contains("merged 2 of 2 agents"),
        out.toString());
  }

  @Test
  void merge_oneStudyAgentMissing_refusedNamingTheSegment() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    assertEquals(
        ExitCodes.USAGE,
        run(out, err, "merge", "agent1.json", "-o", "partial.json"),
        err + "\n" + out);
    assertTrue(err.toString().contains("segment 2/2 (no file given)"), err.toString());
    assertFalse(Files.exists(dir.resolve("partial.json")), "nothing written");
  }

  @Test
  void studyRestpki_segmentWithoutTarget_refusedBeforeAnyServiceStarts() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    assertEquals(
        ExitCodes.USAGE,
        run(
            out,
            err,
            "study",
            "restpki",
            "--smoke",
            "--types",
            "cades",
            "--segment",
            "1/2",
            "--concurrency",
            "3",
            "--pki",
            "pki",
            "--out",
            "local.json"),
        err.toString());
    assertTrue(
        err.toString().contains("--segment: study restpki would start its services here"),
        err.toString());
    assertFalse(Files.exists(dir.resolve("local.json")), "nothing ran");
  }

  @Test
  void studyRestpki_segmentWithoutConcurrencyOrTooSmallLevel_refusedNamingTheFlag() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    assertEquals(
        ExitCodes.USAGE,
        run(
            out,
            err,
            "study",
            "restpki",
            "--smoke",
            "--target",
            signer.baseUrl(),
            "--segment",
            "1/2",
            "--pki",
            "pki",
            "--out",
            "bad.json"),
        err.toString());
    assertTrue(
        err.toString().contains("--segment: give the level every agent splits"), err.toString());
    assertEquals(
        ExitCodes.USAGE,
        run(
            out,
            err,
            "study",
            "restpki",
            "--smoke",
            "--target",
            signer.baseUrl(),
            "--segment",
            "1/4",
            "--concurrency",
            "2",
            "--pki",
            "pki",
            "--out",
            "bad.json"),
        err.toString());
    assertTrue(
        err.toString()
            .contains("--concurrency 2: the level of 2 workers cannot be split over 4 agents"),
        err.toString());
    assertFalse(Files.exists(dir.resolve("bad.json")), "nothing ran");
  }

  private static String readLog() {
    try {
      return Files.readString(dir.resolve("agent1.log"));
    } catch (java.io.IOException e) {
      return e.toString();
    }
  }
}
