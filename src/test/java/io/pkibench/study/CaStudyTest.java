package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.WorkloadResult;
import io.pkibench.testing.TestKeys;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
 * study ca on the built-in Pebble (Debian's, started by the study as serve pebble), quick with half
 * second iterations: the order, renew and revoke steps measured, every accepted order accounted for
 * (each revocation's second revoke refused), the findings' cores for the target rate, and the
 * samples verified by openssl; flags that mean nothing for ca are refused naming why.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class CaStudyTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  @Test
  void quickStudy_pebble_ordersMeasuredAccountedAndSamplesVerify() throws Exception {
    Path out = dir.resolve("ca.json");
    Path samples = dir.resolve("samples");
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    CaStudy.Options defaults = CaStudy.Options.defaults();
    CaStudy study =
        new CaStudy(
            new CaStudy.Options(
                defaults.services(),
                null,
                null,
                null,
                120,
                samples,
                dir.resolve("work"),
                List.of()));
    StudyOptions options =
        new StudyOptions(true, Duration.ofSeconds(5), "software", dir.resolve("pki"), null)
            .withQuickIterationsOfAtMost(Duration.ofMillis(500));
    assertEquals(List.of(), study.problems(options));
    RunResult result =
        fixture
            .studyRunner(out, log)
            .run(study, options, fixture.environment("pkibench study ca --quick"));
    assertEquals(RunStatus.COMPLETE, result.status(), String.join("\n", log));
    RunResult saved = RunResultJson.read(out);
    var checks = saved.study().checks();
    assertEquals(1, checks.size(), checks.toString());
    assertTrue(checks.get(0).passed(), checks.toString());
    // orders still in flight when a probe's level ends are cut off and counted failed, with their
    // reason: what the ledger must not have is an order neither issued nor failed
    assertTrue(
        checks.get(0).detail().contains(", 0 neither; 0 serials issued twice; 0 ledger problems"),
        checks.toString());
    assertTrue(
        checks.get(0).detail().contains("second revokes refused alreadyRevoked"),
        checks.toString());
    List<WorkloadResult> measured =
        saved.workloads().stream().filter(w -> w.step() != null && !w.step().probe()).toList();
    assertEquals(
        List.of("acme:order", "acme:renew", "acme:revoke"),
        measured.stream().map(WorkloadResult::name).toList(),
        "the order, renew and revoke steps measured");
    for (WorkloadResult m : measured) {
      assertEquals(1, m.levels().size(), m.name() + ": " + m.failure());
      var level = m.levels().get(0);
      assertTrue(level.counts().succeeded() > 0, m.name() + ": " + level);
      assertEquals(0, level.counts().failed(), m.name() + ": " + level.errors());
      assertEquals(
          level.counts().succeeded(),
          level.counts().verified(),
          m.name() + ": every certificate issued (or revocation made) was checked: " + level);
    }
    String notes = String.join("\n", saved.study().notes());
    assertTrue(notes.contains("cores for 120/s at 70% CPU"), notes);
    assertTrue(notes.contains("finalize p50"), notes);
    assertTrue(notes.contains("revocations per CA CPU-second"), notes);
    List<Sample> written = study.samples(samples, fixture.pki, fixture.keys, null);
    assertTrue(!written.isEmpty(), "issued certificates saved");
    SampleScripts.write(samples, "ca", written);
    Process verify =
        new ProcessBuilder("bash", samples.resolve("verify.sh").toString())
            .redirectErrorStream(true)
            .start();
    String said = new String(verify.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(verify.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, verify.exitValue(), said);
    assertTrue(said.contains(written.size() + " verified, 0 failed"), said);
  }

  @Test
  void problems_flagsThatMeanNothingForCa_refusedNamingWhy() throws Exception {
    Path pem = Files.writeString(dir.resolve("root.pem"), "x");
    List<String> flagProblems = new ArrayList<>();
    List<CaStudy.Service> services =
        CaStudy.Service.parse("pebble,acme:https://127.0.0.1:1/dir,bogus", flagProblems);
    CaStudy study =
        new CaStudy(
            new CaStudy.Options(services, pem, null, 1L, 0, null, dir.resolve("w"), flagProblems));
    List<String> problems =
        study.problems(
            new StudyOptions(true, Duration.ofSeconds(5), "pkcs11:x.cfg", dir, dir.resolve("pin")));
    String all = String.join("\n", problems);
    assertTrue(all.contains("--service bogus: use pebble, openbao"), all);
    assertTrue(all.contains("--keys pkcs11:x.cfg: ca has no keys"), all);
    assertTrue(all.contains("--pin-file: ca uses no PKCS#11 token"), all);
    assertTrue(all.contains("--service acme:URL: give --issuer-trust PEM"), all);
    assertTrue(all.contains("--target-rate: give certificates per second above 0"), all);
    assertTrue(all.contains("--service acme:https://127.0.0.1:1/dir: cannot connect"), all);
  }

  @Test
  void problems_challengeHttp01WithoutPebble_refusedNamingTheFix() {
    List<String> flagProblems = new ArrayList<>();
    CaStudy study =
        new CaStudy(
            new CaStudy.Options(
                CaStudy.Service.parse("openbao", flagProblems),
                null,
                null,
                null,
                60,
                null,
                dir.resolve("w"),
                flagProblems,
                true));
    String all =
        String.join(
            "\n",
            study.problems(new StudyOptions(true, Duration.ofSeconds(5), "software", dir, null)));
    assertTrue(all.contains("--challenge http-01: the Pebble the study starts"), all);
    assertTrue(all.contains("add pebble or leave --challenge out"), all);
  }
}
