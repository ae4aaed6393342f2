package io.pkibench.session;

import io.pkibench.keys.KeyNodeTally;
import io.pkibench.results.IterationResult;
import java.util.List;
import java.util.Map;

/**
 * One series as run, here or in a forked JVM: its iterations, the outcomes its workload counted
 * (empty for most), and, from a forked JVM, the calls it made to each key-server node (empty here:
 * this JVM's key source keeps its own tally).
 */
public record SeriesRun(
    List<IterationResult> iterations,
    Map<String, Long> outcomes,
    List<KeyNodeTally> forkedKeyNodes) {
  public SeriesRun {
    iterations = List.copyOf(iterations);
    outcomes = outcomes == null ? Map.of() : Map.copyOf(outcomes);
    forkedKeyNodes = forkedKeyNodes == null ? List.of() : List.copyOf(forkedKeyNodes);
  }

  public SeriesRun(List<IterationResult> iterations, Map<String, Long> outcomes) {
    this(iterations, outcomes, List.of());
  }
}
