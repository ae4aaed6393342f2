package io.pkibench.results;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class ThroughputTest {

  @Test
  void of_fiveIterations_matchesHandComputedInterval() {
    // mean 14; sample stdev sqrt(40/4) = 3.16228; t(0.9995, 4 df) = 8.610302 (tables);
    // half-width = 8.610302 * 3.16228 / sqrt(5) = 12.17672
    Throughput t = Throughput.of(new double[] {10, 12, 14, 16, 18});
    assertEquals(14.0, t.mean(), 1e-12);
    assertEquals(3.16228, t.stdev(), 1e-5);
    assertEquals(12.17672, t.ci999(), 1e-4);
    assertEquals(5, t.samples());
    assertEquals("ops/s", t.unit());
  }

  @Test
  void of_oneIteration_hasNoInterval() {
    Throughput t = Throughput.of(new double[] {123.0});
    assertEquals(123.0, t.mean());
    assertNull(t.ci999());
    assertNull(t.stdev());
  }
}
