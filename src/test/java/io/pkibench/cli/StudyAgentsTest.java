package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.Counts;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.StudyRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code study restpki --agents 2 --local}: one signer the study starts, its probe in the study's
 * JVM, the chosen level run by two agent JVMs and merged into the study's one result; and a study
 * whose steps call no service by URL, refused.
 */
@org.junit.jupiter.api.Timeout(
    value = 5,
    unit = java.util.concurrent.TimeUnit.MINUTES) // a study talks to its service and agent JVMs
class StudyAgentsTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return Main.execute(
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of("PATH", System.getenv("PATH")),
            InstantSource.system(),
            dir,
            false),
        args);
  }

  @Test
  void studyRestpki_twoLocalAgents_stepIsTheAgentsSumAndServiceCpuCountedOnce() throws Exception {
    assertEquals(
        0,
        run(
            "study",
            "restpki",
            "--smoke",
            "--types",
            "cades",
            "--agents",
            "2",
            "--local",
            "--pki",
            "pki",
            "--out",
            "restpki.json"),
        err + "\n" + out);
    RunResult study = RunResultJson.read(dir.resolve("restpki.json"));
    assertEquals(RunStatus.COMPLETE, study.status());
    StudyRecord.StepRecord step = study.study().steps().get(0);
    assertEquals("CAdES", step.label());
    LevelResult m = study.workloads().get(step.measuredWorkload()).levels().get(0);
    assertEquals(
        step.chosenLevel().intValue(), m.concurrency(), "the probe's level, split and merged back");
    RunResult one = RunResultJson.read(dir.resolve("restpki.CAdES.agent1.json"));
    RunResult two = RunResultJson.read(dir.resolve("restpki.CAdES.agent2.json"));
    LevelResult a = one.workloads().get(0).levels().get(0);
    LevelResult b = two.workloads().get(0).levels().get(0);
    assertEquals(
        m.concurrency(), a.concurrency() + b.concurrency(), "the agents' shares sum to the level");
    assertTrue(
        a.counts().succeeded() > 0 && b.counts().succeeded() > 0, a.counts() + " " + b.counts());
    assertEquals(
        new Counts(
            a.counts().started() + b.counts().started(),
            a.counts().succeeded() + b.counts().succeeded(),
            a.counts().failed() + b.counts().failed()),
        m.counts(),
        "the study's step counts are the agents' summed");
    // Both agents read the one signer's CPU over the same shared intervals: the step counts it
    // once, not twice.
    assertTrue(m.cpu().meter().startsWith("pid:"), m.cpu().meter());
    List<IterationResult> measured = m.iterations().stream().filter(i -> !i.warmup()).toList();
    for (IterationResult it : measured) {
      long ofA =
          a.iterations().stream()
              .filter(i -> !i.warmup() && i.index() == it.index())
              .findFirst()
              .orElseThrow()
              .cpuNanos();
      long ofB =
          b.iterations().stream()
              .filter(i -> !i.warmup() && i.index() == it.index())
              .findFirst()
              .orElseThrow()
              .cpuNanos();
      assertTrue(ofA > 0 && ofB > 0, "each agent read the service's CPU: " + ofA + " " + ofB);
      assertEquals(
          Math.max(ofA, ofB),
          it.cpuNanos(),
          "the service's CPU once, not the agents' readings summed");
    }
    assertTrue(
        study.study().notes().stream().anyMatch(n -> n.contains("2 agent processes")),
        study.study().notes().toString());
    assertTrue(out.toString().contains("CAdES"), "the study's table prints: " + out);
  }

  @Test
  void studyPix_agents_refusedNamingTheStudyAndWhyBeforeAnythingStarts() {
    assertEquals(
        ExitCodes.USAGE,
        run(
            "study",
            "pix",
            "--smoke",
            "--agents",
            "2",
            "--local",
            "--pki",
            "pki",
            "--out",
            "pix.json"),
        err.toString());
    assertTrue(err.toString().contains("--agents: study pix cannot spread step"), err.toString());
    assertTrue(err.toString().contains("calls no service by URL"), err.toString());
    assertFalse(Files.exists(dir.resolve("pix.json")), "nothing ran");
  }
}
