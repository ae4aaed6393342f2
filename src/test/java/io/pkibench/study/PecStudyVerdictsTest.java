package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.plan.LoadModel;
import io.pkibench.results.Counts;
import io.pkibench.results.LatencyNanos;
import io.pkibench.results.LevelResult;
import io.pkibench.workload.pec.PauseRange;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the pec study concludes from its maximum-load search and its provider-worker sweep, from the
 * figures alone.
 */
class PecStudyVerdictsTest {
  static final Duration DEADLINE = Duration.ofSeconds(10);

  @Test
  void maximumLoad_highestRateWithEveryLowerTolerated_andWhyTheNextMissed() {
    var ok10 = new PecChecks.RateOutcome(10, 10, 0, 400_000_000L);
    var ok20 = new PecChecks.RateOutcome(20, 19.8, 0, 900_000_000L);
    var late40 = new PecChecks.RateOutcome(40, 39.9, 0, 12_000_000_000L);
    var ok80 =
        new PecChecks.RateOutcome(
            80, 80, 0, 1_000_000L); // a later rate that looks fine does not count past a miss
    String verdict = PecChecks.maximumLoad(List.of(ok10, ok20, late40, ok80), DEADLINE);
    assertTrue(
        verdict.startsWith("maximum load 20.0 messages/s")
            && verdict.contains(
                "at 40.0: p99 to the delivery receipt 12.0 s, past the 10 s deadline"),
        verdict);
    var failing = new PecChecks.RateOutcome(10, 10, 3, 1);
    assertTrue(
        PecChecks.maximumLoad(List.of(failing), DEADLINE)
            .startsWith("no rate tried was tolerated ("),
        PecChecks.maximumLoad(List.of(failing), DEADLINE));
    var short20 = new PecChecks.RateOutcome(20, 15, 0, 1);
    assertTrue(
        PecChecks.maximumLoad(List.of(ok10, short20), DEADLINE)
            .contains("only 15.0 of 20.0 messages/s started"));
    assertTrue(
        PecChecks.maximumLoad(List.of(ok10, ok20), DEADLINE)
            .startsWith("every rate tried was tolerated, up to 20.0"));
  }

  @Test
  void workerRule_holdsWhereTheRulesCountReachesTheBest_notWhereItFallsShort() {
    Map<Integer, Double> flat = new TreeMap<>(Map.of(1, 40.0, 2, 70.0, 4, 78.0, 5, 80.0, 8, 79.0));
    String holds = PecChecks.workerRule(flat, 2);
    assertTrue(
        holds.contains("2 × 2 CPUs + 1 = 5 workers")
            && holds.contains("within 5% of the best (80.0) from 4")
            && holds.contains("the rule holds"),
        holds);
    Map<Integer, Double> rising = new TreeMap<>(Map.of(1, 10.0, 3, 30.0, 8, 80.0));
    String fails = PecChecks.workerRule(rising, 1);
    assertTrue(
        fails.contains(
            "the rule does NOT hold here: 3 workers give 30.0 messages/s, too few: the best needs 8"),
        fails);
    String tooMany = PecChecks.workerRule(new TreeMap<>(Map.of(1, 7.9, 3, 7.2)), 1);
    assertTrue(
        tooMany.contains(
            "3 workers give 7.2 messages/s, too many: 1 give the best, more lose rate"),
        tooMany);
    assertTrue(
        PecChecks.workerRule(Map.of(1, 10.0), 2).contains("the rule's count was not measured"));
  }

  /**
   * A rate whose starts were all made is not short of them, however few receipts came back within
   * the iteration: a smoke run's search read 5.6 completions a second at 10 as "only 5.6 of 10.0
   * messages/s started" with no start missed. 30 started and 10 missed is 75% of the scheduled
   * starts: 7.5 of 10.
   */
  @Test
  void rateOutcome_startsMadeFromTheMissedStarts_notFromTheCompletions() {
    var counts = new Counts(30, 30, 0);
    var latency =
        new LatencyNanos(
            30, 5e8, 1e8, 500_000_000L, 600_000_000L, 700_000_000L, 700_000_000L, 700_000_000L);
    var allMade = level(counts, latency, 10, 5.6, 0);
    assertEquals(10, PecChecks.RateOutcome.of(allMade).achievedPerSecond(), 1e-9);
    assertEquals(
        null,
        PecChecks.RateOutcome.of(allMade).missed(DEADLINE),
        "every start made, receipts within the deadline: tolerated");
    assertEquals(
        7.5,
        PecChecks.RateOutcome.of(level(counts, latency, 10, 5.6, 10)).achievedPerSecond(),
        1e-9);
  }

