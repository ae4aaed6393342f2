package io.pkibench.session;

import io.pkibench.plan.Iterations;
import io.pkibench.plan.LevelLoad;
import io.pkibench.plan.ThreadKind;
import io.pkibench.plan.WorkloadSpec;

/**
 * One series handed to a fresh JVM ({@code run --fork}): everything the child needs to run it
 * exactly as the parent would, and nothing secret (a PIN travels in the environment or a file named
 * by the child's options). {@code verifyEvery}: one answer in that many checked under {@code
 * verify}.
 */
public record SeriesRequest(
    WorkloadSpec workload,
    LevelLoad load,
    int series,
    int seriesCount,
    Iterations warmup,
    Iterations measure,
    ThreadKind threads,
    boolean verify,
    String cpu,
    long hangGraceMillis,
    int verifyEvery) {

  /** Checking every answer under {@code verify}. */
  public SeriesRequest(
      WorkloadSpec workload,
      LevelLoad load,
      int series,
      int seriesCount,
      Iterations warmup,
      Iterations measure,
      ThreadKind threads,
      boolean verify,
      String cpu,
      long hangGraceMillis) {
    this(
        workload,
        load,
        series,
        seriesCount,
        warmup,
        measure,
        threads,
        verify,
        cpu,
        hangGraceMillis,
        1);
  }

  public SeriesRequest {
    if (verifyEvery < 1) verifyEvery = 1; // a request from before --verify-sample checks every one
  }
}
