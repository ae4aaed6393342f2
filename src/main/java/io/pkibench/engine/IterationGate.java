package io.pkibench.engine;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Where a series' workers wait between iterations: each arrives once per iteration, when its last
 * operation ends, and parks until the controller opens the next one. The controller waits until
 * every worker has arrived.
 *
 * <p>Why not a {@link java.util.concurrent.Phaser}: a Phaser's waiters spin before they park,
 * longer while others keep arriving. Virtual threads spinning on the two carriers of this machine
 * kept the workers still running from getting there: at 100,000 workers, two thirds of the CPU went
 * to {@code Phaser.internalAwaitAdvance} and a 1 s iteration took 4–5 s (profiled). It also holds
 * at most 65,535 parties. Here a worker that has arrived parks at once, one counter counts
 * arrivals, and only the last arrival wakes the controller.
 */
final class IterationGate {
  private final int workers;
  private final AtomicInteger arrived = new AtomicInteger();
  private final Thread controller;
  private volatile List<Thread> threads = List.of();

  /** Incremented by the controller to let the arrived workers through. */
  private volatile int round;

  private volatile boolean terminated;

  /** {@code controller}: the thread that opens iterations and waits for their end. */
  IterationGate(int workers, Thread controller) {
    this.workers = workers;
    this.controller = controller;
  }

  /** The workers' threads, once all are started: the ones {@link #open()} wakes. */
  void workersAre(List<Thread> started) {
    this.threads = List.copyOf(started);
  }

  /**
   * A worker arrives and waits until the controller opens the next iteration; false when the gate
   * was terminated instead (a worker died, or the series could not start), and the worker should
   * leave.
   */
  boolean arriveAndAwaitOpening() {
    int waitingFor = round;
    if (arrived.incrementAndGet() == workers) LockSupport.unpark(controller);
    while (round == waitingFor && !terminated) LockSupport.park(this);
    return !terminated;
  }

  /**
   * The controller waits, at most {@code nanos}, until every worker has arrived; true when they all
   * have, false on timeout. Throws when the gate was terminated (the reason is the caller's to
   * find) or on interrupt.
   */
  boolean awaitAllArrived(long nanos) throws InterruptedException, TerminatedException {
    long deadline = System.nanoTime() + nanos;
    while (arrived.get() < workers) {
      if (terminated) throw new TerminatedException();
      long left = deadline - System.nanoTime();
      if (left <= 0) return false;
      LockSupport.parkNanos(this, Math.min(left, MAX_PARK_NANOS));
      if (Thread.interrupted()) throw new InterruptedException();
    }
    if (terminated) throw new TerminatedException();
    return true;
  }

  /**
   * Every worker has arrived: lets them all through. The controller's only, after {@link
   * #awaitAllArrived}.
   */
  void open() {
    arrived.set(0);
    round++;
    for (Thread t : threads) LockSupport.unpark(t);
  }

  /**
   * Lets every worker go for good and wakes the controller: a worker died, or the series ends
   * before it began.
   */
  void terminate() {
    terminated = true;
    for (Thread t : threads) LockSupport.unpark(t);
    LockSupport.unpark(controller);
  }

  boolean isTerminated() {
    return terminated;
  }

  /** The gate was terminated while the controller waited. */
  static final class TerminatedException extends Exception {
    TerminatedException() {
      super(null, null, false, false);
    }
  }

  /**
   * The controller's parks are bounded by this: it also wakes for its once-a-second ticks, and a
   * late wake costs no more.
   */
  static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
}
