package io.pkibench.metrics;

/** The sink a {@link MetricsTarget} names. */
public final class MetricsSinks {
  private MetricsSinks() {}

  public static MetricsSink open(MetricsTarget target) {
    return switch (target.kind()) {
      case PROMETHEUS_RW -> new RemoteWriteSink(target.uri());
      case OTLP -> throw new IllegalArgumentException("--metrics otlp=: not available in this build");
    };
  }
}
