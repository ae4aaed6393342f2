package io.pkibench.metrics;

import io.airlift.compress.snappy.SnappyCompressor;
import io.pkibench.metrics.remotewrite.Label;
import io.pkibench.metrics.remotewrite.Sample;
import io.pkibench.metrics.remotewrite.TimeSeries;
import io.pkibench.metrics.remotewrite.WriteRequest;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Prometheus remote-write 1.0: each push is one WriteRequest (protobuf, snappy block format) holding every series'
 * current value, named as Prometheus names things: {@code pkibench_operations_total} (counter, by outcome),
 * {@code pkibench_operation_duration_seconds} (histogram), the rate and worker gauges, and CPU seconds counters. A mix's
 * counter and histogram are per member ({@code member} label), its gauges the mix's own.
 */
public final class RemoteWriteSink implements MetricsSink {
  /** Prometheus's staleness marker: a gauge whose series ended is ended, not drawn flat for the next five minutes. */
  static final double STALE_NAN = Double.longBitsToDouble(0x7ff0000000000002L);
  private static final Map<String, String> HEADERS = Map.of(
      "Content-Type", "application/x-protobuf",
      "Content-Encoding", "snappy",
      "X-Prometheus-Remote-Write-Version", "0.1.0",
      "User-Agent", "pkibench");
  private final URI uri;
  private final HttpPush http = new HttpPush();
  /** The series whose gauges the previous push sent as live. */
  private Set<SeriesKey> liveGauges = new HashSet<>();
  /**
   * Each series' labels, sorted and built once (a metric name and its label pairs → the protobuf labels, immutable and
   * shared by every push): the same few dozen series are sent every push, and building their labels again was most
   * of a push's work on the exporter thread.
   */
  private final Map<List<String>, List<Label>> labelsOf = new HashMap<>();

  public RemoteWriteSink(URI uri) {
    this.uri = uri;
  }

  @Override
  public void push(MetricsSnapshot snapshot) throws PushException {
    WriteRequest request = request(snapshot, liveGauges, labelsOf);
    http.post(uri, HEADERS, snappy(request.toByteArray()));
    Set<SeriesKey> live = new HashSet<>();
    for (SeriesFigures f : snapshot.series()) if (f.live()) live.add(f.key());
    liveGauges = live;
  }

  /**
   * The request for {@code snapshot}; gauges of series live at the previous push but not now get a staleness marker.
   * {@code labelsOf} keeps each series' built labels from one request to the next.
   */
  static WriteRequest request(MetricsSnapshot snapshot, Set<SeriesKey> liveBefore, Map<List<String>, List<Label>> labelsOf) {
    WriteRequest.Builder request = WriteRequest.newBuilder();
    long at = snapshot.atMillis();
    String run = snapshot.runId();
    for (SeriesFigures f : snapshot.series()) {
      List<String> labels = new ArrayList<>(List.of("run", run));
      labels.addAll(f.key().labels());
      if (f.counters()) {
        add(request, labelsOf, "pkibench_operations_total", with(labels, "outcome", "ok"), f.succeeded(), at);
        add(request, labelsOf, "pkibench_operations_total", with(labels, "outcome", "error"), f.failed(), at);
        long[] buckets = f.cumulativeBuckets();
        for (int b = 0; b < buckets.length; b++) {
          String le = b < LatencyBuckets.LE.length ? LatencyBuckets.LE[b] : "+Inf";
          add(request, labelsOf, "pkibench_operation_duration_seconds_bucket", with(labels, "le", le), buckets[b], at);
        }
        add(request, labelsOf, "pkibench_operation_duration_seconds_sum", labels, f.latencySumSeconds(), at);
        add(request, labelsOf, "pkibench_operation_duration_seconds_count", labels, f.latencyCount(), at);
      }
      if (f.gauges() && (f.live() || liveBefore.contains(f.key()))) {
        if (!Double.isNaN(f.targetPerSecond())) {
          add(request, labelsOf, "pkibench_target_rate_per_second", labels, f.live() ? f.targetPerSecond() : STALE_NAN, at);
        }
        add(request, labelsOf, "pkibench_achieved_rate_per_second", labels, f.live() ? f.achievedPerSecond() : STALE_NAN, at);
        add(request, labelsOf, "pkibench_active_workers", labels, f.live() ? f.activeWorkers() : STALE_NAN, at);
      }
    }
    add(request, labelsOf, "pkibench_client_cpu_seconds_total", List.of("run", run), snapshot.clientCpuSeconds(), at);
    if (!Double.isNaN(snapshot.serviceCpuSeconds())) {
      add(request, labelsOf, "pkibench_service_cpu_seconds_total", List.of("run", run), snapshot.serviceCpuSeconds(), at);
    }
    return request.build();
  }

  private static List<String> with(List<String> labels, String name, String value) {
    List<String> more = new ArrayList<>(labels);
    more.add(name);
    more.add(value);
    return more;
  }

  /** One series with one sample; its labels sorted by name, as receivers require. */
  private static void add(WriteRequest.Builder request, Map<List<String>, List<Label>> labelsOf, String name, List<String> labels, double value,
      long atMillis) {
    List<String> key = new ArrayList<>(labels.size() + 1);
    key.add(name);
    key.addAll(labels);
    List<Label> sorted = labelsOf.computeIfAbsent(key, k -> {
      List<Label> built = new ArrayList<>();
      built.add(Label.newBuilder().setName("__name__").setValue(name).build());
      for (int i = 0; i < labels.size(); i += 2) built.add(Label.newBuilder().setName(labels.get(i)).setValue(labels.get(i + 1)).build());
      built.sort(Comparator.comparing(Label::getName));
      return List.copyOf(built);
    });
    request.addTimeseries(TimeSeries.newBuilder().addAllLabels(sorted).addSamples(Sample.newBuilder().setValue(value).setTimestamp(atMillis)));
  }

  static byte[] snappy(byte[] raw) {
    SnappyCompressor compressor = new SnappyCompressor();
    byte[] out = new byte[compressor.maxCompressedLength(raw.length)];
    int n = compressor.compress(raw, 0, raw.length, out, 0, out.length);
    return Arrays.copyOf(out, n);
  }

  @Override
  public void close() {
    http.close();
  }
}
