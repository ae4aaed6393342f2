package io.pkibench.study;

import io.pkibench.results.RunResult;

/**
 * A check after the measurements that decides whether the study passed (e.g. every PEC message has
 * its receipts exactly once). It runs while the services are still up; its outcome is recorded.
 */
public interface PostCheck {
  String name();

  Outcome check(RunResult result, RunningServices services) throws Exception;

  record Outcome(boolean passed, String detail) {
    public static Outcome pass(String detail) {
      return new Outcome(true, detail);
    }

    public static Outcome fail(String detail) {
      return new Outcome(false, detail);
    }
  }
}
