package io.pkibench.workload.api;

/**
 * An operation that must not start before a time of its own (a held connection's next request, a
 * handshake's slot in a ramp): the closed-loop worker waits until then, or until the iteration's
 * end, and times the operation from the moment it starts, so the wait is never counted as latency.
 */
public interface Paced extends Operation {
  /**
   * When the next {@link #execute()} may start, on {@link System#nanoTime()}'s scale; any time past
   * means now.
   */
  long dueNanos();
}
