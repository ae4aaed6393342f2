package io.pkibench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.measure.LatencyHistograms;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.WorkloadResult;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * What the timeline reads from one-second iterations: the rate before, the dip, the failures, the
 * recovery, the nodes.
 */
class FaultTimelineTest {
  static IterationResult second(int index, long ok, long failed) {
    Histogram h = LatencyHistograms.newHistogram();
    h.recordValue(1_000_000);
    return IterationResult.builder()
        .series(1)
        .index(index)
        .durationNanos(1_000_000_000L)
        .started(ok + failed)
        .succeeded(ok)
        .failed(failed)
        .cpuNanos(500_000_000L)
        .histogram(LatencyHistograms.toBase64(h))
        .build();
  }

  static WorkloadResult run(long[][] seconds, List<WorkloadResult.KeyNode> nodes) {
    List<IterationResult> its = new ArrayList<>();
    for (int i = 0; i < seconds.length; i++) its.add(second(i + 1, seconds[i][0], seconds[i][1]));
    return WorkloadResult.builder("spi-sign")
        .keys("remote:a")
        .cpuMeter("services")
        .levels(List.of(LevelResult.of(16, null, its, "services", 2)))
        .keyNodes(nodes)
        .build();
  }

  @Test
  void dipFailuresAndRecovery_readFromTheSeconds() {
    Instant t = Instant.parse("2026-11-23T08:00:00Z");
    var killed =
        new WorkloadResult.KeyNode(
            "127.0.0.1:1",
            50,
            900,
            8,
            true,
            List.of(
                new WorkloadResult.Transition(t, false, "unavailable"),
                new WorkloadResult.Transition(t.plusMillis(12_500), true, "SERVING")));
    var survivor = new WorkloadResult.KeyNode("127.0.0.1:2", 50, 2100, 0, true, List.of());
    long[][] seconds = {
      {100, 0}, {102, 0}, {98, 0}, {101, 0}, {60, 8}, {40, 0}, {85, 0}, {95, 0}, {99, 0}
    };
    var s =
        FaultTimeline.summarise("kill", "fault: SIGKILL", run(seconds, List.of(killed, survivor)));
    assertEquals(100.5, s.rateBefore(), 1e-9, "median of the four seconds before");
    assertEquals(4, s.dipAt());
    assertEquals(40, s.lowest(), 1e-9);
    assertEquals(8, s.failedCalls());
    assertEquals(
        3,
        s.recoveredAfterSeconds(),
        "the first failure-free second at 90% is three after the dip");
    String text = String.join("\n", s.lines());
    assertTrue(
        text.contains(
            "127.0.0.1:1: taken out (unavailable); rejoined 12.5 s later; 900 calls, 8 failed, up at the end"),
        text);
    assertTrue(text.contains("127.0.0.1:2: never out"), text);
  }

  @Test
  void noDip_saysSo_andNeverRecoversIsNotInvented() {
    var steady =
        FaultTimeline.summarise(
            "kill",
            "fault",
            run(new long[][] {{100, 0}, {100, 0}, {100, 0}, {99, 0}, {101, 0}}, List.of()));
    assertNull(steady.dipAt());
    assertTrue(steady.lines().get(1).startsWith("no dip"), steady.lines().toString());
    var down =
        FaultTimeline.summarise(
            "kill",
            "fault",
            run(new long[][] {{100, 0}, {100, 0}, {100, 0}, {10, 5}, {20, 0}, {30, 0}}, List.of()));
    assertEquals(3, down.dipAt());
    assertNull(down.recoveredAfterSeconds());
    assertTrue(
        String.join("\n", down.lines()).contains("not back to 90%"), down.lines().toString());
  }
}
