package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.formats.pec.SentMessage;
import io.pkibench.report.StudyTables;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.testing.Openssl;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.pec.PauseRange;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pec study, short: both paths swept in this JVM, two providers in their own JVMs mailing each
 * other at a fixed rate, the reliability check over what their Maildirs hold and the spools' fsync
 * cost; the study's directory emptied only when it made it; every sample verified by openssl.
 */
@Timeout(
    value = 10,
    unit =
        java.util.concurrent.TimeUnit
            .MINUTES) // a study talks to its service JVMs: a hang fails, said as one
class PecStudyTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  static PecStudy study(Path work, Path spool, double rate, int workers) {
    return new PecStudy(
        PecStudy.Config.builder(work)
            .spool(spool)
            .flowRatePerSecond(rate)
            .providerWorkers(workers)
            .pathWorkers(List.of(1, 2))
            .flow(Duration.ofSeconds(2), Duration.ofSeconds(6))
            .search(List.of(), PecStudy.RECEIPT_DEADLINE)
            .workerSweep(List.of())
            .build());
  }

  @Test
  void badOptions_eachNamedBeforeAnythingStarts() throws Exception {
    Path foreign = Files.createDirectories(dir.resolve("someone-elses"));
    Files.writeString(foreign.resolve("thesis.tex"), "not to be deleted");
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    var options =
        new StudyOptions(false, Duration.ofMillis(500), "software", dir.resolve("pki"), null);
    List<String> problems = study(foreign, file, 0, 0).problems(options);
    assertEquals(5, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("--duration"), problems.toString());
    assertTrue(problems.get(1).contains("--flow-rate 0.0"), problems.toString());
    assertTrue(problems.get(2).contains("--provider-workers 0"), problems.toString());
    assertTrue(
        problems.get(3).startsWith("--dir " + foreign)
            && problems.get(3).contains("did not put there"),
        problems.toString());
    assertTrue(
        problems.get(4).startsWith("--spool " + file) && problems.get(4).contains("is a file"),
        problems.toString());
    assertTrue(
        Files.exists(foreign.resolve("thesis.tex")),
        "a directory the study did not make is never emptied");
  }

  @Test
  void itsOwnDirectory_isEmptiedForTheNextRun_andPeersAreWiredByPort() throws Exception {
    Path work = dir.resolve("again");
    var options =
        new StudyOptions(true, Duration.ofSeconds(1), "software", dir.resolve("pki"), null);
    PecStudy study = study(work, null, 10, 2);
    assertEquals(List.of(), study.problems(options));
    List<ServiceSpec> specs = study.services(options);
    Files.writeString(
        work.resolve("sent.jsonl"),
        "{\"messageId\":\"<old@pec1.test>\",\"from\":\"user1@pec1.test\",\"to\":[\"user1@pec2.test\"]}\n");
    assertEquals(List.of(), study.problems(options), "marked as the study's: a rerun may empty it");
    study.services(options);
    assertFalse(
        Files.exists(work.resolve("sent.jsonl")),
        "the earlier run's mail is gone before the next starts");
    try (RunningServices planned =
        RunningServices.plan(specs, List.of("java"), Map.of(), line -> {})) {
      var commands = planned.records();
      int port2 = commands.get(1).port();
      assertTrue(
          String.join(" ", commands.get(0).command())
              .contains("--peer pec2.test=127.0.0.1:" + port2),
          commands.get(0).command().toString());
      assertTrue(
          String.join(" ", commands.get(1).command())
              .contains("--peer pec1.test=127.0.0.1:" + commands.get(0).port()));
    }
    var unknown = new ServiceSpec("a", List.of("x", "--peer", "b={port:nobody}"), "smtp");
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RunningServices.plan(List.of(unknown), List.of("java"), Map.of(), l -> {}));
    assertTrue(
        e.getMessage().contains("{port:nobody}") && e.getMessage().contains("names no service"),
        e.getMessage());
  }

  @Test
  void shortStudy_pathsSwept_flowThroughTwoProviders_nothingLostOrDuplicated() throws Exception {
    Path out = dir.resolve("pec.json");
    Path work = dir.resolve("pec-study");
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    StudyRunner runner = fixture.studyRunner(out, log);
    var options =
        new StudyOptions(false, Duration.ofSeconds(1), "software", dir.resolve("pki"), null);
    // and the original's paced reliability run, its 16 users pausing 5 s before each message:
    // longer than any message takes
    // here without it (the flow ran 10 messages/s, so 16 users unpaced would wait under 2 s each),
    // so the pause shows in the latency
    PecStudy study =
        new PecStudy(
            PecStudy.Config.builder(work)
                .spool(dir.resolve("other-disk"))
                .flowRatePerSecond(10)
                .providerWorkers(2)
                .pathWorkers(List.of(1, 2))
                .flow(Duration.ofSeconds(2), Duration.ofSeconds(6))
                .search(List.of(), PecStudy.RECEIPT_DEADLINE)
                .workerSweep(List.of())
                .pauses(PauseRange.parse("5s"))
                .build());
    RunResult result =
        runner.run(study, options, fixture.environment("pkibench study pec --pauses 5s"));
    assertEquals(RunStatus.COMPLETE, result.status(), String.join("\n", log));
    RunResult saved = RunResultJson.read(out);
    assertEquals(2, saved.study().services().size(), "two providers, each its own JVM");
    for (String step : List.of(PecStudy.SIGN, PecStudy.VERIFY)) {
      var row =
          StudyTables.rows(saved).stream()
              .filter(r -> r.label().equals(step))
              .findFirst()
              .orElseThrow();
      assertEquals(
          List.of(1, 2), row.measured().levels().stream().map(l -> l.concurrency()).toList(), step);
      assertEquals("jvm", row.measured().cpuMeter(), step + ": the paths run in this JVM");
      for (var l : row.measured().levels())
        assertTrue(
            l.counts().succeeded() > 0 && l.counts().failed() == 0, step + ": " + l.errors());
    }
    var flow =
        StudyTables.rows(saved).stream()
            .filter(r -> r.label().startsWith(PecStudy.FLOW))
            .findFirst()
            .orElseThrow();
    var level = flow.level().orElseThrow();
    assertEquals(0, level.counts().failed(), "flow: " + level.errors());
    assertTrue(
        level.counts().succeeded() >= 40, "10 messages/s for 6 s measured: " + level.counts());
    assertTrue(
        level.cpu().opsPerCpuSecond() != null && level.cpu().meter().contains("+"),
        "both providers' CPU: " + level.cpu());
    assertTrue(level.latencyNanos().p50() > 0, "latency from submission to the delivery receipt");

    var paced =
        StudyTables.rows(saved).stream()
            .filter(r -> r.label().equals("reliability run [pauses 5s..5s]"))
            .findFirst()
            .orElseThrow();
    var pacedLevel = paced.level().orElseThrow();
    assertEquals(0, pacedLevel.counts().failed(), "paced: " + pacedLevel.errors());
    assertTrue(
        pacedLevel.counts().succeeded() > 0 && pacedLevel.latencyNanos().p50() >= 5_000_000_000L,
        "each message waits its user's pause of 5 s: " + pacedLevel.latencyNanos());

    List<SentMessage> sent = SentMessage.read(work.resolve("sent.jsonl"));
    long started =
        java.util.stream.Stream.of(flow, paced)
            .flatMap(r -> r.measured().levels().stream())
            .flatMap(l -> l.iterations().stream())
            .mapToLong(i -> i.started())
            .sum();
    assertEquals(
        started,
        sent.size(),
        "every message the flow and the paced run started was acknowledged and listed, warm-up included");
    assertEquals(2, saved.study().checks().size());
    var drained = saved.study().checks().get(0);
    assertTrue(
        drained.passed()
            && drained.detail().contains("fsyncs")
            && drained.detail().contains("other-disk"),
        drained.detail());
    var reliability = saved.study().checks().get(1);
    assertTrue(reliability.passed(), reliability.detail());
    // the flow's messages and the one non-conforming message, which must come back as undeliverable
    assertTrue(
        reliability
            .detail()
            .endsWith("reliability: " + (sent.size() + 1) + " messages, 0 lost, 0 duplicated"),
        reliability.detail());
    assertTrue(
        reliability
                .detail()
                .contains(
                    "the non-conforming message (to nobody@pec2.test) came back as undeliverable, as it must")
            && reliability.detail().contains("1 refused by the recipients' provider"),
        reliability.detail());
    assertTrue(
        reliability.detail().contains("by document type: accettazione " + (sent.size() + 1) + " ("),
        "each type counted with its KB: " + reliability.detail());
    assertTrue(
        Files.isRegularFile(dir.resolve("other-disk").resolve("pec1.test").resolve("journal")),
        "--spool put the spools there");
    long fromPec2 = sent.stream().filter(m -> m.from().endsWith("@pec2.test")).count();
    assertEquals(
        3.0 / 5,
        (double) fromPec2 / sent.size(),
        0.05,
        "pec2.test's user sends 3 in 5, as the original's 1,200 of 2,000");
    String table = StudyTables.terminal(saved);
    assertTrue(
        table.contains("reliability: " + (sent.size() + 1) + " messages, 0 lost, 0 duplicated")
            && table.contains("the original beside ours (OpenPEC"),
        table);

    // --save-samples after the run: the documents the run's providers delivered, taken from the
    // mailboxes, byte for byte, and openssl verifies each; the kinds only a fault makes (the
    // undeliverable message's notice aside) are made here and said to be
    Path samples = dir.resolve("samples-of-the-run");
    List<Sample> list = study.samples(samples, fixture.pki, fixture.keys, InstantSource.system());
    for (String kind : List.of("accettazione", "posta-certificata", "avvenuta-consegna")) {
      Sample s =
          list.stream().filter(x -> x.file().equals(kind + ".eml")).findFirst().orElseThrow();
      var from =
          java.util.regex.Pattern.compile("as the run's providers delivered it \\((.+)\\)$")
              .matcher(s.what());
      assertTrue(from.find(), kind + ": from the run's mailboxes: " + s.what());
      assertEquals(
          -1L,
          Files.mismatch(
              samples.resolve(s.file()), work.resolve("mailboxes").resolve(from.group(1))),
          kind + ": the delivered file itself");
      String r = smimeVerify(samples, s.file());
      assertTrue(Openssl.succeeded(r) && r.contains("Verification successful"), kind + ": " + r);
    }
    assertTrue(
        list.stream()
            .filter(x -> x.file().equals("errore.eml"))
            .allMatch(x -> x.what().contains("made by the providers' code in this process")),
        "the anomaly envelope, which only a tampered message makes, is said to be made here");
  }

  @Test
  void samples_oneOfEachSignedDocument_openslVerifiesEvery() throws Exception {
    Path samples = dir.resolve("samples");
    var list =
        study(dir.resolve("unused"), null, 10, 2)
            .samples(samples, fixture.pki, fixture.keys, InstantSource.system());
    assertTrue(
        list.stream()
            .allMatch(x -> x.what().contains("made by the providers' code in this process")),
        "no run, no mailboxes: every document made here, and said to be");
    assertEquals(
        List.of(
            "accettazione.eml",
            "posta-certificata.eml",
            "presa-in-carico.eml",
            "avvenuta-consegna.eml",
            "non-accettazione.eml",
            "errore.eml",
            "errore-consegna.eml"),
        list.stream().map(Sample::file).toList());
    for (Sample s : list) {
      String r = smimeVerify(samples, s.file());
      assertTrue(
          Openssl.succeeded(r) && r.contains("Verification successful"), s.file() + ": " + r);
      assertTrue(
          s.check().contains(s.file()) && s.needs().equals(List.of("openssl")), s.toString());
    }
    String anomaly = Files.readString(samples.resolve("errore.eml"));
    assertTrue(
        anomaly.contains("X-Trasporto: errore") && anomaly.contains("X-VerificaSicurezza: errore"),
        "the tampered envelope's anomaly");
    assertTrue(
        Files.readString(samples.resolve("errore-consegna.eml"))
            .contains("X-Ricevuta: errore-consegna"));
  }

  /**
   * openssl's S/MIME verdict on the sample {@code file} in {@code samples}, under its chain.pem.
   */
  private static String smimeVerify(Path samples, String file) throws Exception {
    return Openssl.run(
        samples,
        "smime",
        "-verify",
        "-in",
        file,
        "-CAfile",
        "chain.pem",
        "-purpose",
        "any",
        "-out",
        "/dev/null");
  }
}
