package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.report.FaultTimeline;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.results.WorkloadResult;
import io.pkibench.testing.TestKeys;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * study ca --fault kill-service@T on the Pebble the study starts (Debian's, in memory only): serve
 * pebble SIGKILLed with its Pebble mid-step, orders fail while it is down, a new Pebble (no
 * accounts, a new root) is started, the workers register new accounts and fetch the new root, the
 * rate comes back, and every order the run saw accepted ended issued or failed. The fault step
 * alone is run, through the real runner, services and checks, as CaFaultTest does for OpenBao.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CaPebbleFaultTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  @Test
  void killService_pebble_ordersFailWhileDown_newAccountsAndRoot_rateComesBack_allAccounted()
      throws Exception {
    CaFaultTest.FaultStep step =
        CaFaultTest.faultStepAlone(fixture, dir, CaStudy.PEBBLE, Duration.ofSeconds(20));
    RunResult saved = step.saved();
    WorkloadResult fault = step.fault();
    List<String> log = step.log();
    LevelResult level = fault.levels().get(0);
    assertTrue(
        level.counts().failed() > 0, "orders failed while Pebble was down: " + level + "\n" + log);
    assertTrue(
        log.stream().anyMatch(l -> l.contains("service pebble killed (SIGKILL")),
        "serve pebble, and its Pebble with it, killed: " + log);
    List<FaultTimeline.Summary> timeline = FaultTimeline.of(saved);
    assertEquals(1, timeline.size(), "the fault's timeline");
    assertTrue(
        timeline.get(0).recoveredAfterSeconds() != null,
        "orders issued and verified again against the new Pebble: "
            + timeline.get(0).lines()
            + timeline.get(0).seconds()
            + "\n"
            + log);
    List<StudyRecord.CheckRecord> checks = saved.study().checks();
    assertEquals(1, checks.size(), checks.toString());
    assertTrue(
        checks.get(0).passed(), "every accepted order issued or failed, none neither: " + checks);
    Map<String, Long> outcomes = fault.outcomes();
    assertTrue(
        outcomes.getOrDefault("accounts made again", 0L) >= 1,
        "the new Pebble's accountDoesNotExist made the workers register again: " + outcomes);
    assertTrue(
        outcomes.getOrDefault("issuer roots fetched again", 0L) >= 1,
        "the new Pebble's root fetched again: " + outcomes);
    String findings = String.join("\n", saved.study().notes());
    assertTrue(findings.contains("a restart forgets every order, as expected"), findings);
  }
}
