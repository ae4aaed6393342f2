package io.pkibench.keyserver.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * What many threads send on one stream, which takes one message at a time: each item is queued and whichever thread
 * finds no send under way sends everything queued, up to {@code most} items, as one message. Items that queue up while
 * a send is under way go together in the next, so a busy stream sends fewer, fuller messages; an idle one sends each
 * item at once. A send that throws throws to the thread that made it, whose items are lost: the stream is broken and
 * its owner fails what it had in flight.
 */
public final class Outbox<T> {
  private final ConcurrentLinkedQueue<T> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean sending = new AtomicBoolean();
  private final int most;
  private final Consumer<List<T>> send;

  public Outbox(int most, Consumer<List<T>> send) {
    if (most < 1) throw new IllegalArgumentException("an outbox sends at least one item per message, not " + most);
    this.most = most;
    this.send = send;
  }

  public void add(T item) {
    queue.add(item);
    // A thread that queues while another sends leaves its item to that one, which looks again once its send is done.
    while (!queue.isEmpty() && sending.compareAndSet(false, true)) {
      try {
        List<T> batch = new ArrayList<>(Math.min(most, 16));
        for (T next; batch.size() < most && (next = queue.poll()) != null; ) batch.add(next);
        if (!batch.isEmpty()) send.accept(batch);
      } finally {
        sending.set(false);
      }
    }
  }
}
