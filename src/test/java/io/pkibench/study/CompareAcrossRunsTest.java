package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.analysis.Comparison;
import io.pkibench.analysis.Metric;
import io.pkibench.analysis.Threshold;
import io.pkibench.cli.CliContext;
import io.pkibench.cli.Main;
import io.pkibench.report.ComparisonFormat;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.WorkloadResult;
import io.pkibench.testing.TestKeys;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two runs of each study as its runner records them: the steps its {@code steps()} really plans,
 * over services given their own free loopback ports in each run (as every study run picks them),
 * with fixed measurements. Compare must match every step of one run with the same step of the
 * other, whatever the ports.
 */
class CompareAcrossRunsTest {
  @TempDir static Path dir;

  @org.junit.jupiter.api.BeforeAll
  static void pki() {
    TestKeys.in(dir); // the studies that sign sample documents read the test PKI while planning
  }

  @Test
  void compare_pixRunsOnDifferentPorts_matchesEveryStep() throws Exception {
    RunResult first = studyRun(new PixStudy(PixStudy.Fault.parse("kill-node@4s")), 1.0);
    RunResult second = studyRun(new PixStudy(PixStudy.Fault.parse("kill-node@4s")), 1.0);
    String firstKeys = first.workloads().get(0).keys(),
        secondKeys = second.workloads().get(0).keys();
    assertTrue(firstKeys.startsWith("remote:127.0.0.1:") && firstKeys.endsWith("=50"), firstKeys);
    assertNotEquals(firstKeys, secondKeys, "each run's nodes listen on their own ports");

    Comparison c = Comparison.of(first, second, List.of(Threshold.parse("throughput:-5%")));
    assertEquals(List.of(), c.unmatched(), ComparisonFormat.text(c));
    assertTrue(c.complete(), ComparisonFormat.text(c));
    assertEquals(
        steps(first),
        c.rows().stream()
            .map(r -> r.workload().replaceFirst(" \\((measure|probe), .*", ""))
            .collect(Collectors.toCollection(LinkedHashSet::new)),
        "every step has rows");
    long levels = first.workloads().stream().mapToLong(w -> w.levels().size()).sum();
    assertEquals(
        levels,
        c.rows().stream().filter(r -> r.metric() == Metric.THROUGHPUT).count(),
        "every level compared");
    String row =
        c.rows().stream()
            .filter(r -> r.workload().startsWith(PixStudy.SPI + " (measure"))
            .findFirst()
            .orElseThrow()
            .workload();
    assertTrue(
        row.contains("remote:node1=50,node2=50"), "nodes by order and weight, not by port: " + row);
  }

  /**
   * The CLI as CI runs it: two pix runs on other ports pass a gate; the same with one step missing
   * in the new run exits non-zero, saying why.
   */
  @Test
  void compareCommand_pixStepMissingInOneRun_incompleteAndExitsNonZero() throws Exception {
    RunResult base = studyRun(new PixStudy(), 1.0), next = studyRun(new PixStudy(), 1.0);
    RunResultJson.write(base, dir.resolve("base.json"));
    RunResultJson.write(next, dir.resolve("new.json"));
    StringBuilder out = new StringBuilder();
    assertEquals(
        0,
        compare(out, "compare", "base.json", "new.json", "--threshold", "throughput:-5%"),
        out.toString());
    assertFalse(out.toString().contains("not compared"), out.toString());

    int spi = indexOf(next, PixStudy.SPI);
    List<WorkloadResult> rest = new ArrayList<>(next.workloads());
    rest.remove(spi);
    RunResult missing =
        next.toBuilder()
            .workloads(rest)
            .analysis(null)
            .metrics(null)
            .agent(null)
            .merge(null)
            .thresholds(null)
            .build();
    RunResultJson.write(missing, dir.resolve("missing.json"));
    out.setLength(0);
    assertEquals(
        6,
        compare(out, "compare", "base.json", "missing.json", "--threshold", "throughput:-5%"),
        out.toString());
    String text = out.toString();
    assertTrue(
        text.contains(
            "not compared: "
                + PixStudy.SPI
                + " (measure, spi-sign) @remote:node1=50,node2=50: only in the base run"),
        text);
    assertTrue(
        text.contains("incomplete: 1 workload or level is in one run only")
            && text.contains("are not passed"),
        text);
    out.setLength(0);
    assertEquals(
        0,
        compare(out, "compare", "base.json", "missing.json"),
        "without a threshold nothing can fail, but it says so: " + out);
    assertTrue(out.toString().contains("incomplete: 1 workload"), out.toString());
  }

  /**
   * Two results saved by two runs of {@code pkibench study pix --smoke}, one after the other (only
   * this machine's paths taken out).
   */
  static final Path REAL_RUNS = Path.of("src/test/resources/runs");

