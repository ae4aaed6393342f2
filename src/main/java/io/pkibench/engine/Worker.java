package io.pkibench.engine;

import io.pkibench.keys.CallingWorker;
import io.pkibench.measure.LatencyHistograms;
import io.pkibench.plan.LevelLoad;
import io.pkibench.plan.Stages;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Paced;
import io.pkibench.workload.api.Workload;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ValueRecorder;

/** Padding so that two workers' counters never share a cache line. */
abstract class WorkerPadBefore {
  long p01, p02, p03, p04, p05, p06, p07, p08;
}

abstract class WorkerCounters extends WorkerPadBefore {
  // Written only by the worker (opaque, so the controller's once-a-second reads see fresh values
  // without fences on the hot path); reset by the controller only while the worker waits at a gate.
  long started;
  long succeeded;
  long failed;

  /** Of the succeeded, those whose answer was checked (a {@link CheckedOperation} said so). */
  long verified;

  /** Closed loop on stages: running operations now, not parked. */
  boolean active;
}

abstract class WorkerPadAfter extends WorkerCounters {
  long q01, q02, q03, q04, q05, q06, q07, q08;
}

/**
 * One closed-loop worker: it waits at the gate, runs operations back to back until the iteration
 * deadline, then waits at the gate again for the next iteration. The operation path takes one clock
 * reading, one histogram record and one counter store per operation: no allocation, no lock.
 */
