package io.pkibench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResult;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * compare's gate where it is easiest to get wrong: at its limits, for changes that are real but
 * allowed, and for runs that do not match.
 */
class ComparisonGateTest {
  static final List<Threshold> LIMITS =
      List.of(Threshold.parse("throughput:-5%"), Threshold.parse("p99:+10%"));

  static RunResult run(String workload, double[] rates) {
    return ResultFixtures.closedRun(
        workload, new int[] {1}, new double[][] {rates}, new long[] {1_000_000});
  }

  static Comparison.Row throughput(Comparison c) {
    return c.rows().stream().filter(r -> r.metric() == Metric.THROUGHPUT).findFirst().orElseThrow();
  }

  @Test
  void of_dropBeyondTheNoiseButWithinItsLimit_worseAndThePassHolds() {
    Comparison c =
        Comparison.of(
            run("sign", new double[] {1000, 1001, 999, 1000, 1000}),
            run("sign", new double[] {970, 971, 969, 970, 970}),
            LIMITS);
    Comparison.Row r = throughput(c);
    assertEquals(-3.0, r.deltaPercent(), 0.01);
    assertEquals(Comparison.Verdict.worse, r.verdict(), "a real 3% drop, allowed by -5%: " + r);
    assertTrue(c.passed() && c.conclusive());
  }

  /**
   * A noisy drop whose interval reaches past the 5% an unlimited row is judged by but stays inside
   * a wider limit: with throughput:-20% it is the same (nothing more needed), without a limit
   * inconclusive with the iterations that would settle it. The mutation run found both the limit's
   * own size and "needed only when inconclusive" untested.
   */
  @Test
  void of_noisyDropInsideAWideLimitButPastFivePercent_sameWithTheLimitInconclusiveWithout() {
    RunResult base = run("sign", new double[] {1000, 1020, 980, 1010, 990}),
        now = run("sign", new double[] {950, 1050, 900, 1000, 960});
    Comparison.Row limited =
        throughput(Comparison.of(base, now, List.of(Threshold.parse("throughput:-20%"))));
    assertTrue(
        -limited.changeLowPercent() > Comparison.UNTHRESHOLDED_SIZE_PERCENT
            && -limited.changeLowPercent() < 20
            && limited.changeHighPercent() > 0,
        "the interval crosses zero and reaches past 5% but not 20%: " + limited);
    assertEquals(Comparison.Verdict.same, limited.verdict(), limited.toString());
    assertEquals(null, limited.iterationsNeeded(), "a settled row needs no more iterations");
    Comparison.Row unlimited = throughput(Comparison.of(base, now, List.of()));
    assertEquals(Comparison.Verdict.inconclusive, unlimited.verdict(), unlimited.toString());
    assertTrue(
        unlimited.iterationsNeeded() != null && unlimited.iterationsNeeded() > 5,
        unlimited.toString());
  }

  @Test
  void of_riseBeyondTheNoise_better() {
    Comparison c =
        Comparison.of(
            run("sign", new double[] {1000, 1001, 999, 1000, 1000}),
            run("sign", new double[] {1100, 1101, 1099, 1100, 1100}),
            LIMITS);
    assertEquals(Comparison.Verdict.better, throughput(c).verdict());
    assertTrue(c.passed());
  }

  @Test
  void holds_exactlyAtTheLimitHoldsAndJustPastItDoesNot() {
    Threshold drop = Threshold.parse("throughput:-5%");
    assertTrue(drop.holds(-5.0) && drop.holds(0) && drop.holds(12));
    assertFalse(drop.holds(-5.01));
    Threshold rise = Threshold.parse("p99:+10%");
    assertTrue(rise.holds(10.0) && rise.holds(-30));
    assertFalse(rise.holds(10.01));
  }

  @Test
  void toString_writesTheLimitAsItIsParsed() {
    for (String limit : List.of("throughput>-5%", "p99<+10%", "cpu>-2.5%", "max<+1%"))
      assertEquals(limit, Threshold.parse(limit).toString());
    assertEquals(-2.5, Threshold.parse("cpu:-2.5%").allowedPercent());
  }

