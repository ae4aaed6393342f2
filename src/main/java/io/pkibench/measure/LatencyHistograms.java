package io.pkibench.measure;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Base64;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
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

  /**
   * A recorder any number of threads may record into at once (lock-free, no allocation), with the
   * same range.
   */
  public static org.HdrHistogram.Recorder newSharedRecorder() {
    return new org.HdrHistogram.Recorder(1, HIGHEST_TRACKABLE_NANOS, SIGNIFICANT_DIGITS);
  }

  /** Compressed HdrHistogram encoding in base64, the form kept in result files. */
  public static String toBase64(Histogram h) {
    ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
    int length = h.encodeIntoCompressedByteBuffer(buffer);
    return Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length));
  }

  /**
   * The highest value a histogram read back may declare: an hour, six times what pkibench records
   * ({@link #HIGHEST_TRACKABLE_NANOS}), so that a result file cannot make its reader allocate for a
   * range no run has.
   */
  public static final long MOST_DECLARED_NANOS = 3_600_000_000_000L;

  /**
   * The most counts a histogram read back may hold once decoded (1 MB), about four times pkibench's
   * own shape (31,744; an hour's at 3 digits 33,792): every histogram of a file is decoded when it
   * is read, so this bounds what each costs.
   */
  static final int MOST_COUNTS = 1 << 17;

  private static final int V2_COOKIE_BASE = 0x1c849303;
  private static final int V2_COMPRESSED_COOKIE_BASE = 0x1c849304;
  private static final int HEADER_BYTES = 40;

  /** A count takes at most 9 bytes in the V2 encoding (LEB128 of a 64-bit ZigZag value). */
  private static final int MOST_BYTES_PER_COUNT = 9;

  /**
   * A histogram from its compressed base64 form, its header checked first: a shape pkibench does
   * not read (a range past {@link #MOST_DECLARED_NANOS}, significant digits outside 1..5, more than
   * {@link #MOST_COUNTS} counts, counts said to take more bytes than such a histogram can) is
   * refused with {@link RangeRefused} before anything is allocated for it.
   */
  public static Histogram fromBase64(String base64) {
    ByteBuffer bytes;
    try {
      bytes = ByteBuffer.wrap(Base64.getDecoder().decode(base64));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("corrupt histogram in result file: " + e.getMessage(), e);
    }
    checkDeclaredShape(bytes.duplicate());
    try {
      return Histogram.decodeFromCompressedByteBuffer(bytes, 1);
    } catch (DataFormatException | RuntimeException e) {
      // Damaged bytes fail in many ways inside HdrHistogram (buffer underflow, index out of
      // bounds…): all are one thing here.
      throw new IllegalArgumentException("corrupt histogram in result file: " + e.getMessage(), e);
    }
  }

  /**
   * Refuses, as {@link #fromBase64} would, a compressed histogram whose header declares a shape
   * pkibench does not read; decodes nothing (for a reader, such as HdrHistogram's log reader, that
   * decodes it afterwards without the check).
   */
  public static void checkShape(String base64) {
    ByteBuffer bytes;
    try {
      bytes = ByteBuffer.wrap(Base64.getDecoder().decode(base64));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("corrupt histogram: " + e.getMessage(), e);
    }
    checkDeclaredShape(bytes);
  }

  /**
   * Reads the 40 bytes of header inside the compressed form (nothing more is inflated) and refuses
   * what HdrHistogram would otherwise allocate for: its decoder sizes the counts from the declared
   * range and digits, and the payload buffer from the declared payload length, before it reads a
   * single count.
   */
  private static void checkDeclaredShape(ByteBuffer compressed) {
    byte[] header = new byte[HEADER_BYTES];
    int inflated;
    try {
      int cookie = compressed.getInt();
      if ((cookie & ~0xf0) != V2_COMPRESSED_COOKIE_BASE) {
        throw new IllegalArgumentException(
            "corrupt histogram in result file: not HdrHistogram's compressed V2 encoding (cookie "
                + Integer.toHexString(cookie)
                + ")");
      }
      int compressedLength = compressed.getInt();
      if (compressedLength < 0 || compressedLength > compressed.remaining()) {
        throw new IllegalArgumentException(
            "corrupt histogram in result file: "
                + compressedLength
                + " compressed bytes declared, "
                + compressed.remaining()
                + " present");
      }
      Inflater inflater = new Inflater();
      try {
        inflater.setInput(
            compressed.array(), compressed.arrayOffset() + compressed.position(), compressedLength);
        inflated = inflater.inflate(header);
      } finally {
        inflater.end();
      }
    } catch (BufferUnderflowException | DataFormatException e) {
      throw new IllegalArgumentException("corrupt histogram in result file: " + e.getMessage(), e);
    }
    ByteBuffer h = ByteBuffer.wrap(header);
    int cookie = h.getInt();
    if (inflated < HEADER_BYTES || (cookie & ~0xf0) != V2_COOKIE_BASE) {
      throw new IllegalArgumentException(
          "corrupt histogram in result file: no HdrHistogram V2 header inside its compressed form");
    }
    int payloadBytes = h.getInt();
    h.getInt(); // normalizing index offset: no allocation depends on it
    int digits = h.getInt();
    long lowest = h.getLong();
    long highest = h.getLong();
    String pkibench =
        "; pkibench records up to "
            + HIGHEST_TRACKABLE_NANOS
            + " ns at "
            + SIGNIFICANT_DIGITS
            + " significant digits";
    if (digits < 1 || digits > 5) {
      throw new RangeRefused(
          "declares " + digits + " significant digits; HdrHistogram takes 1 to 5" + pkibench);
    }
    if (lowest < 1 || lowest > MOST_DECLARED_NANOS / 2) {
      throw new RangeRefused(
          "declares a lowest discernible value "
              + lowest
              + " ns; it must be 1 to "
              + MOST_DECLARED_NANOS / 2
              + pkibench);
    }
    if (highest > MOST_DECLARED_NANOS || highest < 2 * lowest) {
      throw new RangeRefused(
          "declares values up to "
              + highest
              + " ns from "
              + lowest
              + " ns; a result file's histograms reach at most "
              + MOST_DECLARED_NANOS
              + " ns (an hour)"
              + pkibench);
    }
    long counts = countsArrayLength(lowest, highest, digits);
    if (counts > MOST_COUNTS) {
      throw new RangeRefused(
          "declares "
              + lowest
              + ".."
              + highest
              + " ns at "
              + digits
              + " significant digits, "
              + counts
              + " counts that would take "
              + counts * 8 / (1024 * 1024)
              + " MB to decode; at most "
              + MOST_COUNTS
              + " are read"
              + pkibench);
    }
    if (payloadBytes < 0 || (long) payloadBytes > counts * MOST_BYTES_PER_COUNT) {
      throw new RangeRefused(
          "declares "
              + payloadBytes
              + " bytes of counts; "
              + counts
              + " counts take at most "
              + counts * MOST_BYTES_PER_COUNT
              + pkibench);
    }
  }

  /**
   * How many counts HdrHistogram's {@code AbstractHistogram} allocates for this shape (its own
   * arithmetic, without allocating).
   */
  static long countsArrayLength(long lowest, long highest, int digits) {
    long largestValueWithSingleUnitResolution = 2 * (long) Math.pow(10, digits);
    int unitMagnitude = 63 - Long.numberOfLeadingZeros(lowest);
    int subBucketCountMagnitude =
        64 - Long.numberOfLeadingZeros(largestValueWithSingleUnitResolution - 1);
    int subBucketHalfCountMagnitude = Math.max(subBucketCountMagnitude, 1) - 1;
    long subBucketCount = 1L << (subBucketHalfCountMagnitude + 1);
    long smallestUntrackableValue = subBucketCount << unitMagnitude;
    int bucketsNeeded = 1;
    while (smallestUntrackableValue <= highest) {
      if (smallestUntrackableValue > Long.MAX_VALUE / 2) {
        bucketsNeeded++;
        break;
      }
      smallestUntrackableValue <<= 1;
      bucketsNeeded++;
    }
    return (bucketsNeeded + 1) * (subBucketCount / 2);
  }

  /** A histogram whose header declares a shape pkibench does not read. */
  public static final class RangeRefused extends IllegalArgumentException {
    RangeRefused(String message) {
      super(message);
    }
  }

  /** Adds every histogram into a fresh one; merging, never averaging. */
  public static Histogram merge(Iterable<Histogram> parts) {
    Histogram total = newHistogram();
    for (Histogram h : parts) total.add(h);
    return total;
  }
}
