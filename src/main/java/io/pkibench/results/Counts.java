package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * Every operation started is counted once, as succeeded or failed. {@code verified}: of the
 * succeeded, those whose answer was checked against what was sent and passed (all of them, or one
 * in N under {@code --verify-sample N}); null when nothing was checked (a run without {@code
 * --verify}, a workload that does not count its checks, a file written before {@code
 * pkibench.run/3}), never written as 0 then.
 */
public record Counts(
    long started,
    long succeeded,
    long failed,
    @JsonInclude(JsonInclude.Include.NON_NULL) Long verified) {

  /** Counts of operations none of whose answers were checked. */
  public Counts(long started, long succeeded, long failed) {
    this(started, succeeded, failed, null);
  }

  /** {@code a + b}, null when neither was checked: a merge never turns "not checked" into 0. */
  public static Long sumVerified(Long a, Long b) {
    if (a == null) return b;
    if (b == null) return a;
    return a + b;
  }
}
