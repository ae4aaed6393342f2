package io.pkibench.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
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
    var e =
        assertThrows(
            IllegalArgumentException.class,
            () -> LatencyHistograms.fromBase64("AAAAbm90IGEgaGlzdG9ncmFt"));
    assertEquals(true, e.getMessage().contains("corrupt histogram"));
  }

  /** HdrHistogram's own compressed encoding of {@code h}, in base64 as a result file holds it. */
  static String encoded(Histogram h) {
    ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int length = h.encodeIntoCompressedByteBuffer(buffer);
    return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length));
  }

  /**
   * A compressed V2 histogram of this header and no counts at all: what a crafted file may claim.
   */
  static String header(int payloadBytes, int significantDigits, long lowest, long highest) {
    ByteBuffer inner =
        ByteBuffer.allocate(40)
            .putInt(0x1c849303 | 0x10)
            .putInt(payloadBytes)
            .putInt(0)
            .putInt(significantDigits)
            .putLong(lowest)
            .putLong(highest)
            .putDouble(1.0);
    java.util.zip.Deflater deflater = new java.util.zip.Deflater();
    deflater.setInput(inner.array());
    deflater.finish();
    byte[] deflated = new byte[200];
    int n = deflater.deflate(deflated);
    deflater.end();
    ByteBuffer outer =
        ByteBuffer.allocate(8 + n).putInt(0x1c849304 | 0x10).putInt(n).put(deflated, 0, n);
    return Base64.getEncoder().encodeToString(outer.array());
  }

  @Test
  void fromBase64_rangeUpTo2pow62_refusedNamingTheRange() {
    Histogram wide = new Histogram(1, 1L << 62, 3);
    wide.recordValue(1_000_000);
    var e =
        assertThrows(
            LatencyHistograms.RangeRefused.class,
            () -> LatencyHistograms.fromBase64(encoded(wide)));
    assertTrue(
        e.getMessage().contains("declares values up to 4611686018427387904 ns"), e.getMessage());
    assertTrue(e.getMessage().contains("at most 3600000000000 ns (an hour)"), e.getMessage());
  }

  @Test
  void fromBase64_fiveDigitsOverAnHour_refusedForTheMemoryItWouldTake() {
    Histogram fine = new Histogram(1, 3_600_000_000_000L, 5);
    fine.recordValue(1_000_000);
    var e =
        assertThrows(
            LatencyHistograms.RangeRefused.class,
            () -> LatencyHistograms.fromBase64(encoded(fine)));
    assertTrue(
        e.getMessage().contains("5 significant digits") && e.getMessage().contains("MB to decode"),
        e.getMessage());
  }

  @Test
  void fromBase64_significantDigitsOutOf1To5_refused() {
    for (int digits : new int[] {0, 6, -1, Integer.MAX_VALUE}) {
      var e =
          assertThrows(
              LatencyHistograms.RangeRefused.class,
              () -> LatencyHistograms.fromBase64(header(0, digits, 1, 600_000_000_000L)));
      assertTrue(
          e.getMessage().contains("declares " + digits + " significant digits"), e.getMessage());
    }
    var e =
        assertThrows(
            LatencyHistograms.RangeRefused.class,
            () -> LatencyHistograms.fromBase64(header(0, 3, 0, 600_000_000_000L)));
    assertTrue(e.getMessage().contains("lowest discernible value 0"), e.getMessage());
  }

  /**
   * pkibench's own range and precision, but a payload said to take a gigabyte: refused from the
   * header, before a buffer is made for it.
   */
  @Test
  void fromBase64_headerClaimingAGigabyteOfCounts_refusedBeforeAllocating() {
    var e =
        assertThrows(
            LatencyHistograms.RangeRefused.class,
            () -> LatencyHistograms.fromBase64(header(1 << 30, 3, 1, 600_000_000_000L)));
    assertTrue(e.getMessage().contains("1073741824 bytes of counts"), e.getMessage());
  }

  @Test
  void fromBase64_pkibenchsOwnShape_stillRead() {
    Histogram own = LatencyHistograms.newHistogram();
    own.recordValue(599_000_000_000L);
    assertEquals(own, LatencyHistograms.fromBase64(encoded(own)));
    assertEquals(
        0,
        LatencyHistograms.fromBase64(header(0, 3, 1, 600_000_000_000L)).getTotalCount(),
        "a header with no counts is an empty histogram");
  }
}
