package io.pkibench.workload.api;

/**
 * One transaction type, e.g. {@code sign} or {@code cades-t}; its shared state lives here,
 * per-worker state in operations.
 */
public interface Workload extends AutoCloseable {

  /** Called once per worker before the first iteration, on that worker's thread. */
  Operation newOperation(int worker) throws Exception;

  @Override
  default void close() throws Exception {}
}
