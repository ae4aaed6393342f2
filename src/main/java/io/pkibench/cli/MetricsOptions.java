package io.pkibench.cli;

import io.pkibench.engine.ProgressListener;
import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.JvmCpuMeter;
import io.pkibench.metrics.LiveMetrics;
import io.pkibench.metrics.MetricsExporter;
import io.pkibench.metrics.MetricsSinks;
import io.pkibench.metrics.MetricsTarget;
import io.pkibench.plan.Durations;
import io.pkibench.results.MetricsExport;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/**
 * {@code --metrics} and {@code --metrics-interval}: live figures pushed to the user's monitoring
 * while a run goes on.
 */
final class MetricsOptions {
  @Option(
      names = "--metrics",
      paramLabel = "KIND=URL",
      description =
          "push live metrics while the run goes on: prometheus-rw=URL (Prometheus remote-write, e.g. http://127.0.0.1:9090/api/v1/write)"
              + " or otlp=URL (OpenTelemetry OTLP/HTTP, e.g. http://127.0.0.1:4318); a receiver that is down costs no measurement, its losses are counted")
  String metrics;

  @Option(
      names = "--metrics-interval",
      defaultValue = "5s",
      paramLabel = "DURATION",
      description =
          "how often --metrics pushes (default: ${DEFAULT-VALUE}); one last push at the end makes the final counts exact")
  String interval;

  /**
   * Adds a problem per bad value, naming the flag and the fix; {@code forked}: --fork, whose series
   * report to other JVMs.
   */
  void check(FlagProblems problems, boolean forked) {
    if (metrics != null) {
      try {
        MetricsTarget.parse(metrics);
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
      if (forked) {
        problems.add(
            "--metrics with --fork: the forked JVMs' per-second figures do not reach this one; leave out one of them");
      }
    }
    Duration d = problems.duration("--metrics-interval", interval, null);
    if (d != null)
      problems.require(
          d.compareTo(Duration.ofMillis(100)) >= 0,
          "--metrics-interval",
          interval,
          "give 100ms or more, e.g. 5s");
  }

  /** The listener that feeds the exporter (null without --metrics). */
  LiveMetrics listener() {
    return metrics == null ? null : new LiveMetrics();
  }

  static ProgressListener with(ProgressListener progress, LiveMetrics live) {
    return live == null ? progress : ProgressListener.all(List.of(progress, live));
  }

  /**
   * Starts pushing {@code live}, named {@code runId}; {@code service}: the run's CPU meter,
   * reported as the service's CPU when it measures something other than this process.
   */
  MetricsExporter start(
      LiveMetrics live, String runId, InstantSource clock, CpuMeter service, Consumer<String> log) {
    if (live == null || metrics == null) return null; // live may be --dashboard's alone
    MetricsTarget target = MetricsTarget.parse(metrics);
    // the per-second additions compiled before the run, as the dashboard's readings are
    LiveMetrics.warmUp(LiveMetrics.WARM_UP_TIMES, LiveMetrics::snapshot);
    return MetricsExporter.start(
        live,
        MetricsSinks.open(target, clock.millis()),
        new MetricsExporter.Setup(
            runId,
            target,
            Durations.parse(interval),
            clock,
            new JvmCpuMeter(),
            service.describe().equals("jvm") ? null : service),
        log);
  }

  /** The last push and its account, said on the terminal; null without --metrics. */
  static MetricsExport finish(MetricsExporter exporter, Consumer<String> log) {
    if (exporter == null) return null;
    MetricsExport tally = exporter.finish();
    log.accept(MetricsExporter.summary(tally));
    return tally;
  }
}
