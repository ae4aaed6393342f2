package io.pkibench.metrics;

import io.airlift.compress.snappy.SnappyCompressor;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Prometheus remote-write 1.0: each push is one WriteRequest (protobuf, snappy block format)
 * holding every series' current value, named as Prometheus names things: {@code
 * pkibench_operations_total} (counter, by outcome), {@code pkibench_operation_duration_seconds}
 * (histogram), the rate and worker gauges, and CPU seconds counters. A mix's counter and histogram
 * are per member ({@code member} label), its gauges the mix's own.
 */
public final class RemoteWriteSink implements MetricsSink {
  /**
   * Prometheus's staleness marker: a gauge whose series ended is ended, not drawn flat for the next
   * five minutes.
   */
  static final double STALE_NAN = Double.longBitsToDouble(0x7ff0000000000002L);

  private static final Map<String, String> HEADERS =
      Map.of(
          "Content-Type", "application/x-protobuf",
          "Content-Encoding", "snappy",
          "X-Prometheus-Remote-Write-Version", "0.1.0",
          "User-Agent", "pkibench");
  private final URI uri;
  private final HttpPush http = new HttpPush();

  /** The series whose gauges the previous push sent as live. */
  private Set<SeriesKey> liveGauges = new HashSet<>();

  /** The request's bytes, each series' labels encoded once: one buffer for every push. */
  private final RemoteWriteEncoder encoder = new RemoteWriteEncoder();

  private final SnappyCompressor snappy = new SnappyCompressor();
  private byte[] compressed = new byte[0];

  public RemoteWriteSink(URI uri) {
    this.uri = uri;
  }

  @Override
  public void push(MetricsSnapshot snapshot) throws PushException {
    encode(snapshot, liveGauges, encoder);
    int raw = encoder.size();
    int bound = snappy.maxCompressedLength(raw);
    if (compressed.length < bound) compressed = new byte[bound];
    int length = snappy.compress(encoder.buffer(), 0, raw, compressed, 0, compressed.length);
    http.post(uri, HEADERS, compressed, length);
    Set<SeriesKey> live = new HashSet<>();
    for (SeriesFigures f : snapshot.series()) if (f.live()) live.add(f.key());
    liveGauges = live;
  }

  /**
   * Writes the request for {@code snapshot} into {@code encoder}, after clearing it; gauges of
   * series live at the previous push but not now get a staleness marker.
   */
  static void encode(
      MetricsSnapshot snapshot, Set<SeriesKey> liveBefore, RemoteWriteEncoder encoder) {
    encoder.clear();
    long at = snapshot.atMillis();
    String run = snapshot.runId();
    for (SeriesFigures f : snapshot.series()) {
      List<String> labels = new ArrayList<>(List.of("run", run));
      labels.addAll(f.key().labels());
      if (f.counters()) {
        encoder.series(
            "pkibench_operations_total", with(labels, "outcome", "ok"), f.succeeded(), at);
        encoder.series(
            "pkibench_operations_total", with(labels, "outcome", "error"), f.failed(), at);
        long[] buckets = f.cumulativeBuckets();
        for (int b = 0; b < buckets.length; b++) {
          String le = b < LatencyBuckets.LE.length ? LatencyBuckets.LE[b] : "+Inf";
          encoder.series(
              "pkibench_operation_duration_seconds_bucket", with(labels, "le", le), buckets[b], at);
        }
        encoder.series(
            "pkibench_operation_duration_seconds_sum", labels, f.latencySumSeconds(), at);
        encoder.series("pkibench_operation_duration_seconds_count", labels, f.latencyCount(), at);
      }
      if (f.gauges() && (f.live() || liveBefore.contains(f.key()))) {
        if (!Double.isNaN(f.targetPerSecond())) {
          encoder.series(
              "pkibench_target_rate_per_second",
              labels,
              f.live() ? f.targetPerSecond() : STALE_NAN,
              at);
        }
        encoder.series(
            "pkibench_achieved_rate_per_second",
            labels,
            f.live() ? f.achievedPerSecond() : STALE_NAN,
            at);
        encoder.series(
            "pkibench_active_workers", labels, f.live() ? f.activeWorkers() : STALE_NAN, at);
      }
    }
    encoder.series(
        "pkibench_client_cpu_seconds_total", List.of("run", run), snapshot.clientCpuSeconds(), at);
    if (!Double.isNaN(snapshot.serviceCpuSeconds())) {
      encoder.series(
          "pkibench_service_cpu_seconds_total",
          List.of("run", run),
          snapshot.serviceCpuSeconds(),
          at);
    }
  }

  private static List<String> with(List<String> labels, String name, String value) {
    List<String> more = new ArrayList<>(labels);
    more.add(name);
    more.add(value);
    return more;
  }

  @Override
  public void close() {
    http.close();
  }
}
