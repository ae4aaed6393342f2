package io.pkibench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.report.ComparisonFormat;
import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

public class ComparisonTest {
  static final int[] LEVELS = {1, 2};
  public static final RunResult BASE = ResultFixtures.closedRun("sign", LEVELS,
      new double[][] {{1000, 1002, 998, 1001, 999}, {1900, 1960, 1840, 1930, 1870}}, new long[] {1_000_000, 1_050_000});
  /** c=1 drops 10%, outside the noise; c=2 drops 1%, inside it (its iterations spread by ±3%); p99 rises 20% at c=2. */
  public static final RunResult NEW = ResultFixtures.closedRun("sign", LEVELS,
      new double[][] {{900, 902, 898, 901, 899}, {1880, 1940, 1820, 1910, 1855}}, new long[] {1_000_000, 1_260_000});
  static final List<Threshold> LIMITS = List.of(Threshold.parse("throughput:-5%"), Threshold.parse("p99:+10%"));

  /** The same step of two study runs, whose targets differ (each service got a free port), as a study writes them. */
  static RunResult studyRun(RunResult run, String target) {
    var w = run.workloads().get(0);
    var params = new java.util.HashMap<>(w.params());
    params.put("target", target);
    return run.withWorkload(0, new io.pkibench.results.WorkloadResult(w.name(), params, w.keys(), w.cpuMeter(), w.levels(), null,
        new io.pkibench.results.WorkloadResult.Step("CAdES", "measure")));
  }

  @Test
  void of_studyRuns_matchByStepNotByTheirTargetsPort() {
    Comparison c = Comparison.of(studyRun(BASE, "https://127.0.0.1:41001"), studyRun(NEW, "https://127.0.0.1:43717"), LIMITS);
    assertEquals(List.of(), c.unmatched());
    assertEquals("FAIL", row(c, 1, Metric.THROUGHPUT).verdict());
    assertTrue(row(c, 1, Metric.THROUGHPUT).workload().startsWith("CAdES (measure, sign)"), row(c, 1, Metric.THROUGHPUT).workload());
  }

  @Test
  void of_regressionOutsideNoise_failsAndNoiseDoesNot() {
    Comparison c = Comparison.of(BASE, NEW, LIMITS);
    assertFalse(c.passed());
    Comparison.Row drop = row(c, 1, Metric.THROUGHPUT);
    assertEquals(-10.0, drop.deltaPercent(), 0.01);
    assertEquals(Boolean.FALSE, drop.overlap());
    assertEquals("FAIL", drop.verdict());
    Comparison.Row noise = row(c, 2, Metric.THROUGHPUT);
    assertEquals(Boolean.TRUE, noise.overlap());
    assertEquals("noise", noise.verdict(), "a 1% drop inside both intervals is noise, not a regression");
    assertEquals("FAIL", row(c, 2, Metric.P99).verdict());
    assertEquals("noise", row(c, 1, Metric.P99).verdict());
  }

  @Test
  void of_sameRun_passes() {
    Comparison c = Comparison.of(BASE, BASE, LIMITS);
    assertTrue(c.passed());
    assertTrue(c.rows().stream().allMatch(r -> r.verdict().equals("noise")));
  }

  @Test
  void formats_matchGoldenFiles() throws IOException {
    Comparison c = Comparison.of(BASE, NEW, LIMITS);
    golden("compare-v1.txt", ComparisonFormat.text(c));
    golden("compare-v1.md", ComparisonFormat.markdown(c));
  }

  @Test
  void threshold_wrongDirectionOrSyntax_explainsTheFix() {
    var e = assertThrows(IllegalArgumentException.class, () -> Threshold.parse("throughput:+5%"));
    assertTrue(e.getMessage().contains("throughput:-5%"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Threshold.parse("p99:-10%"));
    assertTrue(e.getMessage().contains("p99:+10%"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Threshold.parse("latency:+10%"));
    assertTrue(e.getMessage().contains("unknown metric"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Threshold.parse("p99:10"));
  }

  static void golden(String name, String actual) throws IOException {
    Path file = Path.of("src/test/resources/golden", name);
    if (Boolean.getBoolean("pkibench.updateGolden")) Files.writeString(file, actual);
    assertEquals(Files.readString(file), actual);
  }

  private static Comparison.Row row(Comparison c, double load, Metric m) {
    return c.rows().stream().filter(r -> r.load() == load && r.metric() == m).findFirst().orElseThrow();
  }
}
