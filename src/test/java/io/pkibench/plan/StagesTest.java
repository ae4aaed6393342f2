package io.pkibench.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StagesTest {
  private static final long S = 1_000_000_000L;

  private static Stages parsed(String text) {
    List<String> problems = new ArrayList<>();
    Stages s = Stages.parse(text, problems);
    assertEquals(List.of(), problems);
    assertNotNull(s);
    return s;
  }

  @Test
  void parse_everyBadStage_eachReportedAtOnceNamingTheFlag() {
    List<String> problems = new ArrayList<>();
    assertNull(Stages.parse("400/s,10s:-5/s,10s:400/h,xs:4/s,,10s:1/s", problems));
    assertNull(Stages.parse("10s:-2", problems));
    assertEquals(6, problems.size(), problems.toString());
    assertTrue(problems.stream().allMatch(p -> p.startsWith("--stages")), problems.toString());
    assertTrue(
        problems.get(0).contains("'400/s' has no duration")
            && problems.get(0).contains("10s:400/s"),
        problems.get(0));
    assertTrue(problems.get(1).contains("below 0/s"), problems.get(1));
    assertTrue(
        problems.get(2).contains("'400/h' is not a target") && problems.get(2).contains("400/s"),
        problems.get(2));
    assertTrue(problems.get(3).contains("not a duration"), problems.get(3));
    assertTrue(problems.get(4).contains("stage 5 is empty"), problems.get(4));
    assertTrue(problems.get(5).contains("workers cannot be below 0"), problems.get(5));
  }

  @Test
  void parse_ratesAndWorkersMixed_refused() {
    List<String> problems = new ArrayList<>();
    assertNull(Stages.parse("10s:400/s,10s:64", problems));
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(
        problems.get(0).contains("mixes rates (400/s) and worker counts (64)"), problems.get(0));
  }

  @Test
  void parse_nothingToRun_refused() {
    List<String> problems = new ArrayList<>();
    assertNull(Stages.parse("0s:400/s", problems));
    assertNull(Stages.parse("10s:0/s,5s:0/s", problems));
    assertEquals(2, problems.size(), problems.toString());
    assertTrue(
        problems.get(0).contains("lasts 0s") && problems.get(1).contains("every target is 0"),
        problems.toString());
  }

  @Test
  void fromText_writtenBack_sameStages() {
    Stages s = parsed("10s:400/s, 30s:400/s,500ms:0/s,1m:3000/m");
    assertEquals(Stages.Kind.RATE, s.kind());
    assertEquals("10s:400/s,30s:400/s,500ms:0/s,1m:50/s", s.toString());
    assertEquals(s, Stages.fromText(s.toString()));
    assertEquals(Duration.ofMillis(100_500), s.total());
    assertEquals(Stages.Kind.WORKERS, parsed("5s:8,5s:0").kind());
  }

  /**
   * The ramp the engine runs: 100 arrivals up, 400 held, 100 down; arrival n is due where the
   * integral of the rate reaches n.
   */
  @Test
  void offsetOfArrival_rampHoldRampDown_inverseOfTheRatesIntegral() {
    Stages s = parsed("1s:200/s,2s:200/s,1s:0/s");
    assertEquals(600, s.arrivals(), 1e-9);
    assertEquals(100, s.arrivalsUntil(S), 1e-9);
    assertEquals(
        25, s.arrivalsUntil(S / 2), 1e-9, "the first half of a ramp from 0 offers a quarter of it");
    assertEquals(500, s.arrivalsUntil(3 * S), 1e-9);
    assertEquals(150, s.meanRate(), 1e-9);
    assertEquals(0, s.offsetOfArrival(0));
    for (long n : new long[] {1, 25, 99, 100, 101, 350, 499, 500, 550, 599}) {
      long t = s.offsetOfArrival(n);
      assertEquals(n, s.arrivalsUntil(t), 1e-3, "arrival " + n + " at " + t);
    }
    assertEquals(S / 2, s.offsetOfArrival(25), 1_000);
    assertEquals(Long.MAX_VALUE, s.offsetOfArrival(601));
    assertEquals(100.0, s.targetAt(S / 2), 1e-9);
    assertEquals(200.0, s.targetAt(2 * S), 1e-9);
    assertEquals(50.0, s.targetAt(3 * S + 3 * S / 4), 1e-9);
    assertEquals(
        List.of(0, 1, 1, 2, 2),
        List.of(
            s.stageAt(0), s.stageAt(S), s.stageAt(3 * S - 1), s.stageAt(3 * S), s.stageAt(9 * S)));
  }

  @Test
  void offsetWhenAtLeast_workerStages_whenTheTargetFirstReachesTheLevel() {
    Stages s = parsed("2s:8,1s:8,2s:2,0s:6,1s:6");
    assertEquals(S / 4 + 1, s.offsetWhenAtLeast(1, 0), 2, "0 → 8 over 2 s reaches 1 after 250 ms");
    assertEquals(3 * S / 2, s.offsetWhenAtLeast(6, S), 2);
    assertEquals(2 * S + S / 2, s.offsetWhenAtLeast(8, 2 * S + S / 2), "held at 8: already there");
    assertEquals(5 * S, s.offsetWhenAtLeast(5.5, 4 * S), "after the ramp down to 2, the jump to 6");
    assertEquals(Long.MAX_VALUE, s.offsetWhenAtLeast(7, 4 * S));
    assertEquals(8, s.maxWorkers());
  }

  @Test
  void problems_stagesBesideOtherPlanSettings_eachNamed() {
    Stages s = parsed("1s:0/s,2s:200/s");
    Plan plan =
        Plan.of(List.of(new WorkloadSpec("noop", java.util.Map.of(), "software")))
            .load(new LoadModel.Staged(s, 0))
            .warmup(Iterations.parse("1x1s"))
            .measure(Iterations.parse("5x1s"))
            .series(2)
            .build();
    List<String> problems = plan.problems();
    assertEquals(4, problems.size(), problems.toString());
    assertTrue(
        problems.get(0).startsWith("--concurrency")
            && problems.get(1).startsWith("--measure")
            && problems.get(2).startsWith("--series")
            && problems.get(3).startsWith("--warmup"),
        problems.toString());
    Plan good =
        plan.toBuilder()
            .load(new LoadModel.Staged(s, 8))
            .warmup(Iterations.parse("0x1s"))
            .measure(new Iterations(1, s.total()))
            .series(1)
            .build();
    assertEquals(List.of(), good.problems());
  }
}
