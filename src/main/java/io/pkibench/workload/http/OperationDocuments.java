package io.pkibench.workload.http;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The document each operation of one worker sends ({@code -p document}), so that no two operations
 * send the same bytes: a service that mixes up requests or answers from a cache then signs other
 * bytes than were sent, which the check sees. One per worker, never shared: each call reuses the
 * worker's buffer, which holds the operation's document until its next call.
 */
abstract sealed class OperationDocuments {
  /** The document of the worker's next operation. */
  abstract byte[] next();

  /** {@code document=random}: {@code sizeBytes} fresh random bytes per operation. */
  static OperationDocuments random(int sizeBytes, long seed) {
    return new Random(new byte[sizeBytes], new SplittableRandom(seed));
  }

  /**
   * {@code template} with an identifier of the operation written at {@code slot} ({@link
   * #ID_DIGITS} hexadecimal digits): the run's {@code runId}, the worker and the operation's
   * number, so that no two operations of a run send the same document. The template's length and
   * every other byte are kept (the sample PDF stays valid, its cross-reference offsets unchanged).
   */
  static OperationDocuments numbered(byte[] template, int slot, int runId, int worker) {
    if (slot < 0 || slot + ID_DIGITS > template.length)
      throw new IllegalArgumentException("no identifier slot in the document");
    return new Numbered(template.clone(), slot, runId, worker);
  }

  /** Hexadecimal digits of an operation's identifier: 8 of the run, 6 of the worker, 10 counted. */
  static final int ID_DIGITS = 24;

  private static final class Random extends OperationDocuments {
    private final byte[] buffer;
    private final SplittableRandom random;

    Random(byte[] buffer, SplittableRandom random) {
      this.buffer = buffer;
      this.random = random;
    }

    @Override
    byte[] next() {
      random.nextBytes(buffer);
      return buffer;
    }
  }

  private static final class Numbered extends OperationDocuments {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private final byte[] buffer;
    private final int slot;
    private long operation;

    Numbered(byte[] buffer, int slot, int runId, int worker) {
      this.buffer = buffer;
      this.slot = slot;
      write(slot, 8, runId & 0xffffffffL);
      write(slot + 8, 6, worker);
    }

    @Override
    byte[] next() {
      write(slot + 14, 10, operation++);
      return buffer;
    }

    private void write(int at, int digits, long value) {
      for (int i = digits - 1; i >= 0; i--) {
        buffer[at + i] = HEX[(int) (value & 0xf)];
        value >>>= 4;
      }
    }
  }
}
