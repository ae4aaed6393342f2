package io.pkibench.metrics;

import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.exporter.otlp.http.metrics.OtlpHttpMetricExporter;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.common.InstrumentationScopeInfo;
import io.opentelemetry.sdk.metrics.data.AggregationTemporality;
import io.opentelemetry.sdk.metrics.data.Data;
import io.opentelemetry.sdk.metrics.data.DoublePointData;
import io.opentelemetry.sdk.metrics.data.GaugeData;
import io.opentelemetry.sdk.metrics.data.HistogramData;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.LongPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.metrics.data.MetricDataType;
import io.opentelemetry.sdk.metrics.data.SumData;
import io.opentelemetry.sdk.resources.Resource;
import io.pkibench.text.OutsideText;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * OpenTelemetry OTLP/HTTP (protobuf) through the OpenTelemetry Java SDK's exporter: each push hands
 * it the running totals as cumulative metric data, named as OpenTelemetry names things ({@code
 * pkibench.operations}, unit in the unit field, {@code pkibench.operation.duration} in s), which a
 * Prometheus reading OTLP turns into the remote-write names. The SDK's own retries are off: {@link
 * MetricsExporter} retries and counts, for both kinds alike.
 */
public final class OtlpSink implements MetricsSink {
  /**
   * The SDK logs each failed export through java.util.logging; the exporter reports failures
   * itself, once, on the terminal.
   */
  private static final Logger SDK_EXPORT_LOG = Logger.getLogger("io.opentelemetry.exporter");

  private static final InstrumentationScopeInfo SCOPE =
      InstrumentationScopeInfo.create("io.pkibench");
  private final OtlpHttpMetricExporter exporter;
  private final Resource resource =
      Resource.getDefault()
          .merge(Resource.create(Attributes.builder().put("service.name", "pkibench").build()));
  private final long startEpochNanos;

  public OtlpSink(URI uri, long startEpochMillis) {
    SDK_EXPORT_LOG.setLevel(Level.OFF);
    this.exporter =
        OtlpHttpMetricExporter.builder()
            .setEndpoint(endpoint(uri))
            .setTimeout(HttpPush.PUSH_WITHIN)
            .setConnectTimeout(HttpPush.CONNECT_TIMEOUT)
            .setRetryPolicy(null)
            .build();
    this.startEpochNanos = startEpochMillis * 1_000_000;
  }

  /**
   * OTLP/HTTP's metrics path is added to a base URL ({@code http://HOST:4318}, or Prometheus'
   * {@code /api/v1/otlp}).
   */
  static String endpoint(URI uri) {
    String url = uri.toString().replaceAll("/+$", "");
    return url.endsWith("/v1/metrics") ? url : url + "/v1/metrics";
  }

  @Override
  public void push(MetricsSnapshot snapshot) throws PushException {
    // The SDK's timeout bounds its wait for the answer's head, not for a body the receiver drips:
    // this wait bounds the push.
    CompletableResultCode result =
        exporter
            .export(metrics(snapshot))
            .join(HttpPush.PUSH_WITHIN.toSeconds() + 1, TimeUnit.SECONDS);
    if (result.isSuccess()) return;
    throw new PushException(
        !result.isDone()
            ? "no whole answer within " + HttpPush.PUSH_WITHIN.toSeconds() + " s"
            : reason(result.getFailureThrowable()),
        true);
  }

