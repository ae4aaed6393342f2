package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.report.FaultTimeline;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.StudyRecord;
import io.pkibench.results.WorkloadResult;
import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * study ca --fault kill-service@T on the OpenBao the study starts (serve openbao, storage on disk):
 * its server SIGKILLed mid-step, calls fail while it is down, serve openbao starts it again on the
 * same storage, the rate comes back, and OpenBao's own list still holds every certificate the run
 * counted issued. The fault step alone is run (the study's other steps are CaStudyTest's), through
 * the real runner, services and checks.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CaFaultTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  /** What the fault step alone, run through the real runner, wrote and said. */
  record FaultStep(RunResult saved, WorkloadResult fault, List<String> log) {}

  /**
   * {@code study ca --service SERVICE --fault kill-service@3s}, the fault step alone: the CA down 3
   * s, measured for {@code after} past the kill; the result read back from its file.
   */
  static FaultStep faultStepAlone(TestKeys fixture, Path dir, String service, Duration after)
      throws Exception {
    java.nio.file.Files.createDirectories(dir.resolve("work"));
    CaStudy study =
        new CaStudy(
                CaStudy.Options.started(
                    List.of(new CaStudy.Service(service, null)), dir.resolve("work"), List.of()))
            .withFault("kill-service@3s")
            .faultLasting(Duration.ofSeconds(3), after);
    Path out = dir.resolve("ca-fault-" + service + ".json");
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    StudyOptions options =
        new StudyOptions(true, Duration.ofSeconds(5), "software", dir.resolve("pki"), null);
    RunResult result =
        fixture
            .studyRunner(out, log)
            .run(
                new StepsOnly(study, s -> s.label().endsWith(CaFault.MARK)),
                options,
                fixture.environment(
                    "pkibench study ca --service " + service + " --fault kill-service@3s"));
    assertEquals(RunStatus.COMPLETE, result.status(), String.join("\n", log));
    RunResult saved = RunResultJson.read(out);
    WorkloadResult fault =
        saved.workloads().stream()
            .filter(w -> w.step() != null && w.step().label().endsWith(CaFault.MARK))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no fault step: " + log));
    return new FaultStep(saved, fault, log);
  }

  @Test
  void killService_openBao_callsFailWhileDown_rateComesBack_noCertificateLost() throws Exception {
    FaultStep step = faultStepAlone(fixture, dir, CaStudy.OPENBAO, Duration.ofSeconds(15));
    RunResult saved = step.saved();
    WorkloadResult fault = step.fault();
    List<String> log = step.log();
    LevelResult level = fault.levels().get(0);
    assertTrue(
        level.counts().failed() > 0, "calls failed while OpenBao was down: " + level + "\n" + log);
    assertTrue(level.counts().succeeded() > 0, level.toString());
    assertTrue(
        log.stream().anyMatch(l -> l.contains("openbao's server killed (SIGKILL")),
        "its server, not serve openbao, killed: " + log);
    List<FaultTimeline.Summary> timeline = FaultTimeline.of(saved);
    assertEquals(1, timeline.size(), "the fault's timeline");
    assertTrue(
        timeline.get(0).recoveredAfterSeconds() != null,
        "the rate came back after serve openbao started it again: " + timeline.get(0).lines());
    List<StudyRecord.CheckRecord> checks = saved.study().checks();
    assertEquals(1, checks.size(), checks.toString());
    assertTrue(checks.get(0).passed(), "every certificate counted is listed: " + checks);
    assertTrue(
        String.join("\n", saved.study().notes()).contains("OpenBao keeps its storage on disk"),
        saved.study().notes().toString());
  }

  @Test
  void fault_wrongWordsOrTimes_orNoCaOfItsOwn_refusedNamingTheFix() {
    var e = assertThrows(IllegalArgumentException.class, () -> CaStudy.checkFault("kill-node@20s"));
    assertTrue(e.getMessage().contains("kill-service@TIME"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> CaStudy.checkFault("kill-service@1s"));
    assertTrue(e.getMessage().contains("between 3s"), e.getMessage());
    List<String> flagProblems = new ArrayList<>();
    CaStudy outside =
        new CaStudy(
                CaStudy.Options.started(
                    CaStudy.Service.parse("openbao:https://127.0.0.1:1", flagProblems),
                    dir.resolve("w"),
                    flagProblems))
            .withFault("kill-service@10s");
    String all =
        String.join(
            "\n",
            outside.problems(new StudyOptions(true, Duration.ofSeconds(5), "software", dir, null)));
    assertTrue(all.contains("--fault kill-service@10s: kills a CA the study started"), all);
  }
}
