package io.pkibench.metrics;

/** The sink a {@link MetricsTarget} names. */
public final class MetricsSinks {
  private MetricsSinks() {}

  /** {@code startEpochMillis}: when the counters started, which OTLP's cumulative points carry. */
  public static MetricsSink open(MetricsTarget target, long startEpochMillis) {
    return switch (target.kind()) {
      case PROMETHEUS_RW -> new RemoteWriteSink(target.uri());
      case OTLP -> new OtlpSink(target.uri(), startEpochMillis);
    };
  }
}
