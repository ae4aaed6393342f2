package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The one quick-mode rule, and the smoke run's cap on it. */
class StudyOptionsTest {
  static StudyOptions options(boolean quick) {
    return new StudyOptions(quick, Duration.ofSeconds(30), "software", Path.of("pki"), null);
  }

  @Test
  void quick_takesTheStudysIterations_fullTakesCountOfDuration() {
    assertEquals("3x2s", options(true).iterations("3x2s", 5).toString());
    assertEquals("5x30s", options(false).iterations("3x2s", 5).toString());
    assertEquals(
        "1..8x500ms",
        options(true).warmup("1x500ms", 5).toString(),
        "quick warms until steady, up to the cap");
  }

  @Test
  void smoke_cutsLongerQuickIterations_keepsCountsShorterOnesAndFullRuns() {
    Duration half = Duration.ofMillis(500);
    StudyOptions smoke = options(true).withQuickIterationsOfAtMost(half);
    assertEquals(
        "3x500ms",
        smoke.iterations("3x2s", 5).toString(),
        "the same three iterations, each half a second");
    assertEquals(
        "2x200ms",
        smoke.iterations("2x200ms", 5).toString(),
        "an iteration already shorter stays as it is");
    assertEquals(
        "1..8x500ms", smoke.warmup("1x1s", 5).toString(), "warm-up: cut too, still until steady");
    assertEquals(
        "5x30s",
        options(false).withQuickIterationsOfAtMost(half).iterations("3x2s", 5).toString(),
        "a full run is never cut");
  }

  @Test
  void smoke_aCapOfNothingRefused() {
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () -> options(true).withQuickIterationsOfAtMost(Duration.ZERO));
    assertTrue(e.getMessage().contains("more than 0 s"), e.getMessage());
  }
}