final class Worker extends WorkerPadAfter implements Runnable {
  private static final VarHandle STARTED;
  private static final VarHandle SUCCEEDED;
  private static final VarHandle FAILED;
  private static final VarHandle VERIFIED;
  private static final VarHandle ACTIVE;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      STARTED = lookup.findVarHandle(WorkerCounters.class, "started", long.class);
      SUCCEEDED = lookup.findVarHandle(WorkerCounters.class, "succeeded", long.class);
      FAILED = lookup.findVarHandle(WorkerCounters.class, "failed", long.class);
      VERIFIED = lookup.findVarHandle(WorkerCounters.class, "verified", long.class);
      ACTIVE = lookup.findVarHandle(WorkerCounters.class, "active", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final int id;
  private final ValueRecorder recorder;

  /** Open loop only: service time from the actual start, to show the coordinated-omission gap. */
  private final ValueRecorder uncorrected;

  final ErrorTally errors = new ErrorTally();
  private final Workload workload;
  private final Gates gates;
  private final CountDownLatch ready;
  volatile Throwable setupFailure;
  volatile Throwable crash;

  /**
   * Set when the workload is a mix: told each operation's slot and ending, so it records the member
   * drawn.
   */
  private MixOperation mix;

  /**
   * Set when the operation checks answers ({@code --verify} on a workload that counts its checks):
   * null otherwise, so that a run without checks takes the plain path.
   */
  private CheckedOperation checked;

  Worker(int id, Workload workload, Gates gates, CountDownLatch ready) {
    this.id = id;
    this.recorder = gates.latency.forWorker(id);
    this.uncorrected = gates.openLoop ? gates.uncorrectedLatency.forWorker(id) : null;
    this.workload = workload;
    this.gates = gates;
    this.ready = ready;
  }

  /**
   * What the controller shares with its workers; volatile fields are read once per iteration or per
   * operation.
   */
  static final class Gates {
    /** Where the workers wait between iterations; the controller opens each. */
    final IterationGate gate;

    final boolean openLoop;

    /**
     * Open loop: time between scheduled starts; slot i starts at {@code startNanos + i ×
     * periodNanos}.
     */
    final double periodNanos;

    /**
     * Open loop: when slot 0 is due after {@code startNanos} (an agent's share of a timetable
     * starts later, interleaved).
     */
    final long offsetNanos;

    /** Open loop: the next unclaimed slot of the timetable, shared by the workers (lock-free). */
    final AtomicLong nextSlot = new AtomicLong();

    volatile long startNanos;
    volatile long deadlineNanos;
    volatile boolean finished;
    volatile boolean abort;
    final LatencyStripes latency;

    /** Open loop only, else null. */
    final LatencyStripes uncorrectedLatency;

    /**
     * The stages the iteration follows, set by the controller before it opens the gate; null on a
     * fixed level.
     */
    volatile Stages stages;

    /**
     * On stages split over agents ({@code --segment I/N}): this agent's slot k of the ramping
     * timetable is the plan's slot {@code k × slotStride + slotPhase}, and its worker k is the
     * plan's worker {@code k × slotStride + slotPhase}, so that the agents' slots and workers
     * together are the plan's, each once (k6's execution segments, interleaved).
     */
    int slotStride = 1;

    int slotPhase;

    Gates(LevelLoad load, Thread controller) {
      this.gate = new IterationGate(load.workers(), controller);
      // Read on every operation, so kept as plain fields rather than matched on the load each time.
      this.openLoop = load instanceof LevelLoad.Open;
      this.periodNanos = load instanceof LevelLoad.Open open ? 1e9 / open.ratePerSecond() : 0;
      this.offsetNanos = load instanceof LevelLoad.Open open ? open.offsetNanos() : 0;
      this.latency = new LatencyStripes(load.workers());
      this.uncorrectedLatency = openLoop ? new LatencyStripes(load.workers()) : null;
    }
  }

  /**
   * A start later than this after its scheduled time counts as late: well above the ~0.1 ms of
   * timer slack.
   */
  static final long LATE_START_NANOS = 1_000_000L;

  long lateStarts;

  @Override
  public void run() {
    Operation operation;
    try {
      // Inside the try: even this boxing can be the allocation that runs out of memory, and a
      // worker's error must reach
      // the controller, not the thread's default handler (which prints a stack trace and leaves the
      // controller waiting).
      CallingWorker.is(
          id); // a key source with one client identity per worker routes this thread's key calls by
      // it
      operation = workload.newOperation(id);
      mix = operation instanceof MixOperation m ? m : null;
      // A mix checks answers when one of its members does (it says per operation which did)
      checked =
          mix != null
              ? (mix.checksAnswers() ? mix : null)
              : operation instanceof CheckedOperation c ? c : null;
    } catch (Throwable t) {
      setupFailure = t;
      operation = null;
    } finally {
      ready.countDown();
    }
    IterationGate gate = gates.gate;
    try {
      // Arrives once at the start, then once at the end of each iteration; the controller opens the
      // next.
      while (gate.arriveAndAwaitOpening()) {
        if (gates.finished || operation == null) return;
        Stages stages = gates.stages;
        if (gates.openLoop)
          runOnTimetable(
              operation,
              stages,
              gates.startNanos,
              gates.deadlineNanos); // stages: a ramp, else null
        else if (stages != null)
          runStaged(operation, stages, gates.startNanos, gates.deadlineNanos);
        else runUntil(operation, gates.deadlineNanos);
      }
    } catch (VirtualMachineError fatal) {
      // Out of memory or stack: the series cannot be trusted; wake the controller instead of
      // hanging it.
      crash = fatal;
      gate.terminate();
    }
  }

  private void runUntil(Operation operation, long deadlineNanos) {
    if (operation instanceof Paced paced) {
      runPaced(paced, deadlineNanos);
      return;
    }
    long start = System.nanoTime();
    while (true) {
      STARTED.setOpaque(this, started + 1);
      try {
        boolean verifiedOne = executeOnce(operation);
        // The end of one operation is the start of the next: one clock reading per operation,
        // and the loop's own cost is charged to the operation that follows it.
        long end = System.nanoTime();
        recordSuccess(end - start, verifiedOne);
        start = end;
      } catch (VirtualMachineError fatal) {
        throw fatal;
      } catch (Throwable failure) {
        recordFailure(failure);
        start = System.nanoTime();
      }
      if (start - deadlineNanos >= 0 || gates.abort) return;
    }
  }

  /**
   * Closed loop for an operation with times of its own: waits until each is due (or the iteration
   * ends), then runs it; nothing starts past the deadline. Its latency counts from when it was due
   * (no earlier than the iteration's start), so a worker that wakes late, its client overloaded,
   * shows the delay instead of hiding it (coordinated omission).
   */
  private void runPaced(Paced operation, long deadlineNanos) {
    while (true) {
      long due = operation.dueNanos();
      long now = System.nanoTime();
      while (due - now > 0 && now - deadlineNanos < 0 && !gates.abort) {
        LockSupport.parkNanos(Math.min(due - now, deadlineNanos - now));
        now = System.nanoTime();
      }
      if (now - deadlineNanos >= 0 || gates.abort) return;
      STARTED.setOpaque(this, started + 1);
      try {
        long from = due - gates.startNanos > 0 ? due : gates.startNanos;
        boolean verifiedOne = executeOnce(operation);
        recordSuccess(System.nanoTime() - from, verifiedOne);
      } catch (VirtualMachineError fatal) {
        throw fatal;
      } catch (Throwable failure) {
        recordFailure(failure);
      }
    }
  }

  /**
   * Open loop: claims the next slot of the shared timetable, waits for its scheduled time, runs it.
   * Slot {@code n} is due {@code n} periods after the start (plus an agent's offset in a split
   * plan), or, on a ramp ({@code --stages}), when the ramping timetable has offered {@code n}
   * arrivals. Latency counts from the scheduled time (coordinated-omission free); when the workers
   * fall behind, the wait shows up as latency, as it would for a client arriving on time.
   */
  private void runOnTimetable(
      Operation operation, Stages ramp, long startNanos, long deadlineNanos) {
    AtomicLong slots = gates.nextSlot;
    double period = gates.periodNanos;
    while (true) {
      long slot = slots.getAndIncrement();
      long planSlot = ramp == null ? slot : slot * gates.slotStride + gates.slotPhase;
      long offset =
          ramp == null
              ? gates.offsetNanos + (long) (slot * period)
              : ramp.offsetOfArrival(planSlot);
      if (offset == Long.MAX_VALUE || gates.abort) return;
      long scheduled = startNanos + offset;
      if (scheduled - deadlineNanos >= 0) return;
      long now = System.nanoTime();
      while (scheduled - now > 0 && !gates.abort) {
        // Bounded, so that an abort during a long pause of a ramp (a stage at 0/s) is seen.
        LockSupport.parkNanos(Math.min(scheduled - now, ABORT_CHECK_NANOS));
        now = System.nanoTime();
      }
      // Past the deadline nothing more starts, however far behind the timetable is: the iteration
      // stays bounded, and the controller counts the slots never started as missed.
      if (now - deadlineNanos >= 0 || gates.abort) return;
      if (now - scheduled > LATE_START_NANOS) lateStarts++;
      STARTED.setOpaque(this, started + 1);
      if (mix != null) mix.arrival(planSlot);
      try {
        boolean verifiedOne = executeOnce(operation);
        long end = System.nanoTime();
        uncorrected.recordValue(Math.min(end - now, LatencyHistograms.HIGHEST_TRACKABLE_NANOS));
        recordSuccess(end - scheduled, verifiedOne);
      } catch (VirtualMachineError fatal) {
        throw fatal;
      } catch (Throwable failure) {
        recordFailure(failure);
      }
    }
  }

  /**
   * Closed loop on stages: worker {@code id} runs operations back to back while the target,
   * rounded, counts more than {@code id} workers, and parks until the target reaches it again
   * otherwise (the highest-numbered workers park first). A parked worker is not active; the
   * controller counts the active ones each second.
   */
  private void runStaged(Operation operation, Stages stages, long startNanos, long deadlineNanos) {
    double needs =
        (double) id * gates.slotStride
            + gates.slotPhase
            + 0.5; // this worker as the plan numbers it
    try {
      while (true) {
        long now = System.nanoTime();
        if (now - deadlineNanos >= 0 || gates.abort) return;
        if (stages.targetAt(now - startNanos) < needs) {
          ACTIVE.setOpaque(this, false);
          long at = stages.offsetWhenAtLeast(needs, now - startNanos);
          long wake =
              at == Long.MAX_VALUE || at >= deadlineNanos - startNanos
                  ? deadlineNanos
                  : startNanos + at;
          while (wake - now > 0 && !gates.abort) {
            LockSupport.parkNanos(Math.min(wake - now, ABORT_CHECK_NANOS));
            now = System.nanoTime();
          }
          continue;
        }
        if (!activeNow()) activeSince = now;
        ACTIVE.setOpaque(this, true);
        long from = now;
        if (operation instanceof Paced paced) {
          // An operation with times of its own waits for them, as in runPaced; its latency counts
          // from when it was due,
          // but never from before this worker was running (a parked worker's operation is not late
          // for its park).
          long due = paced.dueNanos();
          if (due - now > 0) {
            LockSupport.parkNanos(
                Math.min(Math.min(due - now, deadlineNanos - now), ABORT_CHECK_NANOS));
            continue;
          }
          from = due - activeSince > 0 ? due : activeSince;
        }
        STARTED.setOpaque(this, started + 1);
        try {
          boolean verifiedOne = executeOnce(operation);
          recordSuccess(System.nanoTime() - from, verifiedOne);
        } catch (VirtualMachineError fatal) {
          throw fatal;
        } catch (Throwable failure) {
          recordFailure(failure);
        }
      }
    } finally {
      ACTIVE.setOpaque(this, false);
    }
  }

  /**
   * One operation done, by every loop alike: its latency (capped at what the histograms track) into
   * the iteration's histogram and its mix member's, then the count, last, so that a count the
   * controller reads has its latency recorded ({@code verifiedOne}: its answer was checked).
   */
  private void recordSuccess(long latencyNanos, boolean verifiedOne) {
    long latency = Math.min(latencyNanos, LatencyHistograms.HIGHEST_TRACKABLE_NANOS);
    recorder.recordValue(latency);
    if (mix != null) mix.succeeded(latency);
    if (verifiedOne) VERIFIED.setOpaque(this, verified + 1);
    SUCCEEDED.setOpaque(this, succeeded + 1);
  }

  /**
   * Runs one operation; true when it checked its answer. Without checks, the plain call: no more on
   * the path than before.
   */
  private boolean executeOnce(Operation operation) throws Exception {
    if (checked == null) {
      operation.execute();
      return false;
    }
    return checked.executeChecked();
  }

  /** Whether this worker's operation checks answers: its level's count of them is kept. */
  boolean checksAnswers() {
    return checked != null;
  }

  /**
   * One operation failed, by every loop alike: counted, its cause kept, and its mix member told.
   */
  private void recordFailure(Throwable failure) {
    FAILED.setOpaque(this, failed + 1);
    errors.record(failure);
    if (mix != null) mix.failed(failure);
  }

  /** Closed loop on stages: when this worker last went from parked to running. */
  private long activeSince;

  /**
   * How long a worker waiting on the stages parks at most before it looks at the abort flag again.
   */
  private static final long ABORT_CHECK_NANOS = 100_000_000L;

  /**
   * Closed loop on stages: whether this worker is running operations rather than parked (read by
   * the controller).
   */
  boolean activeNow() {
    return (boolean) ACTIVE.getOpaque(this);
  }

  long startedNow() {
    return (long) STARTED.getOpaque(this);
  }

  long succeededNow() {
    return (long) SUCCEEDED.getOpaque(this);
  }

  long failedNow() {
    return (long) FAILED.getOpaque(this);
  }

  /** Called by the controller while this worker waits at the start gate. */
  void resetCounters() {
    lateStarts = 0;
    started = 0;
    succeeded = 0;
    failed = 0;
    verified = 0;
  }
}
