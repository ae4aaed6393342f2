package io.pkibench.measure;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * The one shape of latency histogram pkibench records: nanoseconds, 3 significant digits, a fixed
 * range so that recording never resizes (and so never allocates) on the operation path.
 */
public final class LatencyHistograms {
  public static final int SIGNIFICANT_DIGITS = 3;
  /** Ten minutes; anything slower is recorded as ten minutes (and is a finding in itself). */
  public static final long HIGHEST_TRACKABLE_NANOS = 600_000_000_000L;

  private LatencyHistograms() {}

  public static Histogram newHistogram() {
    return new Histogram(1, HIGHEST_TRACKABLE_NANOS, SIGNIFICANT_DIGITS);
  }

  public static SingleWriterRecorder newRecorder() {
    return new SingleWriterRecorder(1, HIGHEST_TRACKABLE_NANOS, SIGNIFICANT_DIGITS);
  }

  /** A recorder any number of threads may record into at once (lock-free, no allocation), with the same range. */
  public static org.HdrHistogram.Recorder newSharedRecorder() {
    return new org.HdrHistogram.Recorder(1, HIGHEST_TRACKABLE_NANOS, SIGNIFICANT_DIGITS);
  }

  /** Compressed HdrHistogram encoding in base64, the form kept in result files. */
  public static String toBase64(Histogram h) {
    ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int length = h.encodeIntoCompressedByteBuffer(buffer);
    return Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length));
  }

  public static Histogram fromBase64(String base64) {
    try {
      Histogram h = Histogram.decodeFromCompressedByteBuffer(
          ByteBuffer.wrap(Base64.getDecoder().decode(base64)), 1);
      return h;
    } catch (DataFormatException | RuntimeException e) {
      // Damaged bytes fail in many ways inside HdrHistogram (buffer underflow, index out of bounds…): all are one thing here.
      throw new IllegalArgumentException("corrupt histogram in result file: " + e.getMessage(), e);
    }
  }

  /** Adds every histogram into a fresh one; merging, never averaging. */
  public static Histogram merge(Iterable<Histogram> parts) {
    Histogram total = newHistogram();
    for (Histogram h : parts) total.add(h);
    return total;
  }
}