  private static LevelResult level(
      Counts counts,
      LatencyNanos latency,
      double target,
      double completionsPerSecond,
      long missed) {
    return new LevelResult(
        256,
        counts,
        null,
        latency,
        null,
        List.of(),
        new LevelResult.OpenLoop(target, completionsPerSecond, 0, missed, latency),
        List.of());
  }

  /**
   * The seed's question (the load the providers tolerate) asked in quick runs too: two rates, with
   * the check that answers it.
   */
  @Test
  void steps_quickRun_searchesTwoRatesAndChecksTheMaximumLoad(@TempDir Path dir) throws Exception {
    var study = new PecStudy(PecStudy.Config.defaults(dir.resolve("pec"), null));
    var quick = new StudyOptions(true, Duration.ofSeconds(1), "software", dir.resolve("pki"), null);
    var full = new StudyOptions(false, Duration.ofSeconds(1), "software", dir.resolve("pki"), null);
    RunningServices services =
        RunningServices.plan(study.services(quick), List.of("java"), Map.of(), line -> {});
    Step search =
        study.steps(quick, services).stream()
            .filter(s -> s.label().equals(PecStudy.SEARCH))
            .findFirst()
            .orElseThrow(() -> new AssertionError("quick has no maximum-load search"));
    assertEquals(List.of(10.0, 40.0), ((LoadModel.Open) search.plan().load()).ratesPerSecond());
    assertTrue(
        study.checks(quick).stream().anyMatch(c -> c instanceof PecChecks.MaximumLoad),
        "the check that reads the search");
    assertEquals(List.of(10.0, 20.0, 40.0, 80.0, 160.0), study.searchRates(full));
    var none =
        new PecStudy(
            PecStudy.Config.builder(dir.resolve("pec"))
                .pathWorkers(List.of(1))
                .flow(Duration.ofSeconds(1), Duration.ofSeconds(1))
                .search(List.of(), PecStudy.RECEIPT_DEADLINE)
                .workerSweep(List.of())
                .build());
    assertTrue(
        none.searchRates(quick).isEmpty()
            && none.checks(quick).stream().noneMatch(c -> c instanceof PecChecks.MaximumLoad),
        "--no-search");
  }

  /**
   * The original's 1-15 s pauses as the users' pace: drawn within the range, a single value fixed,
   * a reversed or too long range refused.
   */
  @Test
  void pauseRange_parse_drawsWithinTheRange_andRefusesWhatCannotBeAPause() {
    var range = PauseRange.parse("1s..15s");
    var random = new SplittableRandom(7);
    LongSummaryStatistics drawn =
        LongStream.range(0, 1000).map(i -> range.drawNanos(random)).summaryStatistics();
    assertTrue(
        drawn.getMin() >= 1_000_000_000L
            && drawn.getMax() <= 15_000_000_000L
            && drawn.getMax() - drawn.getMin() > 10_000_000_000L,
        drawn.toString());
    assertEquals(5_000_000_000L, PauseRange.parse("5s").drawNanos(random));
    assertEquals("1s..15s", range.toString());
    for (String bad : List.of("15s..1s", "1s..2m", "1s..15", "1s..5s..9s")) {
      var e = assertThrows(IllegalArgumentException.class, () -> PauseRange.parse(bad), bad);
      assertTrue(e.getMessage().contains("'"), bad + ": " + e.getMessage());
    }
  }

  @Test
  void sweep_quickTwoPoints_fullAddsTheRulesCount() {
    var config =
        PecStudy.Config.builder(Path.of("x"))
            .pathWorkers(List.of(1, 2))
            .flow(Duration.ofSeconds(1), Duration.ofSeconds(1))
            .search(List.of(), DEADLINE)
            .workerSweep(List.of(1, 2, 4, 8, 16))
            .build();
    var study = new PecStudy(config);
    var quick = new StudyOptions(true, Duration.ofSeconds(1), "software", Path.of("pki"), null);
    var full = new StudyOptions(false, Duration.ofSeconds(1), "software", Path.of("pki"), null);
    assertEquals(List.of(1, 3), study.sweep(quick, 1));
    assertEquals(List.of(1, 2, 4, 5, 8, 16), study.sweep(full, 2));
  }
}
