package io.pkibench.testing;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;

/**
 * Waits for a condition instead of sleeping for a guessed time; every wait is bounded and fails
 * naming what never came.
 */
public final class Await {
  private static final Duration POLL = Duration.ofMillis(20);

  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  private Await() {}

  /**
   * Polls {@code condition} until it holds; fails after {@code timeout} naming {@code what} was
   * awaited.
   */
  public static void until(Duration timeout, String what, Condition condition) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.holds()) {
      if (System.nanoTime() - deadline > 0)
        fail("waited " + timeout.toMillis() + " ms for " + what + "; it never came");
      Thread.sleep(POLL);
    }
  }
}
