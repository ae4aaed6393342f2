package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * How the live metrics of a run reached their receiver ({@code run --metrics}): pushes made,
 * delivered, retried and lost (after bounded retries, or refused), with the last reason a push
 * failed. The result itself never depends on them.
 *
 * @param target the receiver as {@code KIND=URL}, without user info or query
 * @param exporterCpuSeconds CPU time of the pushing thread after its first push (building,
 *     compressing, sending, retrying): what exporting costs this process while the run measures,
 *     apart from the per-second additions on the engine's controller thread
 * @param firstPushCpuSeconds CPU time of its first push, made before the run's first interval,
 *     which loads and sets up the HTTP client, protobuf or the OpenTelemetry SDK once
 * @param recordingCpuSeconds CPU time of the per-second additions on the engine's controller thread
 *     (each interval's counts and latencies into the running totals a push reads): with {@code
 *     exporterCpuSeconds}, all that {@code --metrics} adds; 0 in results written before it was
 *     measured
 */
public record MetricsExport(
    String target,
    long pushes,
    long delivered,
    long retries,
    long lost,
    @JsonInclude(JsonInclude.Include.NON_NULL) String lastError,
    double exporterCpuSeconds,
    double firstPushCpuSeconds,
    double recordingCpuSeconds) {

  /** The account without its CPU time, which varies from run to run. */
  public MetricsExport withoutCpu() {
    return new MetricsExport(target, pushes, delivered, retries, lost, lastError, 0, 0, 0);
  }
}
