package io.pkibench.engine;

import io.pkibench.text.FailureCause;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;

/** Failures grouped by cause; owned by one worker, touched only on the (rare) failure path. */
final class ErrorTally {
  static final int MAX_CAUSES = 100;
  static final String OTHER =
      "(more distinct causes than " + MAX_CAUSES + "; the rest are counted here)";
  private static final int MAX_CAUSE_CHARS = 200;

  /**
   * "failure #4711": a service that numbers each failure so its log can be searched (the key server
   * does) would otherwise make every failure a cause of its own and fill the table.
   */
  private static final Pattern FAILURE_NUMBER = Pattern.compile("#\\d+");

  private final Map<String, Long> counts = new HashMap<>();

  void record(Throwable failure) {
    String cause = causeOf(failure);
    if (!counts.containsKey(cause) && counts.size() >= MAX_CAUSES) cause = OTHER;
    counts.merge(cause, 1L, Long::sum);
  }

  void drainInto(Map<String, Long> total) {
    counts.forEach((cause, n) -> total.merge(cause, n, Long::sum));
    counts.clear();
  }

  /**
   * The failure in words ({@link FailureCause}: "connection refused (ConnectException)", not the
   * JDK's class chain), truncated so a huge message cannot bloat the result.
   */
  static String causeOf(Throwable failure) {
    String s = FAILURE_NUMBER.matcher(FailureCause.sentenceOf(failure)).replaceAll("#N");
    return s.length() <= MAX_CAUSE_CHARS ? s : s.substring(0, MAX_CAUSE_CHARS - 1) + "…";
  }
}
