package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.cli.CliContext;
import io.pkibench.cli.Main;
import io.pkibench.report.SizingCheckTable;
import io.pkibench.report.StudyTables;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.StudyRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@org.junit.jupiter.api.Timeout(
    value = 10,
    unit = TimeUnit.MINUTES) // a study talks to its service JVM: a hang fails, said as one
class CheckSizingTest {
  private final StringWriter out = new StringWriter(), err = new StringWriter();

  private int study(Path dir, String... args) {
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of("PATH", System.getenv("PATH")),
            InstantSource.system(),
            dir,
            false);
    return Main.execute(ctx, args);
  }

  /**
   * The groups this JVM made under the cgroup roots (the study runs in this JVM, so its groups
   * carry this pid).
   */
  private static List<Path> ourGroups() throws Exception {
    String prefix = "pkibench-" + ProcessHandle.current().pid() + "-";
    List<Path> found = new ArrayList<>();
    for (Path root : CpuQuota.DEFAULT_ROOTS) {
      if (!Files.isDirectory(root)) continue;
      try (var list = Files.list(root)) {
        list.filter(p -> p.getFileName().toString().startsWith(prefix)).forEach(found::add);
      }
    }
    return found;
  }

  /**
   * CAdES on the built-in signer: limited to half a core it used at most ~half a core; predicted,
   * measured and miss printed and kept.
   */
  @Test
  void checkSizing_cadesOnBuiltinSigner_quotaHeldAndPredictionMeasuredAndMissKept(@TempDir Path dir)
      throws Exception {
    Assertions.assertTrue(
        CpuQuota.problem(CpuQuota.DEFAULT_ROOTS).isEmpty(),
        "--check-sizing needs a writable cgroup cpu controller: run the tests as root, as ./test does on CI; "
            + CpuQuota.problem(CpuQuota.DEFAULT_ROOTS));
    int code =
        study(
            dir,
            "study",
            "restpki",
            "--smoke",
            "--types",
            "cades",
            "--check-sizing",
            "--pki",
            "pki",
            "--out",
            "restpki.json");
    assertEquals(0, code, err.toString());
    RunResult result = RunResultJson.read(dir.resolve("restpki.json"));
    assertEquals(RunStatus.COMPLETE, result.status());
    assertEquals(
        List.of("CAdES", "CAdES @ 0.5 core", "CAdES @ 1 core"),
        result.study().steps().stream().map(StudyRecord.StepRecord::label).toList());
    int sizedAt = result.study().steps().get(0).chosenLevel();
    for (StudyRecord.StepRecord s : result.study().steps().subList(1, 3)) {
      assertEquals(
          sizedAt,
          s.chosenLevel(),
          "each limited step measured at the level CAdES was sized at: " + s);
      assertNull(s.probeWorkload(), "no probe of its own");
      assertTrue(
          s.hooks().stream().anyMatch(h -> h.contains("limit the services' CPU")),
          s.hooks().toString());
    }
    assertEquals(1, result.study().sizingChecks().size());
    StudyRecord.SizingCheck c = result.study().sizingChecks().get(0);
    assertEquals("CAdES", c.step());
    assertNull(c.notCheckedBecause(), c.notCheckedBecause());
    assertTrue(
        c.serviceCoresLimited() > 0 && c.serviceCoresLimited() <= 0.55,
        "the half-core quota held: " + c.serviceCoresLimited() + " cores");
    assertTrue(
        c.serviceCoresChecked() <= 1.05,
        "the one-core quota held: " + c.serviceCoresChecked() + " cores");
    assertEquals(
        c.opsPerCpuSecondLimited() * 1.0,
        c.predictedOpsPerSecond(),
        1e-9,
        "predicted = ops per service CPU-second at 0.5 core × 1 core");
    assertTrue(c.measuredOpsPerSecond() > 0);
    assertEquals(c.predictedOpsPerSecond() / c.measuredOpsPerSecond() - 1, c.miss(), 1e-9);
    assertTrue(
        result.study().notes().stream().anyMatch(n -> n.contains(StudyRecord.SizingCheck.FORMULA)),
        "the formula is in the result");
    String printed = out.toString();
    for (String s :
        List.of(
            "check-sizing: the capacity at 1 core predicted from 0.5 core",
            "predicted ops/s @ 1",
            "measured ops/s @ 1",
            "miss",
            StudyRecord.SizingCheck.FORMULA,
            String.format(Locale.ROOT, "%+.1f%%", c.miss() * 100),
            String.format(Locale.ROOT, "%.1f", c.predictedOpsPerSecond()))) {
      assertTrue(printed.contains(s), s + " in:\n" + printed);
    }
    assertTrue(
        printed.contains("n/a (CPU limited)"),
        "the seed's CPU-near-100% condition is not a limited step's:\n" + printed);
    assertTrue(
        printed.contains(
            "CAdES @ 0.5 core: " + sizedAt + " threads: the level step 'CAdES' was measured at"),
        printed);
    assertEquals(List.of(), ourGroups(), "the study's cgroup is removed at the end");
  }

  /**
   * However the study ends (here an exception while the services are limited), closing them removes
   * the group.
   */
  @Test
  void close_afterLimitCpuAndAFailure_removesTheGroup() throws Exception {
    Assertions.assertTrue(
        CpuQuota.problem(CpuQuota.DEFAULT_ROOTS).isEmpty(),
        "--check-sizing needs a writable cgroup cpu controller: run the tests as root, as ./test does on CI; "
            + CpuQuota.problem(CpuQuota.DEFAULT_ROOTS));
    List<String> log = new ArrayList<>();
    IllegalStateException failed =
        Assertions.assertThrows(
            IllegalStateException.class,
            () -> {
              try (RunningServices services =
                  RunningServices.plan(List.of(), List.of("java"), Map.of(), log::add)) {
                services.limitCpu(CpuQuota.DEFAULT_ROOTS, 0.5);
                assertEquals(1, ourGroups().size(), "the group is made: " + log);
                throw new IllegalStateException("a step failed");
              }
            });
    assertEquals("a step failed", failed.getMessage());
    assertEquals(List.of(), ourGroups(), "closing the services removed the group: " + log);
  }

  /**
   * A cgroup root that is no writable cgroup: refused before anything is measured, naming it and
   * the fix; exit 2.
   */
  @Test
  void checkSizing_cgroupRootNotWritable_refusesWithExitTwoBeforeMeasuring(@TempDir Path dir)
      throws Exception {
    Path root =
        Files.createDirectory(
            dir.resolve("cgroup"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("r-xr-xr-x")));
    int code =
        study(
            dir,
            "study",
            "restpki",
            "--smoke",
            "--types",
            "cades",
            "--check-sizing",
            "--cgroup-root",
            root.toString(),
            "--pki",
            "pki",
            "--out",
            "restpki.json");
    assertEquals(2, code, err.toString());
    assertTrue(
        err.toString().contains("--check-sizing: cannot limit a process's CPU here")
            && err.toString().contains(root.toString()),
        err.toString());
    assertTrue(
        err.toString().contains("Run as root") && err.toString().contains("--cgroup-root DIR"),
        err.toString());
    assertFalse(Files.exists(dir.resolve("restpki.json")), "nothing measured, no result written");
  }

  /**
   * Made-up measurements through the study's real steps: 40 ops/s on half a core is 80 per
   * CPU-second, against 75 measured at one.
   */
  @Test
  void of_limitedAndCheckStepsMeasured_predictsFromCpuSecondsAndStatesTheMiss(@TempDir Path dir)
      throws Exception {
    Study study =
        new RestPkiStudy(false)
            .only(List.of(RestPkiStudy.TYPES.get(1)))
            .checkingSizing(new CheckSizing(CpuQuota.DEFAULT_ROOTS));
    Map<String, Double> rates =
        Map.of("CAdES", 100.0, "CAdES @ 0.5 core", 40.0, "CAdES @ 1 core", 75.0);
    Map<String, Double> busy =
        Map.of(
            "CAdES", 0.9, "CAdES @ 0.5 core", 0.25, "CAdES @ 1 core", 0.5); // of StudyRuns' 2 cores
    RunResult run = StudyRuns.run(study, dir, rates::get, busy::get);
    StudyRecord.SizingCheck c = study.sizingChecks(run, null).get(0);
    assertEquals(80.0, c.opsPerCpuSecondLimited(), 1e-9, "120 operations over 1.5 CPU-seconds");
    assertEquals(80.0, c.predictedOpsPerSecond(), 1e-9);
    assertEquals(75.0, c.measuredOpsPerSecond(), 1e-9);
    assertEquals(80.0 / 75 - 1, c.miss(), 1e-9);
    assertEquals(0.5, c.serviceCoresLimited(), 1e-9);
    assertEquals(1.0, c.serviceCoresChecked(), 1e-9);
    String table =
        SizingCheckTable.terminal(run.withStudy(run.study().withSizingChecks(List.of(c))));
    assertTrue(
        table.contains("80.0")
            && table.contains("75.0")
            && table.contains("+6.7%")
            && table.contains("0.50"),
        table);
    assertFalse(
        table.contains("did not hold") || table.contains("did not fill"),
        "both limits held and were filled:\n" + table);
    String html = StudyTables.html(run.withStudy(run.study().withSizingChecks(List.of(c))));
    assertTrue(
        html.contains("<table id=\"sizing-check\">")
            && html.contains("<td>+6.7%</td>")
            && html.contains("<td>80.0</td>"),
        "the report shows the table as the terminal does:\n" + html);

    // Past the half core, and one core not filled: the table says both, as the figures alone would
    // mislead.
    Map<String, Double> off = Map.of("CAdES", 0.9, "CAdES @ 0.5 core", 0.3, "CAdES @ 1 core", 0.3);
    RunResult offRun = StudyRuns.run(study, dir.resolve("off"), rates::get, off::get);
    String offTable =
        SizingCheckTable.terminal(
            offRun.withStudy(offRun.study().withSizingChecks(study.sizingChecks(offRun, null))));
    assertTrue(
        offTable.contains("CAdES: the 0.5-core limit did not hold: the service used 0.60 core"),
        offTable);
    assertTrue(
        offTable.contains(
            "CAdES: at 1 core the service used only 0.60 core: the load did not fill the limit"),
        offTable);

    // The one-core step not measured: the check says so, its figures absent, and the table still
    // prints.
    RunResult missing =
        run.withStudy(
            run.study().withStep(new StudyRecord.StepRecord("CAdES @ 1 core", List.of())));
    StudyRecord.SizingCheck m = study.sizingChecks(missing, null).get(0);
    assertNull(m.measuredOpsPerSecond());
    assertNull(m.miss());
    assertEquals("'CAdES @ 1 core' was not measured", m.notCheckedBecause());
    assertTrue(
        SizingCheckTable.terminal(missing.withStudy(missing.study().withSizingChecks(List.of(m))))
            .contains("CAdES: not checked: 'CAdES @ 1 core' was not measured"));
  }

  /**
   * An optional field: a study result written before it reads back with none and is written as
   * before; one with it round-trips.
   */
  @Test
  void studyRecord_sizingChecks_optionalAndRoundTrips(@TempDir Path dir) throws Exception {
    Path before = Path.of("src/test/resources/runs/pix-smoke-1.json");
    RunResult old = RunResultJson.read(before);
    assertEquals(List.of(), old.study().sizingChecks());
    assertFalse(RunResultJson.toJson(old).contains("sizingChecks"), "absent when there are none");
    StudyRecord.SizingCheck c =
        new StudyRecord.SizingCheck(
            "CAdES",
            0.5,
            1,
            "CAdES @ 0.5 core",
            "CAdES @ 1 core",
            8,
            80.0,
            0.5,
            80.0,
            75.0,
            1.0,
            80.0 / 75 - 1,
            null);
    RunResult with = old.withStudy(old.study().withSizingChecks(List.of(c)));
    RunResultJson.write(with, dir.resolve("r.json"));
    assertEquals(List.of(c), RunResultJson.read(dir.resolve("r.json")).study().sizingChecks());
    assertEquals(
        StudyRecord.SCHEMA,
        RunResultJson.read(dir.resolve("r.json")).study().schema(),
        "a new optional field, the same version");
  }

  @Test
  void help_restpki_namesCheckSizingWithAnExample(@TempDir Path dir) {
    assertEquals(0, study(dir, "study", "restpki", "--help"));
    assertTrue(
        out.toString().contains("--check-sizing")
            && out.toString().contains("pkibench study restpki --quick --check-sizing"),
        out.toString());
    assertEquals(0, study(dir, "study", "pix", "--help"));
    assertTrue(
        out.toString().contains("pkibench study pix --quick --check-sizing"), out.toString());
  }

  @Test
  void checkSizing_withDssService_isRefusedNamingTheFlags(@TempDir Path dir) {
    int code =
        study(
            dir,
            "study",
            "restpki",
            "--smoke",
            "--types",
            "cades",
            "--check-sizing",
            "--service",
            "builtin,dss",
            "--pki",
            "pki");
    assertEquals(2, code, err.toString());
    assertTrue(
        err.toString().contains("--check-sizing: limits the CPU of the built-in signer"),
        err.toString());
  }
}
