package io.pkibench.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.metrics.LatencyBuckets;
import io.pkibench.metrics.MetricsSnapshot;
import io.pkibench.metrics.SeriesFigures;
import io.pkibench.metrics.SeriesKey;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class LivePagesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final SeriesKey WARMUP = new SeriesKey("sign", "r400", "warmup", null, null);
  private static final SeriesKey MEASURE = new SeriesKey("sign", "r400", "measure", null, null);

  /** {@code succeeded} operations, every one at 1 ms, none failed. */
  private static SeriesFigures figures(SeriesKey key, long succeeded) {
    long[] cumulative = new long[LatencyBuckets.count()];
    Arrays.fill(cumulative, 4, cumulative.length, succeeded); // 1 ms: the fifth bound
    return new SeriesFigures(
        key, succeeded, 0, cumulative, succeeded * 0.001, 0.001, 400, 400, 8, true);
  }

  private static MetricsSnapshot reading(long atMillis, SeriesFigures... moved) {
    return new MetricsSnapshot("r", atMillis, List.of(moved), atMillis / 100_000.0, Double.NaN);
  }

  /**
   * A reading carries only the series that moved since the one before (the measured process sends
   * no more): the page keeps the others' totals as its rows, done, and a second's figures are the
   * moved series' own.
   */
  @Test
  void aReadingOfTheMovedSeriesOnly_keepsTheOthersAsTheyWere_noLongerRunning() throws Exception {
    LivePages pages = new LivePages("r", Double.NaN);
    pages.add(reading(1_000, figures(WARMUP, 400)));
    pages.add(reading(2_000, figures(WARMUP, 800)));
    pages.add(reading(3_000, figures(MEASURE, 400))); // the warm-up ended: not sent again
    pages.add(reading(4_000, figures(MEASURE, 800)));

    JsonNode live = JSON.readTree(pages.live());
    assertEquals(2, live.get("rows").asInt(), live.toString());
    assertEquals(400.0, live.get("opsPerSecond").asDouble(), 1e-9, "the measure's second alone");
    String html = live.get("html").asText();
    assertTrue(
        html.contains("<td class=\"l\">sign r400 warmup</td><td>800</td>")
            && html.contains("<td class=\"l\">sign r400 measure</td><td>800</td>"),
        html);
    assertEquals(1, count(html, ">done<"), "the warm-up's row: " + html);
    assertEquals(1, count(html, ">running<"), "the measure's row: " + html);
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) n++;
    return n;
  }
}