  /**
   * The SDK's failure in the words the remote-write side uses: the exception it wraps says what
   * happened.
   */
  static String reason(Throwable why) {
    for (Throwable t = why; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) return "connection refused";
      if (t instanceof HttpTimeoutException)
        return "no answer within " + HttpPush.PUSH_WITHIN.toSeconds() + " s";
    }
    if (why == null) return "the receiver did not accept the export";
    // The SDK's exception for an HTTP error status is internal to it and carries no message: named
    // by what it means.
    if (why.getClass().getSimpleName().equals("HttpExportException"))
      return "the receiver answered with an HTTP error status";
    // The message may quote what the receiver sent.
    return OutsideText.forTerminal(
        why.getMessage() == null ? why.getClass().getSimpleName() : why.getMessage());
  }

  List<MetricData> metrics(MetricsSnapshot s) {
    long now = s.atMillis() * 1_000_000;
    List<LongPointData> operations = new ArrayList<>();
    List<HistogramPointData> durations = new ArrayList<>();
    List<DoublePointData> target = new ArrayList<>(), achieved = new ArrayList<>();
    List<LongPointData> workers = new ArrayList<>();
    for (SeriesFigures f : s.series()) {
      Attributes labels = attributes(s.runId(), f.key().labels());
      if (f.counters()) {
        operations.add(
            LongPointData.create(
                startEpochNanos,
                now,
                labels.toBuilder().put("outcome", "ok").build(),
                f.succeeded()));
        operations.add(
            LongPointData.create(
                startEpochNanos,
                now,
                labels.toBuilder().put("outcome", "error").build(),
                f.failed()));
        long[] cumulative = f.cumulativeBuckets();
        List<Long> counts = new ArrayList<>(cumulative.length);
        for (int b = 0; b < cumulative.length; b++)
          counts.add(cumulative[b] - (b == 0 ? 0 : cumulative[b - 1]));
        durations.add(
            HistogramPointData.create(
                startEpochNanos,
                now,
                labels,
                f.latencySumSeconds(),
                false,
                0,
                f.latencyCount() > 0,
                f.maxLatencySeconds(),
                LatencyBuckets.boundsSeconds(),
                counts));
      }
      if (f.live() && f.gauges()) {
        // OTLP has no staleness marker: the gauges of a level that ended are simply no longer sent.
        if (!Double.isNaN(f.targetPerSecond()))
          target.add(
              DoublePointData.create(startEpochNanos, now, labels, f.targetPerSecond(), List.of()));
        achieved.add(
            DoublePointData.create(startEpochNanos, now, labels, f.achievedPerSecond(), List.of()));
        workers.add(LongPointData.create(startEpochNanos, now, labels, f.activeWorkers()));
      }
    }
    Attributes run = Attributes.builder().put("run", s.runId()).build();
    List<MetricData> metrics = new ArrayList<>();
    metrics.add(
        metric(
            "pkibench.operations",
            "operations that ended, by outcome",
            "{operation}",
            MetricDataType.LONG_SUM,
            SumData.createLongSumData(true, AggregationTemporality.CUMULATIVE, operations)));
    metrics.add(
        metric(
            "pkibench.operation.duration",
            "latency of the operations that succeeded",
            "s",
            MetricDataType.HISTOGRAM,
            HistogramData.create(AggregationTemporality.CUMULATIVE, durations)));
    if (!target.isEmpty()) {
      metrics.add(
          metric(
              "pkibench.target_rate",
              "the open loop's scheduled rate",
              "{operation}/s",
              MetricDataType.DOUBLE_GAUGE,
              GaugeData.createDoubleGaugeData(target)));
    }
    if (!achieved.isEmpty()) {
      metrics.add(
          metric(
              "pkibench.achieved_rate",
              "operations that succeeded in the last second",
              "{operation}/s",
              MetricDataType.DOUBLE_GAUGE,
              GaugeData.createDoubleGaugeData(achieved)));
      metrics.add(
          metric(
              "pkibench.active_workers",
              "workers serving the level",
              "{worker}",
              MetricDataType.LONG_GAUGE,
              GaugeData.createLongGaugeData(workers)));
    }
    metrics.add(
        metric(
            "pkibench.client_cpu",
            "CPU time of the pkibench process",
            "s",
            MetricDataType.DOUBLE_SUM,
            SumData.createDoubleSumData(
                true,
                AggregationTemporality.CUMULATIVE,
                List.of(
                    DoublePointData.create(
                        startEpochNanos, now, run, s.clientCpuSeconds(), List.of())))));
    if (!Double.isNaN(s.serviceCpuSeconds())) {
      metrics.add(
          metric(
              "pkibench.service_cpu",
              "CPU time of what --cpu measures",
              "s",
              MetricDataType.DOUBLE_SUM,
              SumData.createDoubleSumData(
                  true,
                  AggregationTemporality.CUMULATIVE,
                  List.of(
                      DoublePointData.create(
                          startEpochNanos, now, run, s.serviceCpuSeconds(), List.of())))));
    }
    return metrics;
  }

  private static Attributes attributes(String runId, List<String> labels) {
    AttributesBuilder b = Attributes.builder().put("run", runId);
    for (int i = 0; i < labels.size(); i += 2) b.put(labels.get(i), labels.get(i + 1));
    return b.build();
  }

  private MetricData metric(
      String name, String description, String unit, MetricDataType type, Data<?> data) {
    return new Metric(resource, SCOPE, name, description, unit, type, data);
  }

  /**
   * The SDK names the interface; its own implementation is internal, so a record carries the
   * values.
   */
  private record Metric(
      Resource getResource,
      InstrumentationScopeInfo getInstrumentationScopeInfo,
      String getName,
      String getDescription,
      String getUnit,
      MetricDataType getType,
      Data<?> getData)
      implements MetricData {}

  @Override
  public void close() {
    exporter.shutdown().join(2, TimeUnit.SECONDS);
  }
}
