package io.pkibench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.LevelResult;
import io.pkibench.results.ResultFixtures;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Each fixture iteration burns the same CPU, so its rate sets the CPU per operation. */
class SteadinessTest {
  static LevelResult level(double... ratesPerIteration) {
    return ResultFixtures.closedRun("http:cades", new int[] {4}, new double[][] {ratesPerIteration}, new long[] {1_000_000}).workloads().get(0)
        .levels().get(0);
  }

  @Test
  void costFallingThroughEveryIteration_isStillWarmingUp() {
    Optional<String> w = Steadiness.warning(level(700, 900, 1000));
    assertTrue(w.isPresent() && w.get().startsWith("still warming up: CPU per operation fell 30%"), w.toString());
  }

  @Test
  void costRisingThroughEveryIteration_isSlowingDown() {
    Optional<String> w = Steadiness.warning(level(1000, 850, 700));
    assertTrue(w.isPresent() && w.get().startsWith("slowing down: CPU per operation rose 43%"), w.toString());
  }

  @Test
  void smallOrNonMonotonicChanges_andSingleIterations_areSteady() {
    assertEquals(Optional.empty(), Steadiness.warning(level(1000, 1100, 1050)));
    assertEquals(Optional.empty(), Steadiness.warning(level(600, 1000, 800)), "down then up is noise, not a trend");
    assertEquals(Optional.empty(), Steadiness.warning(level(500)));
    assertEquals(Optional.empty(), Steadiness.warning(level(700, 1000)), "two iterations are too few to call a trend");
  }
}
