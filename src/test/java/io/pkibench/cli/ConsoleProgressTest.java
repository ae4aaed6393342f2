package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.engine.ProgressSnapshot;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConsoleProgressTest {
  static ProgressSnapshot snapshot(Map<String, Long> live) {
    return new ProgressSnapshot(
        "tls-hold",
        19_000,
        1,
        1,
        true,
        1,
        1,
        4_000,
        3_990,
        10,
        250,
        2e6,
        5_000_000,
        9_000_000,
        live);
  }

  @Test
  void tick_aWorkloadWithLiveCounts_showsThemAfterTheEnginesFigures() {
    StringWriter err = new StringWriter();
    Map<String, Long> live = new LinkedHashMap<>();
    live.put("open", 12_345L);
    live.put("failed", 7L);
    new ConsoleProgress(new PrintWriter(err, true), false, false).tick(snapshot(live));
    String line = err.toString().strip();
    assertTrue(
        line.startsWith("tls-hold c=19000 series 1/1 warmup 1/1 | ops 4000 ok 3990 err 10 |")
            && line.endsWith("| open 12,345 failed 7"),
        line);
  }

  @Test
  void tick_noLiveCounts_theEnginesFiguresAlone() {
    StringWriter err = new StringWriter();
    new ConsoleProgress(new PrintWriter(err, true), false, false).tick(snapshot(Map.of()));
    assertFalse(err.toString().contains("open"), err.toString());
  }
}
