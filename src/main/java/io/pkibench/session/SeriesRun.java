package io.pkibench.session;

import io.pkibench.results.IterationResult;
import java.util.List;
import java.util.Map;

/** One series as run, here or in a forked JVM: its iterations, and the outcomes its workload counted (empty for most). */
public record SeriesRun(List<IterationResult> iterations, Map<String, Long> outcomes) {
  public SeriesRun {
    iterations = List.copyOf(iterations);
    outcomes = outcomes == null ? Map.of() : Map.copyOf(outcomes);
  }
}
