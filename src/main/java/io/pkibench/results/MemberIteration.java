package io.pkibench.results;

import java.util.List;

/**
 * One member of a mix in one iteration, as kept in the result file: its counts, errors and
 * compressed latency histogram.
 */
public record MemberIteration(
    String label,
    long started,
    long succeeded,
    long failed,
    List<ErrorCount> errors,
    String histogram) {
  public MemberIteration {
    errors = List.copyOf(errors);
  }
}