  /** The wrong-way message word for word, the unsigned forms, and a metric name left empty. */
  @Test
  void parse_directionAndEdges_acceptedOrExplainedExactly() {
    assertEquals(
        "--threshold p99:-10%: p99 is better lower, so its limit is a rise: write p99<+10%",
        refusal("p99:-10%"));
    assertEquals(
        "--threshold throughput:+5%: throughput is better higher, so its limit is a drop: write throughput>-5%",
        refusal("throughput:+5%"));
    assertEquals(
        "--threshold p99:0%: p99 is better lower, so its limit is a rise: write p99<+0%",
        refusal("p99:0%"));
    assertTrue(
        refusal(":-5%").contains("unknown metric"),
        "a colon first: the metric is missing, not the syntax");
    assertTrue(
        refusal("throughput-5%").contains("write METRIC OP CHANGE%"),
        "no colon at all: the syntax, said as such");
    assertEquals(
        new Threshold(Metric.P99, 10),
        Threshold.parse("p99:10%"),
        "an unsigned change of a lower-is-better metric is a rise");
    assertEquals("p99<+10%", Threshold.parse("p99:10%").toString());
    assertEquals(
        new Threshold(Metric.MAX, 0.0),
        Threshold.parse("max:-0%"),
        "no change allowed reads the same with either sign");
  }

  static String refusal(String limit) {
    return assertThrows(IllegalArgumentException.class, () -> Threshold.parse(limit)).getMessage();
  }

