package io.pkibench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.measure.LatencyHistograms;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.MixSpec;
import io.pkibench.plan.Plan;
import io.pkibench.plan.Stages;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.ErrorCount;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.ThresholdVerdict;
import io.pkibench.results.WorkloadResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * {@code run --threshold}: expressions read as k6 writes them, every bad one refused with its fix,
 * and checked level by level.
 */
class RunThresholdTest {

  @Test
  void parse_k6StyleExpressions_readInBaseUnits() {
    RunThreshold p99 = RunThreshold.parse("--threshold", "p99<50ms");
    assertEquals(RunThreshold.Figure.P99, p99.figure());
    assertEquals(RunThreshold.Comparison.LESS, p99.comparison());
    assertEquals(50e6, p99.limit(), 1e-6, "50 ms in nanoseconds");
    assertNull(p99.scope());
    assertNull(p99.stage());

    assertEquals(2e6, RunThreshold.parse("--threshold", "p50<=2ms").limit(), 1e-6);
    assertEquals(
        RunThreshold.Comparison.AT_MOST,
        RunThreshold.parse("--threshold", "p50<=2ms").comparison());
    assertEquals(1e9, RunThreshold.parse("--threshold", "max<1s").limit(), 1e-6);
    assertEquals(
        250e3,
        RunThreshold.parse("--threshold", "mean < 250 us").limit(),
        1e-6,
        "spaces around the comparison and unit");
    assertEquals(
        RunThreshold.Figure.P50, RunThreshold.parse("--threshold", "med<1ms").figure(), "k6's med");
    assertEquals(
        RunThreshold.Figure.MEAN,
        RunThreshold.parse("--threshold", "avg<1ms").figure(),
        "k6's avg");
    assertEquals(RunThreshold.Figure.P999, RunThreshold.parse("--threshold", "p99.9<3ms").figure());
    assertEquals(
        RunThreshold.Figure.P99,
        RunThreshold.parse("--threshold", "p(99)<3ms").figure(),
        "k6's p(99)");
    assertEquals(
        RunThreshold.Figure.P999,
        RunThreshold.parse("--threshold", "sign.p(99.9)<3ms").figure(),
        "k6's p(99.9), scoped");
    RunThreshold errors = RunThreshold.parse("--threshold", "errors<1%");
    assertEquals(RunThreshold.Figure.ERRORS, errors.figure());
    assertEquals(1.0, errors.limit(), 1e-9, "a percentage");
    RunThreshold throughput = RunThreshold.parse("--threshold", "throughput>=1000/s");
    assertEquals(RunThreshold.Comparison.AT_LEAST, throughput.comparison());
    assertEquals(1000, throughput.limit(), 1e-9);
    assertEquals(RunThreshold.Figure.CPU, RunThreshold.parse("--threshold", "cpu>=500/s").figure());
  }

  @Test
  void parse_scopes_workloadMemberAndStageSplitFromTheMetric() {
    RunThreshold member = RunThreshold.parse("--threshold", "sign.p99<5ms");
    assertEquals("sign", member.scope());
    assertNull(member.stage());
    RunThreshold stage = RunThreshold.parse("--threshold", "stage2.p99<20ms");
    assertNull(stage.scope());
    assertEquals(2, stage.stage());
    RunThreshold both = RunThreshold.parse("--threshold", "http:cades.stage3.p99.9<1s");
    assertEquals("http:cades", both.scope(), "a workload name with a colon");
    assertEquals(3, both.stage());
    assertEquals(RunThreshold.Figure.P999, both.figure());
  }

