package io.pkibench.results;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

/** Failures of one cause (exception class and message). */
public record ErrorCount(String cause, long count) {

  /** Most frequent first, then by cause, so output is stable. */
  public static List<ErrorCount> sorted(Map<String, Long> counts) {
    return counts.entrySet().stream()
        .map(e -> new ErrorCount(e.getKey(), e.getValue()))
        .sorted(
            Comparator.comparingLong(ErrorCount::count).reversed().thenComparing(ErrorCount::cause))
        .toList();
  }
}
