package io.pkibench.server;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bytes of request bodies a server holds at once, across its requests, bounded: each request
 * reserves its body's declared length before reading it (a chunked one, its bytes as they come) and
 * gives them back when it is answered. What cannot be reserved is refused, never waited for: the
 * client is told 503 and when to come back. Without it, 24 concurrent 30 MB uploads to the signing
 * service under -Xmx512m ran the heap out and went unanswered.
 */
final class BodyBytesInFlight {
  private final long maxBytes;
  private final AtomicLong held = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();

  BodyBytesInFlight(long maxBytes) {
    if (maxBytes <= 0)
      throw new IllegalArgumentException(
          "the budget for request bodies in flight must be positive, not " + maxBytes + " bytes");
    this.maxBytes = maxBytes;
  }

  /**
   * An eighth of the heap: a body is held about three times over while it is handled (the bytes,
   * the signing service's text view of them to find the document, the decoded document), so that is
   * some three eighths in use, beside the quarter the signing service keeps for work awaiting its
   * finish and room for signing and answering.
   */
  static long forHeap(long maxHeapBytes) {
    return Math.max(1, maxHeapBytes / 8);
  }

  /** Reserves {@code bytes} when they fit; false, counted, when they do not. */
  boolean tryReserve(long bytes) {
    for (long now = held.get(); ; now = held.get()) {
      if (now + bytes > maxBytes) {
        refused.incrementAndGet();
        return false;
      }
      if (held.compareAndSet(now, now + bytes)) return true;
    }
  }

  void release(long bytes) {
    held.addAndGet(-bytes);
  }

  long maxBytes() {
    return maxBytes;
  }

  long held() {
    return held.get();
  }

  long refused() {
    return refused.get();
  }

  /** A chunked body reserves its bytes in steps of this many as it arrives, not at each read. */
  private static final long CHUNKED_RESERVATION_STEP = 64 * 1024;

  /**
   * The bytes a request holds of the budget, and its body as the server gave it (before any
   * budgeting wrapper).
   */
  static final class Reservation {
    final InputStream body;
    long bytes;

    Reservation(InputStream body, long bytes) {
      this.body = body;
      this.bytes = bytes;
    }
  }

  /** A chunked body grew past what the budget had left. */
  static final class OverBudget extends IOException {
    OverBudget() {
      super("request bodies in flight at their budget");
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this; // a refusal, not a fault: no stack trace to make
    }
  }

  /**
   * A chunked body, its bytes reserved as they arrive; past what the budget has left it throws
   * {@link OverBudget}.
   */
  private final class BudgetedBody extends FilterInputStream {
    private final Reservation reservation;
    private long read;

    BudgetedBody(InputStream body, Reservation reservation) {
      super(body);
      this.reservation = reservation;
    }

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      if (n > 0 && (read += n) > reservation.bytes) {
        long step = Math.max(read - reservation.bytes, CHUNKED_RESERVATION_STEP);
        if (!tryReserve(step)) throw new OverBudget();
        reservation.bytes += step;
      }
      return n;
    }
  }

  /** {@code body} reserving its bytes as they arrive, in {@code reservation}. */
  InputStream budgeted(InputStream body, Reservation reservation) {
    return new BudgetedBody(body, reservation);
  }
}
