package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * One threshold ({@code run --threshold}) checked on one figure of the run: a workload's level, or
 * a mix member's share of it, or one stage of a staged level. {@code observed} and {@code limit}
 * are in {@code unit} (ns, %, ops/s, ops/cpu-s); {@code observed} is null when the run has no such
 * figure (no level finished, no operation succeeded, no CPU measured), which fails the threshold,
 * {@code why} saying so: a gate must not pass on nothing.
 *
 * @param threshold the expression as written, e.g. {@code sign.p99<5ms}
 * @param workload the workload entry's name ({@code mix} for a mix) and {@code keys} its key source
 * @param level the level, as its load reads: {@code 4 workers}, {@code 400/s}, or {@code stages}
 *     for a staged run
 * @param member the mix member's label, absent otherwise
 * @param stage the stage from 1, absent for the whole level
 */
public record ThresholdVerdict(
    String threshold,
    String workload,
    String keys,
    @JsonInclude(JsonInclude.Include.NON_NULL) String level,
    @JsonInclude(JsonInclude.Include.NON_NULL) String member,
    @JsonInclude(JsonInclude.Include.NON_NULL) Integer stage,
    String metric,
    Double observed,
    double limit,
    String unit,
    boolean passed,
    @JsonInclude(JsonInclude.Include.NON_NULL) String why) {}
