package io.pkibench.keys;

/**
 * The worker the current thread runs for, as the engine sets it on each worker's thread: a key
 * source that presents one client identity per worker reads it here, because a JCA call
 * (Signature.sign through a Provider) carries no caller. Unset (-1) on any other thread, whose
 * calls go out under the source's own identity.
 */
public final class CallingWorker {
  private static final ThreadLocal<Integer> WORKER = new ThreadLocal<>();

  private CallingWorker() {}

  /** The current thread runs for worker {@code worker} (0-based) from now on. */
  public static void is(int worker) {
    WORKER.set(worker);
  }

  /** The current thread's worker, or -1 when it runs for none. */
  public static int current() {
    Integer worker = WORKER.get();
    return worker == null ? -1 : worker;
  }
}
