package io.pkibench.metrics;

import java.util.List;

/**
 * What one push sends: every series' totals so far, this process's CPU seconds, and the sized
 * service's where the run measures one apart from this process ({@code --cpu pid:N} or {@code
 * host}; NaN otherwise), stamped {@code atMillis}.
 */
public record MetricsSnapshot(
    String runId,
    long atMillis,
    List<SeriesFigures> series,
    double clientCpuSeconds,
    double serviceCpuSeconds) {
  public MetricsSnapshot {
    series = List.copyOf(series);
  }
}