  @Test
  void parse_k6TagScopes_readAsTheDottedOnes() {
    RunThreshold member = RunThreshold.parse("--threshold", "p99{workload:sign}<5ms");
    assertEquals("sign", member.scope());
    assertNull(member.stage());
    assertEquals(5e6, member.limit(), 1e-6);
    RunThreshold stage = RunThreshold.parse("--threshold", "p(99){stage:2}<20ms");
    assertNull(stage.scope());
    assertEquals(2, stage.stage());
    assertEquals(RunThreshold.Figure.P99, stage.figure());
    RunThreshold both = RunThreshold.parse("--threshold", "p99.9{workload:http:cades, stage:3}<1s");
    assertEquals("http:cades", both.scope());
    assertEquals(3, both.stage());
    assertTrue(refusal("p99{host:a}<5ms").contains("{workload:NAME}"), refusal("p99{host:a}<5ms"));
  }

  @Test
  void parse_compareChangeInARun_pointsToCompare() {
    String refused = refusal("throughput>-5%");
    assertTrue(
        refused.contains("pkibench compare --threshold throughput>-5%")
            && refused.contains("throughput>=1000/s"),
        refused);
  }

  @Test
  void parse_badExpressions_refusedNamingTheProblemAndTheFix() {
    assertTrue(
        refusal("p98<5ms").contains("unknown metric 'p98'")
            && refusal("p98<5ms").contains("did you mean"),
        refusal("p98<5ms"));
    assertTrue(
        refusal("sign.latncy<5ms").contains("unknown metric 'latncy'"), refusal("sign.latncy<5ms"));
    assertTrue(
        refusal("p99<50").contains("has no unit") && refusal("p99<50").contains("p99<50ms"),
        refusal("p99<50"));
    assertTrue(refusal("errors<1").contains("errors<1%"), refusal("errors<1"));
    assertTrue(
        refusal("throughput>1000").contains("throughput>=1000/s"), refusal("throughput>1000"));
    assertTrue(refusal("p99<5%").contains("'%' is not a unit of p99"), refusal("p99<5%"));
    assertTrue(refusal("p99<-5ms").contains("negative"), refusal("p99<-5ms"));
    assertTrue(refusal("errors<150%").contains("at most 100%"), refusal("errors<150%"));
    assertTrue(refusal("p99 50ms").contains("no comparison"), refusal("p99 50ms"));
    assertTrue(refusal("p99==50ms").contains("use <, <=, > or >="), refusal("p99==50ms"));
    assertTrue(refusal("p99<").contains("no limit"), refusal("p99<"));
    assertTrue(refusal("stage0.p99<5ms").contains("count from 1"), refusal("stage0.p99<5ms"));
    String two = refusal("p98<-5");
    assertTrue(
        two.startsWith("--threshold p98<-5: ")
            && two.contains("unknown metric")
            && two.contains("negative"),
        "every problem of one expression: " + two);
  }

  @Test
  void problems_scopesThePlanCannotGive_eachNamedAtOnce() {
    Plan mix =
        Plan.of(
                List.of(
                    new WorkloadSpec(
                        "mix",
                        Map.of(),
                        "software",
                        new MixSpec(
                            List.of(
                                new MixSpec.Member("sign", null, 7, Map.of()),
                                new MixSpec.Member("verify", null, 3, Map.of())),
                            1))))
            .load(new LoadModel.Staged(Stages.fromText("1s:2,1s:2"), 2))
            .warmup(new Iterations(0, Duration.ofSeconds(1)))
            .measure(new Iterations(1, Duration.ofSeconds(2)))
            .build();
    List<String> parseProblems = new ArrayList<>();
    RunThresholds t =
        RunThresholds.parse(
            List.of(
                "sgn.p99<5ms",
                "stage3.p99<5ms",
                "sign.cpu>=10/s",
                "verify.stage1.p99<5ms",
                "sign.p99<5ms",
                "stage2.errors<1%",
                "mix.throughput>=1/s"),
            parseProblems);
    assertEquals(List.of(), parseProblems);
    List<String> problems = t.problems(mix);
    assertEquals(4, problems.size(), String.join("\n", problems));
    assertTrue(
        problems.get(0).contains("'sgn' is no workload or mix member")
            && problems.get(0).contains("did you mean 'sign'"),
        problems.get(0));
    assertTrue(problems.get(1).contains("the run has 2 stages"), problems.get(1));
    assertTrue(
        problems.get(2).contains("no CPU of its own")
            && problems.get(2).contains("write cpu>=10/s"),
        problems.get(2));
    assertTrue(problems.get(3).contains("no per-stage figures"), problems.get(3));

    Plan closed =
        Plan.of(List.of(new WorkloadSpec("noop", Map.of(), "software")))
            .concurrency(List.of(1, 2))
            .warmup(new Iterations(0, Duration.ofSeconds(1)))
            .measure(new Iterations(1, Duration.ofSeconds(1)))
            .build();
    List<String> unstaged =
        RunThresholds.parse(List.of("stage1.p99<5ms"), new ArrayList<>()).problems(closed);
    assertTrue(
        unstaged.size() == 1 && unstaged.get(0).contains("only a run with --stages has stages"),
        unstaged.toString());
  }

