package io.pkibench.workload.api;

/**
 * One transaction. Throwing counts it as failed; with verification on, it checks its own output.
 */
@FunctionalInterface
public interface Operation {
  void execute() throws Exception;
}
