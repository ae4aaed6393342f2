package io.pkibench.session;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.pkibench.keys.KeyNodeTally;
import io.pkibench.results.IterationResult;
import java.util.List;

/**
 * What a forked series hands back: its iterations, or why it could not run them, and, for a key source
 * with nodes, each node's share of the calls the child made (the parent adds them up across forks).
 */
public record SeriesResponse(String schema, List<IterationResult> iterations, String failure,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<KeyNodeTally> keyNodes) {
  public static final String SCHEMA = "pkibench.series/1";

  public SeriesResponse {
    keyNodes = keyNodes == null ? List.of() : List.copyOf(keyNodes);
  }

  public SeriesResponse(String schema, List<IterationResult> iterations, String failure) {
    this(schema, iterations, failure, List.of());
  }
}
