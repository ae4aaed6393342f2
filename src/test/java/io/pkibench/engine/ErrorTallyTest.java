package io.pkibench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ErrorTallyTest {
  @Test
  void record_failuresNumberedByTheService_groupedAsOneCause() {
    ErrorTally tally = new ErrorTally();
    for (int id = 1; id <= 250; id++)
      tally.record(
          new IllegalStateException(
              "INTERNAL: the key server failed (failure #" + id + " in its log)"));
    tally.record(new IllegalStateException("connection reset"));
    Map<String, Long> total = new TreeMap<>();
    tally.drainInto(total);
    assertEquals(
        Map.of(
            "INTERNAL: the key server failed (failure #N in its log) (IllegalStateException)",
            250L,
            "connection reset (IllegalStateException)",
            1L),
        total);
  }

  @Test
  void record_moreDistinctCausesThanTheCap_restCountedUnderOneLine() {
    ErrorTally tally = new ErrorTally();
    for (int i = 0; i < ErrorTally.MAX_CAUSES + 5; i++)
      tally.record(new IllegalStateException("cause " + "x".repeat(i)));
    Map<String, Long> total = new TreeMap<>();
    tally.drainInto(total);
    assertEquals(ErrorTally.MAX_CAUSES + 1, total.size());
    assertEquals(5L, total.get(ErrorTally.OTHER));
  }
}