  @Test
  void parse_unknownMetricBadNumberOrNoPercent_eachExplained() {
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Threshold.parse("speed:-5%"))
            .getMessage()
            .contains("unknown metric"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Threshold.parse("throughput:-five%"))
            .getMessage()
            .contains("write METRIC OP CHANGE%"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Threshold.parse("throughput:-5"))
            .getMessage()
            .contains("write METRIC OP CHANGE%"));
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> Threshold.parse("throughput:0%"))
            .getMessage()
            .contains("throughput is better higher, so its limit is a drop"));
  }

  @Test
  void of_runsSharingNoWorkload_noRowAndEachSideNamedUnmatched() {
    Comparison c =
        Comparison.of(
            run("sign", new double[] {1000, 1001, 999}),
            run("verify", new double[] {1000, 1001, 999}),
            LIMITS);
    assertEquals(List.of(), c.rows());
    assertEquals(2, c.unmatched().size(), c.unmatched().toString());
    assertTrue(
        c.unmatched().get(0).endsWith(": only in the base run")
            && c.unmatched().get(0).startsWith("sign"),
        c.unmatched().toString());
    assertTrue(
        c.unmatched().get(1).endsWith(": only in the new run")
            && c.unmatched().get(1).startsWith("verify"),
        c.unmatched().toString());
  }

  @Test
  void of_aLevelOnlyInTheBase_namedUnmatchedAndTheOtherCompared() {
    RunResult base =
        ResultFixtures.closedRun(
            "sign",
            new int[] {1, 2},
            new double[][] {{1000, 1001, 999}, {1900, 1901, 1899}},
            new long[] {1_000_000, 1_000_000});
    RunResult next = run("sign", new double[] {1000, 1001, 999});
    Comparison c = Comparison.of(base, next, LIMITS);
    assertEquals(1, c.unmatched().size(), c.unmatched().toString());
    assertTrue(
        c.unmatched().get(0).endsWith(" at 2: only in the base run (the new run measured it at 1)"),
        c.unmatched().toString());
    assertTrue(c.rows().stream().allMatch(r -> r.load() == 1), c.rows().toString());
  }

  /**
   * The mirror case: a level only the new run measured is named unmatched, the shared one compared,
   * and the gate still holds.
   */
  @Test
  void of_aLevelOnlyInTheNewRun_namedUnmatchedAndTheOtherCompared() {
    RunResult base = run("sign", new double[] {1000, 1001, 999});
    RunResult next =
        ResultFixtures.closedRun(
            "sign",
            new int[] {1, 2},
            new double[][] {{1000, 1001, 999}, {1900, 1901, 1899}},
            new long[] {1_000_000, 1_000_000});
    Comparison c = Comparison.of(base, next, LIMITS);
    assertEquals(1, c.unmatched().size(), c.unmatched().toString());
    assertTrue(
        c.unmatched().get(0).endsWith(" at 2: only in the new run (the base run measured it at 1)"),
        c.unmatched().toString());
    assertTrue(
        !c.rows().isEmpty() && c.rows().stream().allMatch(r -> r.load() == 1), c.rows().toString());
  }

  @Test
  void of_confidenceOutsideHalfToOne_refused() {
    RunResult r = run("sign", new double[] {1000, 1001, 999});
    for (double confidence : new double[] {0.5, 1.0, Double.NaN}) {
      assertThrows(
          IllegalArgumentException.class,
          () -> Comparison.of(r, r, LIMITS, confidence),
          "confidence " + confidence);
    }
  }

  @Test
  void of_withoutThresholds_aRealDropIsWorseNeverFail_andTheSameRunSame() {
    RunResult base = run("sign", new double[] {1000, 1001, 999, 1000, 1000});
    Comparison c =
        Comparison.of(base, run("sign", new double[] {900, 901, 899, 900, 900}), List.of());
    assertEquals(Comparison.Verdict.worse, throughput(c).verdict());
    assertTrue(c.passed(), "no limit, no failure");
    Comparison same = Comparison.of(base, base, List.of());
    assertTrue(
        same.rows().stream().allMatch(r -> r.verdict() == Comparison.Verdict.same),
        same.rows().toString());
  }

  @Test
  void of_singleIterationsUnchanged_sameWithoutALimitInconclusiveWithOne() {
    RunResult once = run("sign", new double[] {1000});
    assertEquals(
        Comparison.Verdict.same,
        throughput(Comparison.of(once, once, List.of())).verdict(),
        "no change at all, nothing asked");
    Comparison limited = Comparison.of(once, once, LIMITS);
    assertEquals(Comparison.Verdict.inconclusive, throughput(limited).verdict());
    assertFalse(
        limited.conclusive(), "a limit that cannot be decided leaves the gate inconclusive");
    RunResult other = run("sign", new double[] {900});
    assertEquals(
        Comparison.Verdict.inconclusive,
        throughput(Comparison.of(once, other, List.of())).verdict(),
        "a change one iteration cannot size");
  }

  @Test
  void of_noisyRowWithoutALimit_inconclusiveButTheGateStaysConclusive() {
    Comparison c =
        Comparison.of(
            run("sign", new double[] {900, 1000, 1100}),
            run("sign", new double[] {880, 970, 1090}),
            List.of());
    assertEquals(Comparison.Verdict.inconclusive, throughput(c).verdict());
    assertTrue(throughput(c).iterationsNeeded() > 3, throughput(c).toString());
    assertTrue(c.conclusive(), "only a row with a limit can leave the gate undecided");
  }

  @Test
  void of_latencyLowerIsBetter_aRiseIsWorseAndAFallBetter() {
    RunResult base =
        ResultFixtures.closedRun(
            "sign",
            new int[] {1},
            new double[][] {{1000, 1001, 999, 1000, 1000}},
            new long[] {1_000_000});
    RunResult slower =
        ResultFixtures.closedRun(
            "sign",
            new int[] {1},
            new double[][] {{1000, 1001, 999, 1000, 1000}},
            new long[] {1_300_000});
    RunResult faster =
        ResultFixtures.closedRun(
            "sign",
            new int[] {1},
            new double[][] {{1000, 1001, 999, 1000, 1000}},
            new long[] {700_000});
    Comparison.Row rise =
        Comparison.of(base, slower, LIMITS).rows().stream()
            .filter(r -> r.metric() == Metric.P99)
            .findFirst()
            .orElseThrow();
    assertEquals(Comparison.Verdict.FAIL, rise.verdict(), rise.toString());
    assertTrue(
        rise.changeLowPercent() > 0 && rise.changeHighPercent() > rise.changeLowPercent(),
        rise.toString());
    Comparison.Row fall =
        Comparison.of(base, faster, LIMITS).rows().stream()
            .filter(r -> r.metric() == Metric.P99)
            .findFirst()
            .orElseThrow();
    assertEquals(Comparison.Verdict.better, fall.verdict(), fall.toString());
  }
}
