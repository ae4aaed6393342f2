package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * How the live metrics of a run reached their receiver ({@code run --metrics}): pushes made, delivered, retried and
 * lost (after bounded retries, or refused), with the last reason a push failed. The result itself never depends on them.
 *
 * @param target the receiver as {@code KIND=URL}, without user info or query
 * @param exporterCpuSeconds CPU time of the pushing thread over the run (building, compressing, sending, retrying): what
 *     exporting cost this process apart from the per-second additions on the engine's controller thread
 */
public record MetricsExport(
    String target, long pushes, long delivered, long retries, long lost, @JsonInclude(JsonInclude.Include.NON_NULL) String lastError,
    double exporterCpuSeconds) {

  /** The account without its CPU time, which varies from run to run. */
  public MetricsExport withoutCpu() {
    return new MetricsExport(target, pushes, delivered, retries, lost, lastError, 0);
  }
}
