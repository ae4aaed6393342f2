package io.pkibench.session;

import io.pkibench.results.IterationResult;
import java.util.List;

/** What a forked series hands back: its iterations and the workload's counted outcomes, or why it could not run them. */
public record SeriesResponse(String schema, List<IterationResult> iterations, String failure,
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_EMPTY) java.util.Map<String, Long> outcomes) {
  public static final String SCHEMA = "pkibench.series/1";
}
