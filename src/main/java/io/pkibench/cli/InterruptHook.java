package io.pkibench.cli;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ctrl-C during a long command: {@code stop} asks the work to end after the operations in flight,
 * and the JVM waits up to {@code grace} for it to write what it has before exiting.
 */
final class InterruptHook {
  private InterruptHook() {}

  static <T> T around(Runnable stop, Duration grace, Callable<T> work) throws Exception {
    CountDownLatch finished = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      stop.run();
      try {
        finished.await(grace.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "pkibench-interrupt");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return work.call();
    } finally {
      finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running: the JVM is exiting anyway
      }
    }
  }
}
