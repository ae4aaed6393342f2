package io.pkibench.dashboard;

import io.pkibench.results.RunResult;

/**
 * What a study adds to its live page, read by the page's reader once a second: which of its steps
 * runs, and its result as it stands (its table fills in a row per step).
 */
public interface StudyView {
  /** {@code step 3 of 12: LABEL}; null before the first step begins. */
  String step();

  /** The study's result as saved so far; null before it starts. */
  RunResult soFar();
}
