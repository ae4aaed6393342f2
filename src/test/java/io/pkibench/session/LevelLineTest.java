package io.pkibench.session;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.LevelResult;
import io.pkibench.results.ResultFixtures;
import io.pkibench.text.Units;
import org.junit.jupiter.api.Test;

/**
 * The line printed when a level is saved speaks the table's units: a p99 of some 60 µs reads "µs",
 * not "0.060 ms" beside the table's "60.1 µs" (issue 50: one unit style per figure).
 */
class LevelLineTest {
  @Test
  void of_microsecondLatencies_inTheTablesUnits() {
    LevelResult level =
        ResultFixtures.closedRun(
                "digest", new int[] {2}, new double[][] {{40_000, 41_000}}, new long[] {40_000})
            .workloads()
            .get(0)
            .levels()
            .get(0);
    String line = LevelLine.of("digest", level);
    String p99 = Units.nanos(level.latencyNanos().p99());
    assertTrue(p99.endsWith(" µs"), p99);
    assertTrue(line.contains(", p99 " + p99 + ", 0 failed"), line);
    assertTrue(
        line.startsWith("digest c=2 saved: " + Units.rate(level.throughput().mean()) + " ops/s"),
        line);
    assertTrue(!line.contains(" ms,"), "no milliseconds for microseconds: " + line);
  }
}
