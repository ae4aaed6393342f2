package io.pkibench.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PlanParsingTest {

  /**
   * --verify-sample: below 1 refused, above 1 without --verify refused (nothing would be checked);
   * 0, the default, checks every answer and is left out of the plan as written.
   */
  @Test
  void verifySample_belowOneOrWithoutVerify_refusedNamingTheFlag() {
    Plan.Builder plan =
        Plan.of(List.of(new WorkloadSpec("sign", Map.of(), "software")))
            .concurrency(List.of(1))
            .warmup(Iterations.parse("0x1s"))
            .measure(Iterations.parse("1x1s"));
    assertEquals(List.of(), plan.verify(true).verifySample(10).build().problems());
    assertEquals(10, plan.build().verifyEvery());
    assertEquals(1, plan.verifySample(0).build().verifyEvery(), "0: every answer");
    assertEquals(
        List.of(
            "--verify-sample: -1 is below 1; give N to check one answer in N, e.g. --verify-sample 10"
                + " (default: every one)"),
        plan.verifySample(-1).build().problems());
    assertEquals(
        List.of("--verify-sample: checks are off; add --verify, or leave --verify-sample out"),
        plan.verify(false).verifySample(5).build().problems());
  }

  @Test
  void concurrency_doublingRange_endsAtUpperBound() {
    assertEquals(List.of(1, 2, 4, 8, 16, 32, 64), ConcurrencyList.parse("1..64"));
    assertEquals(List.of(1, 2, 4, 8, 12), ConcurrencyList.parse("1..12"));
    assertEquals(List.of(1, 3, 5), ConcurrencyList.parse("1, 3,5"));
  }

  @Test
  void concurrency_garbage_explainsSyntax() {
    var e = assertThrows(IllegalArgumentException.class, () -> ConcurrencyList.parse("1,x"));
    assertTrue(e.getMessage().contains("1..64"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ConcurrencyList.parse("0"));
    assertThrows(IllegalArgumentException.class, () -> ConcurrencyList.parse("8..2"));
  }

  @Test
  void durations_everyUnit_roundTrips() {
    assertEquals(Duration.ofMillis(500), Durations.parse("500ms"));
    assertEquals(Duration.ofSeconds(10), Durations.parse("10s"));
    assertEquals(Duration.ofMinutes(5), Durations.parse("5m"));
    assertEquals(Duration.ofHours(1), Durations.parse("1h"));
    for (String s : List.of("500ms", "10s", "5m", "1h", "1500ms"))
      assertEquals(s, Durations.format(Durations.parse(s)));
    assertThrows(IllegalArgumentException.class, () -> Durations.parse("10"));
    assertThrows(IllegalArgumentException.class, () -> Durations.parse("1.5s"));
    for (String huge : List.of("9223372036854775807h", "99999999999999999999s", "745h")) {
      var e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(huge), huge);
      assertTrue(
          e.getMessage().contains("longer than 31 days") && e.getMessage().contains(huge),
          e.getMessage());
    }
    assertEquals(Duration.ofDays(31), Durations.parse("744h"), "the longest taken");
  }

  @Test
  void workers_pastTheBarrierOrTooManyPlatformThreads_refusedNamingTheFlagAndTheWayOut() {
    var spec = List.of(new WorkloadSpec("noop", Map.of(), "software"));
    Iterations one = Iterations.parse("1x1s");
    List<String> tooMany =
        new Plan(
                spec,
                new LoadModel.Closed(List.of(1_000_001)),
                one,
                one,
                1,
                ThreadKind.VIRTUAL,
                false,
                "jvm")
            .problems();
    assertEquals(1, tooMany.size(), tooMany.toString());
    assertTrue(
        tooMany
                .get(0)
                .startsWith(
                    "--concurrency: 1000001 workers is more than one process runs (1000000: ")
            && tooMany.get(0).contains("3 GB"),
        "the limit and why: " + tooMany);
    assertEquals(
        List.of(),
        new Plan(
                spec,
                new LoadModel.Closed(List.of(100_000, 1_000_000)),
                one,
                one,
                1,
                ThreadKind.VIRTUAL,
                false,
                "jvm")
            .problems(),
        "past the 65,535 parties of the Phaser the engine used to wait on");
    assertEquals(
        List.of("--concurrency: 0 is out of range; use 1 to 1000000 workers"),
        new Plan(
                spec,
                new LoadModel.Closed(List.of(0)),
                one,
                one,
                1,
                ThreadKind.VIRTUAL,
                false,
                "jvm")
            .problems());
    List<String> platform =
        new Plan(
                spec,
                new LoadModel.Closed(List.of(2, 60_000)),
                one,
                one,
                1,
                ThreadKind.PLATFORM,
                false,
                "jvm")
            .problems();
    assertEquals(1, platform.size(), platform.toString());
    assertTrue(
        platform.get(0).contains("60000 platform threads")
            && platform.get(0).contains("--virtual-threads"),
        platform.get(0));
    assertEquals(
        List.of(),
        new Plan(
                spec,
                new LoadModel.Closed(List.of(60_000)),
                one,
                one,
                1,
                ThreadKind.VIRTUAL,
                false,
                "jvm")
            .problems());
    List<String> open =
        new Plan(
                spec,
                new LoadModel.Open(List.of(100.0), 1_000_001),
                one,
                one,
                1,
                ThreadKind.VIRTUAL,
                false,
                "jvm")
            .problems();
    assertTrue(
        open.size() == 1 && open.get(0).startsWith("--concurrency (with --rate"), open.toString());
    List<String> iterations =
        new Plan(
                spec,
                new LoadModel.Closed(List.of(1)),
                one,
                Iterations.parse("200000x1s"),
                1,
                ThreadKind.PLATFORM,
                false,
                "jvm")
            .problems();
    assertTrue(
        iterations.size() == 1 && iterations.get(0).contains("at most 100000 iterations"),
        iterations.toString());
  }

  @Test
  void iterations_countTimesDuration_parses() {
    Iterations i = Iterations.parse("5x10s");
    assertEquals(5, i.count());
    assertEquals(Duration.ofSeconds(50), i.total());
    assertEquals("5x10s", i.toString());
    assertThrows(IllegalArgumentException.class, () -> Iterations.parse("x10s"));
    assertThrows(IllegalArgumentException.class, () -> Iterations.parse("5x"));
  }

  @Test
  void iterations_rangeUntilSteady_parsesRoundTripsAndIsRefusedWhereItCannotApply() {
    Iterations i = Iterations.parse("2..10x5s");
    assertEquals(2, i.count());
    assertEquals(10, i.upTo());
    assertTrue(i.untilSteady());
    assertEquals("2..10x5s", i.toString());
    assertEquals(
        i, Iterations.fromText(i.toString()), "the result file's plan reads back the same");
    assertFalse(Iterations.parse("3x1s").untilSteady());
    var e = assertThrows(IllegalArgumentException.class, () -> Iterations.parse("10..2x5s"));
    assertTrue(e.getMessage().contains("runs backwards"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> Iterations.parse("2..tenx5s"));
    assertTrue(e.getMessage().contains("a range (2..10x5s)"), e.getMessage());

    WorkloadSpec spec = new WorkloadSpec("noop", java.util.Map.of(), "software");
    List<String> problems =
        new Plan(
                List.of(spec),
                new LoadModel.Closed(List.of(1)),
                Iterations.parse("1..200000x1s"),
                Iterations.parse("2..4x1s"),
                1,
                ThreadKind.PLATFORM,
                false,
                "jvm")
            .problems();
    assertTrue(
        problems.stream().anyMatch(p -> p.startsWith("--warmup/--measure: at most")),
        "the warm-up's upper count is bounded: " + problems);
    assertTrue(
        problems.stream().anyMatch(p -> p.startsWith("--measure: a fixed number")),
        "only the warm-up runs until steady: " + problems);
  }

  @Test
  void problems_severalBadFields_reportsEveryOne() {
    Plan plan =
        new Plan(
            List.of(new WorkloadSpec("sign", Map.of(), "software")),
            new LoadModel.Closed(List.of(0)),
            Iterations.parse("1x1s"),
            Iterations.parse("0x10ms"),
            0,
            ThreadKind.PLATFORM,
            false,
            "jvm");
    List<String> problems = plan.problems();
    assertTrue(problems.stream().anyMatch(p -> p.startsWith("--concurrency")), problems.toString());
    assertTrue(problems.stream().anyMatch(p -> p.startsWith("--measure")), problems.toString());
    assertTrue(problems.stream().anyMatch(p -> p.startsWith("--series")), problems.toString());
    assertThrows(PlanException.class, plan::validated);
  }
}
