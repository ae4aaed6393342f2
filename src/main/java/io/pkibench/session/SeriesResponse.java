package io.pkibench.session;

import io.pkibench.results.IterationResult;
import java.util.List;

/** What a forked series hands back: its iterations, or why it could not run them. */
public record SeriesResponse(String schema, List<IterationResult> iterations, String failure) {
  public static final String SCHEMA = "pkibench.series/1";
}
