package io.pkibench.server.signer;

import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The signing service's work between a start and its finish, bounded: by count and by the bytes
 * each piece holds (a start keeps its document until the finish, up to 32 MB), and expired on a
 * timer, not only when another request comes. What does not fit is refused ({@link #put} returns
 * false) and counted, so that unfinished starts cannot take the service's memory.
 *
 * @param <T> what a token stands for
 */
final class PendingTokens<T> implements AutoCloseable {
  /**
   * The bounds: at most {@code maxTokens} pieces of work holding at most {@code maxBytes} in all,
   * each for {@code lifetime}.
   */
  record Limits(int maxTokens, long maxBytes, Duration lifetime) {
    /** 10,000 tokens, a quarter of the heap, five minutes. */
    static Limits forHeap(long maxHeapBytes) {
      return new Limits(10_000, maxHeapBytes / 4, Duration.ofMinutes(5));
    }
  }

  private record Entry<T>(T work, long bytes, long bornNanos) {}

  private final Limits limits;
  private final LongSupplier nanoTime;
  private final Map<String, Entry<T>> entries = new ConcurrentHashMap<>();
  private final AtomicLong bytes = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final ScheduledExecutorService sweeper;

  PendingTokens(Limits limits, LongSupplier nanoTime) {
    this.limits = limits;
    this.nanoTime = nanoTime;
    this.sweeper =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("pkibench-token-expiry").unstarted(r));
    long period = Math.max(50, limits.lifetime().toMillis() / 10);
    sweeper.scheduleWithFixedDelay(this::expire, period, period, TimeUnit.MILLISECONDS);
  }

  /**
   * Keeps {@code work} (holding about {@code weightBytes}) under {@code token}; false, counted,
   * when the bounds are reached.
   */
  synchronized boolean put(String token, T work, long weightBytes) {
    if (entries.size() >= limits.maxTokens() || bytes.get() + weightBytes > limits.maxBytes()) {
      expire();
      if (entries.size() >= limits.maxTokens() || bytes.get() + weightBytes > limits.maxBytes()) {
        refused.incrementAndGet();
        return false;
      }
    }
    entries.put(token, new Entry<>(work, weightBytes, nanoTime.getAsLong()));
    bytes.addAndGet(weightBytes);
    return true;
  }

  /** The outcome of taking a token: its work, or why there is none. */
  sealed interface Taken<T> {
    record Found<T>(T work) implements Taken<T> {}

    record Unknown<T>() implements Taken<T> {}

    record Expired<T>() implements Taken<T> {}
  }

  /** Removes and returns the token's work: each token is used once. */
  Taken<T> take(String token) {
    Entry<T> e = entries.remove(token);
    if (e == null) return new Taken.Unknown<>();
    bytes.addAndGet(-e.bytes());
    return expired(e) ? new Taken.Expired<>() : new Taken.Found<>(e.work());
  }

  /** Seconds until room is likely again: when the oldest piece of work expires (at least 1). */
  long retryAfterSeconds() {
    long oldest =
        entries.values().stream().mapToLong(Entry::bornNanos).min().orElse(nanoTime.getAsLong());
    long left = limits.lifetime().toNanos() - (nanoTime.getAsLong() - oldest);
    return Math.max(1, TimeUnit.NANOSECONDS.toSeconds(left) + 1);
  }

  int size() {
    return entries.size();
  }

  long bytes() {
    return bytes.get();
  }

  long refused() {
    return refused.get();
  }

  private boolean expired(Entry<T> e) {
    return nanoTime.getAsLong() - e.bornNanos() > limits.lifetime().toNanos();
  }

  private void expire() {
    for (Iterator<Map.Entry<String, Entry<T>>> it = entries.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Entry<T>> e = it.next();
      if (expired(e.getValue()) && entries.remove(e.getKey(), e.getValue()))
        bytes.addAndGet(-e.getValue().bytes());
    }
  }

  @Override
  public void close() {
    sweeper.shutdownNow();
  }
}
