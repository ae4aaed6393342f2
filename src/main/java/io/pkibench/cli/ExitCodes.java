package io.pkibench.cli;

/** Stable exit codes: scripts and CI rely on them. */
public final class ExitCodes {
  public static final int OK = 0;

  /** The run finished but some workload could not run or stopped early (see the result file). */
  public static final int RUN_FAILED = 1;

  /** Bad flags, files or plans: nothing was run. */
  public static final int USAGE = 2;

  /**
   * {@code compare}: a threshold failed beyond the noise. {@code run --threshold}: the run finished
   * and one of its limits failed (k6 uses 99 for this; ours is one code for "a threshold failed",
   * whichever command checked it).
   */
  public static final int THRESHOLD_FAILED = 3;

  /**
   * {@code study}: every step ran but a post-run check failed (e.g. a message lost); the result
   * says which.
   */
  public static final int CHECK_FAILED = 4;

  /**
   * {@code compare}: no threshold failed, but at least one could not be decided: the change's
   * interval spans both no change and the limit. Not 0, so a gate does not pass on data that cannot
   * tell; not 3, so it is not taken for a regression. The report says how many iterations a side
   * would decide it.
   */
  public static final int INCONCLUSIVE = 5;

  /**
   * {@code compare} with a threshold: no threshold failed, but a workload or level of one run has
   * no match in the other (a step missing, a probe that chose another level), so a regression there
   * could not be seen. Not 5: more iterations would not help; the two runs must measure the same
   * steps and levels.
   */
  public static final int INCOMPLETE = 6;

  /**
   * {@code run}: at some level every operation failed (a service that answered the check before the
   * run, then nothing); the run ended at that level, its result written. Not 1: the workload ran,
   * the service under it did not work; not 0, so a script does not take a table of failures for a
   * measurement.
   */
  public static final int EVERY_OPERATION_FAILED = 7;

  private ExitCodes() {}
}