  /**
   * Two levels, the first inside every limit and the second past them: each level gets its own
   * verdict.
   */
  @Test
  void evaluate_twoLevels_eachLevelJudgedOnItsOwnFigures() {
    LevelResult fast = level(1, 1000, 0, 1_000_000L); // 1,000 ops in 1 s, each 1 ms, no error
    LevelResult slow = level(2, 900, 100, 80_000_000L); // 100 of 1,000 failed (10%), each 80 ms
    RunResult result =
        RunResult.start(null, null)
            .withWorkload(
                0,
                WorkloadResult.builder("noop")
                    .params(Map.of())
                    .keys("software")
                    .cpuMeter("jvm")
                    .levels(List.of(fast, slow))
                    .build());
    List<ThresholdVerdict> v =
        RunThresholds.parse(
                List.of(
                    "p99<50ms",
                    "errors<5%",
                    "throughput>=950/s",
                    "noop.throughput>=1000/s",
                    "verify.p99<1s"),
                new ArrayList<>())
            .evaluate(result);
    assertEquals(9, v.size(), v.toString());
    assertEquals(
        List.of(true, false),
        List.of(v.get(0).passed(), v.get(1).passed()),
        "p99: 1 ms passes, 80 ms fails");
    assertEquals("1 worker", v.get(0).level());
    assertEquals("2 workers", v.get(1).level());
    assertEquals(80e6, v.get(1).observed(), 80e6 * 0.001, "the slow level's p99, in ns");
    assertEquals(10.0, v.get(3).observed(), 1e-9, "100 failed of 1,000 started");
    assertEquals(List.of(true, false), List.of(v.get(2).passed(), v.get(3).passed()), "errors");
    assertEquals(
        List.of(true, false),
        List.of(v.get(4).passed(), v.get(5).passed()),
        "throughput 1,000/s then 900/s against 950/s");
    assertEquals(
        List.of(true, false),
        List.of(v.get(6).passed(), v.get(7).passed()),
        ">= holds at the limit itself: " + v.get(6));
    assertFalse(
        v.get(8).passed(), "a scope the result lacks fails: a gate must not pass on nothing");
    assertEquals("the result has no workload or member 'verify'", v.get(8).why());
    assertFalse(RunThresholds.allPassed(v));
  }

  private static String refusal(String expression) {
    return assertThrows(
            IllegalArgumentException.class, () -> RunThreshold.parse("--threshold", expression))
        .getMessage();
  }

  private static LevelResult level(int workers, long succeeded, long failed, long latencyNanos) {
    Histogram h = LatencyHistograms.newHistogram();
    h.recordValueWithCount(latencyNanos, succeeded);
    List<ErrorCount> errors = failed == 0 ? List.of() : List.of(new ErrorCount("refused", failed));
    IterationResult it =
        IterationResult.builder()
            .series(1)
            .index(1)
            .durationNanos(1_000_000_000L)
            .started(succeeded + failed)
            .succeeded(succeeded)
            .failed(failed)
            .cpuNanos(500_000_000L)
            .errors(errors)
            .histogram(LatencyHistograms.toBase64(h))
            .build();
    return LevelResult.of(workers, null, List.of(it), "jvm", 2);
  }
}
