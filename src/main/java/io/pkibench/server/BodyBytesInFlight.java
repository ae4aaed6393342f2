package io.pkibench.server;

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
}
