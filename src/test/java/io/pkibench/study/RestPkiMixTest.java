package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.plan.MixSpec;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.report.MixTables;
import io.pkibench.results.RunResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code study restpki --mix}: the types sized together as one more step, beside each alone. */
class RestPkiMixTest {
  @TempDir Path dir;

  private static RestPkiStudy study(String services, String mix) {
    List<String> problems = new ArrayList<>();
    return new RestPkiStudy(
        false,
        RestPkiStudy.Service.parse(services, problems),
        null,
        problems,
        MixSpec.parse("--mix", mix));
  }

  @Test
  void steps_mix_oneStepAfterTheTypesWithEachTypeAsAMember() throws Exception {
    RestPkiStudy study = study("builtin", "cades=6,pades=3,timestamp=1");
    StudyOptions options =
        new StudyOptions(true, Duration.ofSeconds(10), "software", dir.resolve("pki"), null);
    RunningServices services =
        RunningServices.plan(study.services(options), List.of("java"), Map.of(), line -> {});
    List<Step> steps = study.steps(options, services);
    assertEquals(RestPkiStudy.TYPES.size() + 1, steps.size(), "each type alone, then the mix");
    Step mix = steps.get(steps.size() - 1);
    assertEquals("Mix cades=6,pades=3,timestamp=1", mix.label());
    assertNotNull(mix.probe(), "probed for the service's CPU as each type is");
    WorkloadSpec spec = mix.plan().workloads().get(0);
    assertEquals(
        List.of("http:cades", "http:pades", "http:timestamp"),
        spec.mix().members().stream().map(MixSpec.Member::name).toList());
    assertEquals(
        List.of("cades", "pades", "timestamp"),
        spec.mix().members().stream().map(MixSpec.Member::label).toList());
    assertEquals(
        "pdf",
        spec.mix().members().get(0).params().get("document"),
        "CAdES signs the PDF, as alone");
    assertEquals(
        services.url(RestPkiStudy.SIGNER), spec.mix().members().get(2).params().get("target"));
    assertEquals("services", mix.plan().cpu(), "the service's CPU");
  }

  @Test
  void problems_unknownTypeBadWeightOrNoBuiltinService_namedWithTheFix() {
    StudyOptions options =
        new StudyOptions(true, Duration.ofSeconds(10), "software", dir.resolve("pki"), null);
    List<String> problems = study("builtin", "cadez=6,pades=0").problems(options);
    assertTrue(
        problems.contains(
            "--mix cadez: not a transaction type of restpki; use auth, cades, cades-t, pades, pades-t, timestamp"),
        problems.toString());
    assertTrue(
        problems.stream().anyMatch(p -> p.contains("the weight of pades is 0")),
        problems.toString());
    List<String> dssOnly = study("dss", "cades=1").problems(options);
    assertTrue(
        dssOnly.contains("--mix: sizes the built-in signer's mix; add builtin to --service"),
        dssOnly.toString());
  }

  /**
   * 60% CAdES at 100 ops per service CPU-second, 30% PAdES at 50.3 (the fixture's iterations round
   * 50.5 up), 10% time-stamps at 1,000 predict 1 / (0.6/100 + 0.3/50.33 + 0.1/1000) = 82.9; the mix
   * measured 80.
   */
  @Test
  void studyTerminal_mixBesideItsParts_measuredOverPredicted() throws Exception {
    RestPkiStudy study = study("builtin", "cades=6,pades=3,timestamp=1");
    RunResult run =
        StudyRuns.run(
            study,
            dir,
            label ->
                switch (label) {
                  case "CAdES" -> 100;
                  case "PAdES" -> 50;
                  case "Timestamp" -> 1000;
                  case "Mix cades=6,pades=3,timestamp=1" -> 80;
                  default -> 10;
                },
            label -> 0.5);
    String text = MixTables.studyTerminal(run);
    assertTrue(
        text.contains(
            "Mix cades=6,pades=3,timestamp=1: 80.0 ops per service CPU-second measured as one mix;"
                + " its types alone (cades 100, pades 50.3, timestamp 1,000) predict 82.9 for these shares: measured / predicted = 0.96"),
        text);
  }
}