  /**
   * Real pix results, not made-up ones: each run's nodes listened on their own ports, with their
   * own pids, warm-ups and figures. Compare matches every step and level of one with the other's; a
   * step or a level missing from the new run makes the comparison incomplete, and a gate then exits
   * 6 saying what was not compared.
   */
  @Test
  void compareCommand_twoRealPixRuns_everyStepAndLevelCompared_aMissingStepOrLevelFailsTheGate()
      throws Exception {
    RunResult first = RunResultJson.read(REAL_RUNS.resolve("pix-smoke-1.json")),
        second = RunResultJson.read(REAL_RUNS.resolve("pix-smoke-2.json"));
    assertNotEquals(
        first.workloads().get(0).keys(),
        second.workloads().get(0).keys(),
        "the two runs' nodes listened on other ports");
    Comparison c = Comparison.of(first, second, List.of(Threshold.parse("throughput:-99%")));
    assertEquals(List.of(), c.unmatched(), ComparisonFormat.text(c));
    assertEquals(
        steps(first),
        c.rows().stream()
            .map(r -> r.workload().replaceFirst(" \\((measure|probe), .*", ""))
            .collect(Collectors.toCollection(LinkedHashSet::new)),
        "every step has rows");
    long levels = first.workloads().stream().mapToLong(w -> w.levels().size()).sum();
    assertEquals(
        levels,
        c.rows().stream().filter(r -> r.metric() == Metric.THROUGHPUT).count(),
        "every level compared");

    Files.copy(
        REAL_RUNS.resolve("pix-smoke-1.json"),
        dir.resolve("real-1.json"),
        StandardCopyOption.REPLACE_EXISTING);
    Files.copy(
        REAL_RUNS.resolve("pix-smoke-2.json"),
        dir.resolve("real-2.json"),
        StandardCopyOption.REPLACE_EXISTING);
    StringBuilder out = new StringBuilder();
    int whole =
        compare(out, "compare", "real-1.json", "real-2.json", "--threshold", "throughput:-99%");
    assertTrue(
        whole != 6
            && !out.toString().contains("not compared")
            && !out.toString().contains("incomplete"),
        whole + "\n" + out);

    // the handshake's measured sweep missing from the new run, and the SPI signature's last level
    List<WorkloadResult> rest = new ArrayList<>(second.workloads());
    int spi = indexOf(second, PixStudy.SPI);
    WorkloadResult spiSweep = rest.get(spi);
    rest.set(
        spi,
        spiSweep.toBuilder()
            .levels(spiSweep.levels().subList(0, spiSweep.levels().size() - 1))
            .keyNodes(List.of())
            .outcomes(Map.of())
            .notes(List.of())
            .mix(null)
            .wycheproof(null)
            .inputs(List.of())
            .build());
    rest.remove(indexOf(second, PixStudy.HANDSHAKE));
    RunResult missing =
        second.toBuilder()
            .workloads(rest)
            .analysis(null)
            .metrics(null)
            .agent(null)
            .merge(null)
            .thresholds(null)
            .build();
    RunResultJson.write(missing, dir.resolve("real-missing.json"));
    out.setLength(0);
    assertEquals(
        6,
        compare(
            out, "compare", "real-1.json", "real-missing.json", "--threshold", "throughput:-99%"),
        out.toString());
    String text = out.toString();
    assertTrue(
        text.contains(
            "not compared: "
                + PixStudy.HANDSHAKE
                + " (measure, tls-handshake) @remote:node1=50,node2=50: only in the base run"),
        text);
    int last = spiSweep.levels().get(spiSweep.levels().size() - 1).concurrency();
    assertTrue(
        text.contains(
            "not compared: "
                + PixStudy.SPI
                + " (measure, spi-sign) @remote:node1=50,node2=50 at "
                + last
                + ": only in the base run"),
        text);
    assertTrue(text.contains("incomplete: 2 workloads or levels are in one run only"), text);
  }

  private int compare(StringBuilder out, String... args) {
    StringWriter o = new StringWriter(), e = new StringWriter();
    var ctx =
        new CliContext(
            new PrintWriter(o, true),
            new PrintWriter(e, true),
            Map.of(),
            InstantSource.system(),
            dir,
            false);
    int code = Main.execute(ctx, args);
    out.append(o).append(e);
    return code;
  }

  private static int indexOf(RunResult run, String step) {
    for (int i = 0; i < run.workloads().size(); i++) {
      WorkloadResult w = run.workloads().get(i);
      if (w.step().label().equals(step) && !w.probe()) return i;
    }
    throw new AssertionError("no step " + step);
  }

  /**
   * Every study, not pix alone: a service's port in a target (restpki, ssl, pec) must not break
   * matching either.
   */
  @Test
  void compare_everyStudyRunsOnDifferentPorts_matchesEveryStep() throws Exception {
    for (Study study : studies()) {
      RunResult first = studyRun(study, 1.0), second = studyRun(study, 1.0);
      Comparison c = Comparison.of(first, second, List.of());
      assertEquals(List.of(), c.unmatched(), study.name() + ":\n" + ComparisonFormat.text(c));
      long levels = first.workloads().stream().mapToLong(w -> w.levels().size()).sum();
      assertEquals(
          levels,
          c.rows().stream().filter(r -> r.metric() == Metric.THROUGHPUT).count(),
          study.name());
    }
  }

  private List<Study> studies() {
    return List.of(
        new RestPkiStudy(false),
        new PixStudy(),
        new RsfnStudy(),
        new PecStudy(PecStudy.Config.defaults(dir.resolve("pec"), null)),
        new SslStudy(List.of("jsse", "openssl")));
  }

  static Set<String> steps(RunResult run) {
    Set<String> labels = new LinkedHashSet<>();
    for (WorkloadResult w : run.workloads()) labels.add(w.step().label());
    return labels;
  }

  /**
   * A run of {@code study} as its runner records it (see {@link StudyRuns}), every step at {@code
   * scale} × 1,000 ops/s.
   */
  RunResult studyRun(Study study, double scale) throws Exception {
    return StudyRuns.run(study, dir, label -> 1000 * scale, label -> 0.5);
  }
}
