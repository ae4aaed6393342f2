package io.pkibench.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;
import org.junit.jupiter.api.Test;

class LatencyHistogramsTest {

  @Test
  void merge_perWorkerRecorders_equalsOneHistogramFedTheSameValues() {
    SplittableRandom random = new SplittableRandom(42);
    Histogram single = LatencyHistograms.newHistogram();
    List<SingleWriterRecorder> workers = new ArrayList<>();
    for (int w = 0; w < 4; w++) workers.add(LatencyHistograms.newRecorder());
    for (int i = 0; i < 200_000; i++) {
      // log-normal-ish latencies from 1 µs to ~1 s, with some outliers
      long nanos = (long) Math.exp(7 + random.nextDouble() * 13);
      single.recordValue(nanos);
      workers.get(i % 4).recordValue(nanos);
    }
    List<Histogram> parts = new ArrayList<>();
    for (SingleWriterRecorder r : workers) parts.add(r.getIntervalHistogram());
    Histogram merged = LatencyHistograms.merge(parts);

    assertEquals(single, merged);
    assertEquals(single.getTotalCount(), merged.getTotalCount());
    for (double p : new double[] {50, 90, 99, 99.9, 100}) {
      assertEquals(single.getValueAtPercentile(p), merged.getValueAtPercentile(p), "p" + p);
    }
    assertEquals(single.getMean(), merged.getMean(), 1e-9);
  }

  @Test
  void base64_roundTrip_keepsEveryCount() {
    Histogram h = LatencyHistograms.newHistogram();
    for (long v = 1; v < 10_000_000; v = v * 3 + 1) h.recordValueWithCount(v, v % 5 + 1);
    Histogram back = LatencyHistograms.fromBase64(LatencyHistograms.toBase64(h));
    assertEquals(h, back);
  }

  @Test
  void fromBase64_corrupt_saysSo() {
    var e = assertThrows(IllegalArgumentException.class, () -> LatencyHistograms.fromBase64("AAAAbm90IGEgaGlzdG9ncmFt"));
    assertEquals(true, e.getMessage().contains("corrupt histogram"));
  }
}
