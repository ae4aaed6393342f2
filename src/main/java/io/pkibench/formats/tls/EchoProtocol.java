package io.pkibench.formats.tls;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

/**
 * The wire format of {@code serve tlsecho} and the {@code tls-*} workloads, the same on the plain
 * and the TLS port. Every frame starts with a 9-byte header: kind (1 byte), request length and
 * response length (unsigned 32-bit, big-endian), then the request's bytes.
 *
 * <ul>
 *   <li>{@code R} request/response (RR, ACRR): the server answers {@code responseLength} bytes, the
 *       request's bytes repeated, so the client can check every byte it gets;
 *   <li>{@code S} stream frame: no answer; the server adds the bytes to a CRC-32 and counts the
 *       frame;
 *   <li>{@code A} acknowledge: the server answers 16 bytes — frames and CRC-32 since the last
 *       acknowledgement (32-bit each) and their byte count (64-bit) — and starts counting afresh;
 *   <li>{@code C} counters: the server answers a 32-bit length and its counters as JSON.
 * </ul>
 *
 * A length over {@link #MAX_FRAME_BYTES} or an unknown kind is a protocol error: the server closes.
 */
public final class EchoProtocol {
  public static final int HEADER_BYTES = 9;
  public static final int ACK_BYTES = 16;

  /**
   * Large enough for any transaction the studies send (16 KB), small enough to bound a connection's
   * memory.
   */
  public static final int MAX_FRAME_BYTES = 1 << 20;

  public static final byte REQUEST = 'R';
  public static final byte STREAM = 'S';
  public static final byte ACKNOWLEDGE = 'A';
  public static final byte COUNTERS = 'C';

  private EchoProtocol() {}

  public static byte[] header(byte kind, int requestLength, int responseLength) {
    return ByteBuffer.allocate(HEADER_BYTES)
        .put(kind)
        .putInt(requestLength)
        .putInt(responseLength)
        .array();
  }

  /** What an acknowledgement says: frames, their CRC-32 and byte count since the last one. */
  public record Ack(int frames, int crc32, long bytes) {
    public static Ack decode(byte[] sixteen) {
      ByteBuffer b = ByteBuffer.wrap(sixteen);
      return new Ack(b.getInt(), b.getInt(), b.getLong());
    }

    public byte[] encode() {
      return ByteBuffer.allocate(ACK_BYTES).putInt(frames).putInt(crc32).putLong(bytes).array();
    }

    public static Ack of(int frames, CRC32 crc, long bytes) {
      return new Ack(frames, (int) crc.getValue(), bytes);
    }
  }
}
