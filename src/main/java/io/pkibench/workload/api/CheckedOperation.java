package io.pkibench.workload.api;

/**
 * An operation that checks the measured service's answer against what it sent, and says whether
 * this one was checked: a workload hands one out only under {@code --verify} (else a plain {@link
 * Operation}, so a run without checks pays nothing for them), and the engine counts the checked
 * ones that succeeded as {@code verified}. A check that fails throws, so the operation fails.
 */
public interface CheckedOperation extends Operation {
  /**
   * One transaction; true when its answer was checked and passed, false when it was not sampled for
   * a check ({@code --verify-sample N} checks one in N).
   */
  boolean executeChecked() throws Exception;

  @Override
  default void execute() throws Exception {
    executeChecked();
  }
}
