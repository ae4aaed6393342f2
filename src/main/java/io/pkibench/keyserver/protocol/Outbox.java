package io.pkibench.keyserver.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * What many threads send on one stream, which takes one message at a time: each item is queued and
 * whichever thread finds no send under way sends everything queued, up to {@code mostBytes} of
 * items (by {@code size}; always at least one), as one message. Items that queue up while a send is
 * under way go together in the next, so a busy stream sends fewer, fuller messages; an idle one
 * sends each item at once. A send that throws throws to the thread that made it, whose items are
 * lost: the stream is broken and its owner fails what it had in flight.
 *
 * <p>With a {@code ready} test (the stream's flow control: gRPC's {@code isReady()}), nothing is
 * sent while it says no; what is queued waits for {@link #drain()}, which the stream's owner calls
 * when the stream becomes ready again.
 */
public final class Outbox<T> {
  private final ConcurrentLinkedQueue<T> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean sending = new AtomicBoolean();
  private final int mostBytes;
  private final ToIntFunction<T> size;
  private final Consumer<List<T>> send;
  private final BooleanSupplier ready;

  public Outbox(int mostBytes, ToIntFunction<T> size, Consumer<List<T>> send) {
    this(mostBytes, size, () -> true, send);
  }

  public Outbox(
      int mostBytes, ToIntFunction<T> size, BooleanSupplier ready, Consumer<List<T>> send) {
    if (mostBytes < 1)
      throw new IllegalArgumentException(
          "an outbox sends at least one byte per message, not " + mostBytes);
    this.mostBytes = mostBytes;
    this.size = size;
    this.send = send;
    this.ready = ready;
  }

  public void add(T item) {
    queue.add(item);
    drain();
  }

  /**
   * Queues every item of {@code items} before sending, so that they go together (in one message
   * when they fit).
   */
  public void addAll(List<T> items) {
    queue.addAll(items);
    drain();
  }

  /**
   * Sends what is queued while the stream is ready; what it does not take waits for the next call.
   */
  public void drain() {
    // A thread that queues while another sends leaves its item to that one, which looks again once
    // its send is done;
    // readiness is asked again after the flag is released, so a stream that became ready meanwhile
    // is not missed.
    while (!queue.isEmpty() && ready.getAsBoolean() && sending.compareAndSet(false, true)) {
      try {
        if (!ready.getAsBoolean()) continue;
        List<T> batch = new ArrayList<>();
        int bytes = 0;
        for (T next; (next = queue.peek()) != null; ) {
          int itemBytes = size.applyAsInt(next);
          if (!batch.isEmpty() && bytes + itemBytes > mostBytes) break;
          batch.add(queue.poll()); // only the sending thread polls: the head is still next
          bytes += itemBytes;
        }
        if (!batch.isEmpty()) send.accept(batch);
      } finally {
        sending.set(false);
      }
    }
  }
}
