package io.pkibench.server.pec;

import java.io.IOException;
import java.io.InterruptedIOException;

/**
 * Group commit of one sync (a directory's fsync): callers are numbered as they come, and each
 * returns once a sync that began after it came has ended. While one sync runs, the callers arriving
 * wait for the next, which the first of them runs for all: with N writers at once, one sync where
 * there were N. A sync that fails fails its runner only; the others waiting try again for
 * themselves.
 */
final class GroupCommit {
  /** The sync every caller needs, e.g. forcing a directory. */
  @FunctionalInterface
  interface Sync {
    void run() throws IOException;
  }

  private final Sync sync;
  private long requested;
  private long covered;
  private boolean syncing;

  GroupCommit(Sync sync) {
    this.sync = sync;
  }

  /**
   * Returns once a sync begun after this call has ended: what the caller did before calling is
   * covered.
   */
  void await() throws IOException {
    long upTo;
    synchronized (this) {
      long mine = ++requested;
      while (covered < mine && syncing) {
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted waiting for a shared fsync");
        }
      }
      if (covered >= mine) return;
      syncing = true;
      upTo =
          requested; // everyone numbered so far did their part before asking: this sync covers them
      // all
    }
    boolean done = false;
    try {
      sync.run();
      done = true;
    } finally {
      synchronized (this) {
        syncing = false;
        if (done) covered = Math.max(covered, upTo);
        notifyAll();
      }
    }
  }
}
