package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pkibench.results.RunResult;
import io.pkibench.testing.PrometheusServer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --metrics otlp=URL} through the OpenTelemetry SDK's OTLP/HTTP exporter into Prometheus
 * 3's OTLP receiver (built from source by ./test with the Go toolchain; Debian's 2.42 has none):
 * the same counts as the result file, and the same dashboard, read through the OpenTelemetry names
 * Prometheus translates.
 */
@Timeout(120)
class RunMetricsOtlpTest {
  /** Where ./test puts Prometheus 3 (beside Debian's 2.x in /usr/bin, not in its place). */
  static final Path PROMETHEUS_3 = Path.of("/usr/local/bin/prometheus3");

  @TempDir Path dir;

  @Test
  void run_metricsIntoPrometheusOtlpReceiver_countsEqualTheResultAndEveryDashboardQueryHasData()
      throws Exception {
    try (PrometheusServer prometheus =
        PrometheusServer.start(PROMETHEUS_3, dir, "--web.enable-otlp-receiver")) {
      RunResult result =
          RunMetricsPrometheusTest.runAndCompare(
              dir, prometheus, "otlp=" + prometheus.url("/api/v1/otlp"));
      assertEquals("otlp=" + prometheus.url("/api/v1/otlp"), result.metrics().target());
    }
  }
}
