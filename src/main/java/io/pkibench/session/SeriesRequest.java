package io.pkibench.session;

import io.pkibench.plan.Iterations;
import io.pkibench.plan.LevelLoad;
import io.pkibench.plan.ThreadKind;
import io.pkibench.plan.WorkloadSpec;

/**
 * One series handed to a fresh JVM ({@code run --fork}): everything the child needs to run it
 * exactly as the parent would, and nothing secret (a PIN travels in the environment or a file named
 * by the child's options).
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
    long hangGraceMillis) {}
