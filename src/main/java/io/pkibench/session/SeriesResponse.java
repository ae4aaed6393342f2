package io.pkibench.session;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.pkibench.keys.KeyNodeTally;
import io.pkibench.results.IterationResult;
import java.util.List;
import java.util.Map;

/**
 * What a forked series hands back: its iterations and the workload's counted outcomes, or why it
 * could not run them, and, for a key source with nodes, each node's share of the calls the child
 * made (the parent adds them up across forks).
 */
public record SeriesResponse(
    String schema,
    List<IterationResult> iterations,
    String failure,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) Map<String, Long> outcomes,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<KeyNodeTally> keyNodes) {
  public static final String SCHEMA = "pkibench.series/1";

  public SeriesResponse {
    outcomes = outcomes == null ? Map.of() : Map.copyOf(outcomes);
    keyNodes = keyNodes == null ? List.of() : List.copyOf(keyNodes);
  }

  public SeriesResponse(String schema, List<IterationResult> iterations, String failure) {
    this(schema, iterations, failure, Map.of(), List.of());
  }
}
