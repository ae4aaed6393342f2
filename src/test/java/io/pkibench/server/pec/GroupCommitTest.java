package io.pkibench.server.pec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The spool's shared directory fsync: callers during a sync wait for the next one, which one of
 * them runs for all.
 */
class GroupCommitTest {

  /** Waits until {@code n} threads are parked in {@code threads}, or fails after 10 s. */
  private static void awaitWaiting(List<Thread> threads, int n) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (threads.stream().filter(t -> t.getState() == Thread.State.WAITING).count() < n) {
      assertTrue(
          System.nanoTime() < end,
          "threads waiting: " + threads.stream().map(Thread::getState).toList());
      Thread.onSpinWait();
    }
  }

  @Test
  @Timeout(30)
  void await_callersArrivingDuringASync_shareTheNextOneAndNoneReturnsBeforeIt() throws Exception {
    AtomicInteger syncs = new AtomicInteger();
    CountDownLatch firstMayEnd = new CountDownLatch(1);
    CountDownLatch firstRunning = new CountDownLatch(1);
    GroupCommit group =
        new GroupCommit(
            () -> {
              if (syncs.incrementAndGet() == 1) {
                firstRunning.countDown();
                try {
                  firstMayEnd.await();
                } catch (InterruptedException e) {
                  throw new IOException(e);
                }
              }
            });
    Thread first =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    group.await();
                  } catch (IOException e) {
                    throw new RuntimeException(e);
                  }
                });
    assertTrue(firstRunning.await(10, TimeUnit.SECONDS));
    AtomicInteger returnedDuringFirst = new AtomicInteger();
    AtomicInteger returned = new AtomicInteger();
    List<Thread> late = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      late.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    try {
                      group.await();
                      if (firstMayEnd.getCount() == 1) returnedDuringFirst.incrementAndGet();
                      returned.incrementAndGet();
                    } catch (IOException e) {
                      throw new RuntimeException(e);
                    }
                  }));
    }
    awaitWaiting(late, 5);
    assertEquals(0, returned.get(), "a caller that came during a sync is not covered by it");
    firstMayEnd.countDown();
    first.join(10_000);
    for (Thread t : late) t.join(10_000);
    assertEquals(5, returned.get());
    assertEquals(0, returnedDuringFirst.get());
    assertEquals(2, syncs.get(), "the five late callers shared one sync");
  }

  @Test
  @Timeout(30)
  void await_theSyncFails_itsRunnerIsToldAndTheNextCallerSyncsAgain() throws Exception {
    AtomicInteger syncs = new AtomicInteger();
    GroupCommit group =
        new GroupCommit(
            () -> {
              if (syncs.incrementAndGet() == 1) throw new IOException("disk gone");
            });
    IOException e = assertThrows(IOException.class, group::await);
    assertEquals("disk gone", e.getMessage());
    group.await();
    assertEquals(2, syncs.get(), "a failed sync covers no one");
    group.await();
    assertEquals(3, syncs.get(), "alone, every caller syncs");
    assertFalse(Thread.currentThread().isInterrupted());
  }
}
