package io.pkibench.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Ctrl-C or SIGTERM during a long command: {@code stop} asks the work to end after the operations
 * in flight, the JVM waits up to {@code grace} for it to write what it has, and {@code said} is
 * told whether it did (true) or the grace ran out (false), to say so before the JVM exits: the
 * command's own closing lines may not get printed once the JVM is shutting down.
 */
final class InterruptHook {
  private InterruptHook() {}

  static <T> T around(Runnable stop, Duration grace, Callable<T> work, Consumer<Boolean> said)
      throws Exception {
    CountDownLatch finished = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              stop.run();
              boolean saved = false;
              try {
                saved = finished.await(grace.toMillis(), TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              said.accept(saved);
            },
            "pkibench-interrupt");
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

  /** What a stopped run or study says before the JVM exits: where its finished levels are. */
  static void sayWhereSaved(CliContext ctx, Path resultFile, boolean saved) {
    ctx.err()
        .println(
            saved
                ? "stopped: every finished level is saved in "
                    + resultFile
                    + " (status interrupted)"
                : "stopped: the result was not completed in time; "
                    + resultFile
                    + " holds every level finished before the signal");
    ctx.err().flush();
  }
}
