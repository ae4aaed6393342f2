package io.pkibench.dashboard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.metrics.LatencyBuckets;
import io.pkibench.metrics.MetricsSnapshot;
import io.pkibench.metrics.SeriesFigures;
import io.pkibench.metrics.SeriesKey;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reading's line written by hand reads back as Jackson's own line of the same message. */
class PageMessageTest {
  private static MetricsSnapshot snapshot() {
    long[] buckets = new long[LatencyBuckets.count()];
    for (int i = 0; i < buckets.length; i++) buckets[i] = 7L * i;
    return new MetricsSnapshot(
        "run \"quoted\" \\ back\u0001",
        1_764_000_000_123L,
        List.of(
            new SeriesFigures(
                new SeriesKey("sign", "r400", "measure", "2", null),
                123_456,
                7,
                buckets,
                1.0e-5,
                0.25,
                Double.NaN,
                399.5,
                8,
                true),
            new SeriesFigures(
                new SeriesKey("mix", "c8", "warmup", null, "a/b"),
                3,
                0,
                new long[LatencyBuckets.count()],
                0,
                0,
                Double.POSITIVE_INFINITY,
                0,
                0,
                false,
                true,
                false)),
        12.5,
        Double.NaN);
  }

  @Test
  void readingLine_readsBackAsJacksonsLineOfTheSameMessage() throws Exception {
    MetricsSnapshot sent = snapshot();
    StringBuilder line = new StringBuilder("left over from the last second");
    PageMessage.readingLine(line, sent, "step 2 of 3: \"SPI\"\n", null);
    assertTrue(line.indexOf("\n") < 0, "one line: " + line);

    PageMessage byHand = PageMessage.parse(line.toString());
    PageMessage byJackson =
        PageMessage.parse(PageMessage.reading(sent, "step 2 of 3: \"SPI\"\n", null).line());
    for (PageMessage read : List.of(byHand, byJackson)) {
      assertEquals("step 2 of 3: \"SPI\"\n", read.step());
      assertNull(read.soFar());
      assertNull(read.finalPage());
      MetricsSnapshot got = read.snapshot();
      assertEquals(sent.runId(), got.runId());
      assertEquals(sent.atMillis(), got.atMillis());
      assertEquals(12.5, got.clientCpuSeconds());
      assertTrue(Double.isNaN(got.serviceCpuSeconds()));
      assertEquals(2, got.series().size());
      for (int i = 0; i < 2; i++) {
        SeriesFigures a = sent.series().get(i), b = got.series().get(i);
        assertEquals(a.key(), b.key());
        assertArrayEquals(a.cumulativeBuckets(), b.cumulativeBuckets());
        assertEquals(
            List.of(
                a.succeeded(),
                a.failed(),
                a.latencySumSeconds(),
                a.maxLatencySeconds(),
                a.targetPerSecond(),
                a.achievedPerSecond(),
                a.activeWorkers(),
                a.live(),
                a.counters(),
                a.gauges()),
            List.of(
                b.succeeded(),
                b.failed(),
                b.latencySumSeconds(),
                b.maxLatencySeconds(),
                b.targetPerSecond(),
                b.achievedPerSecond(),
                b.activeWorkers(),
                b.live(),
                b.counters(),
                b.gauges()));
      }
    }
  }

  @Test
  void aRunsReading_hasNoStep() throws Exception {
    StringBuilder line = new StringBuilder();
    PageMessage.readingLine(line, snapshot(), null, null);
    assertNull(PageMessage.parse(line.toString()).step());
    assertTrue(!line.toString().contains("\"step\""), line.toString());
  }
}
