package io.pkibench.workload.apispec;

/**
 * Why an operation of the {@code api} workload failed: the step or check, then why, its words
 * already cleared of secrets. It carries no cause, whose own message could hold one.
 */
final class StepFailure extends Exception {
  StepFailure(String message) {
    super(message, null, false, false);
  }
}
