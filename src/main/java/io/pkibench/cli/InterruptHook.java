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
 * told whether it did (true) or the grace ran out (false). Then the JVM waits on, up to {@link
 * #SUMMARY_GRACE}, for the command to print its summary (the table of what was measured, where it
 * is saved) and {@link #release} the hook: a shutdown hook that returned would let the JVM exit
 * halfway through those lines. One per command: made where the command starts, released in its
 * {@code finally}.
 */
final class InterruptHook {
  /** How long a stopped command may take to print its summary after its result is saved. */
  static final Duration SUMMARY_GRACE = Duration.ofSeconds(20);

  private final CountDownLatch saved = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);
  private Thread hook;

  /**
   * Runs {@code work} with the hook armed; {@code stop} and {@code said} as the class says. The
   * hook stays armed after {@code work} returns, until {@link #release}.
   */
  <T> T around(Runnable stop, Duration grace, Callable<T> work, Consumer<Boolean> said)
      throws Exception {
    hook =
        new Thread(
            () -> {
              stop.run();
              boolean done = false;
              try {
                done = saved.await(grace.toMillis(), TimeUnit.MILLISECONDS);
                said.accept(done);
                if (done) released.await(SUMMARY_GRACE.toMillis(), TimeUnit.MILLISECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "pkibench-interrupt");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      return work.call();
    } finally {
      saved.countDown();
    }
  }

  /** The command has said everything: a signal's hook may let the JVM exit; none is armed now. */
  void release() {
    saved.countDown();
    released.countDown();
    if (hook == null) return;
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // the hook is running: the JVM exits once it returns, which it now may
    }
  }

  /** What a stopped run or study says before the JVM exits: where its finished levels are. */
  static void sayWhereSaved(CliContext ctx, Path resultFile, boolean saved) {
    ctx.err()
        .println(
            saved
                ? "stopped: every finished level is saved in "
                    + resultFile
                    + " (status interrupted); what was measured follows"
                : "stopped: the result was not completed in time; "
                    + resultFile
                    + " holds every level finished before the signal");
    ctx.err().flush();
  }
}
