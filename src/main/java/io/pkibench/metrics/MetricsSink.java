package io.pkibench.metrics;

/**
 * One receiver of live figures: a push sends one snapshot once, and says whether trying again could
 * help.
 */
public interface MetricsSink extends AutoCloseable {
  void push(MetricsSnapshot snapshot) throws PushException;

  @Override
  default void close() {}

  /**
   * A push that did not arrive; {@code retryable}: the receiver was down, slow or overloaded, not
   * refusing the data.
   */
  final class PushException extends Exception {
    private final boolean retryable;

    public PushException(String message, boolean retryable) {
      super(message);
      this.retryable = retryable;
    }

    public boolean retryable() {
      return retryable;
    }
  }
}
