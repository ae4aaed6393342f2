package io.pkibench.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.airlift.compress.snappy.SnappyDecompressor;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.measure.JvmCpuMeter;
import io.pkibench.metrics.remotewrite.Label;
import io.pkibench.metrics.remotewrite.TimeSeries;
import io.pkibench.metrics.remotewrite.WriteRequest;
import io.pkibench.plan.LevelLoad;
import io.pkibench.results.MetricsExport;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The exporter against receivers that are overloaded, refuse the data, or are not there: retried, bounded, counted. */
@Timeout(60)
class MetricsExporterTest {
  private HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) server.stop(0);
  }

  /** A loopback HTTP receiver answering each request with the next status of {@code statuses} (the last one repeats). */
  private MetricsTarget receiver(List<byte[]> bodies, List<String> headers, int... statuses) throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    AtomicInteger calls = new AtomicInteger();
    server.createContext("/api/v1/write", exchange -> {
      bodies.add(exchange.getRequestBody().readAllBytes());
      headers.add(exchange.getRequestHeaders().getFirst("Content-Encoding") + " " + exchange.getRequestHeaders().getFirst("X-Prometheus-Remote-Write-Version"));
      int status = statuses[Math.min(calls.getAndIncrement(), statuses.length - 1)];
      byte[] said = status == 400 ? "out of order sample".getBytes() : new byte[0];
      exchange.sendResponseHeaders(status, said.length == 0 ? -1 : said.length);
      if (said.length > 0) exchange.getResponseBody().write(said);
      exchange.close();
    });
    server.start();
    return MetricsTarget.parse("prometheus-rw=http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1/write");
  }

  private static MetricsExport runOnce(MetricsTarget target, List<String> log) {
    return runOnce(target, new RemoteWriteSink(target.uri()), log);
  }

  private static MetricsExport runOnce(MetricsTarget target, MetricsSink sink, List<String> log) {
    LiveMetrics live = new LiveMetrics();
    SeriesSpec spec = new SeriesSpec("sign", new LevelLoad.Open(8, 400), 1, 1, LiveMetricsTest.ONE, LiveMetricsTest.ONE);
    live.interval(LiveMetricsTest.sample(spec, false, 3, 1, 1_000_000, 2_000_000, 3_000_000));
    // An hour apart: the pushes are the first one, at the start, and the last one, made by finish().
    MetricsExporter exporter = MetricsExporter.start(live, sink,
        new MetricsExporter.Setup("run-1", target, Duration.ofHours(1), InstantSource.system(), new JvmCpuMeter(), null), log::add);
    return exporter.finish();
  }

  @Test
  void finish_receiverOverloadedTwice_retriedWithBackoffThenDelivered() throws Exception {
    List<byte[]> bodies = new CopyOnWriteArrayList<>();
    List<String> headers = new CopyOnWriteArrayList<>();
    List<String> log = new ArrayList<>();
    MetricsExport tally = runOnce(receiver(bodies, headers, 503, 503, 204), log);
    assertEquals(new MetricsExport(tally.target(), 2, 2, 2, 0, "HTTP 503", 0, 0, 0), tally.withoutCpu());
    assertTrue(tally.firstPushCpuSeconds() > 0 && tally.exporterCpuSeconds() >= 0 && tally.exporterCpuSeconds() < 10, tally.toString());
    assertTrue(tally.recordingCpuSeconds() > 0 && tally.recordingCpuSeconds() < 1, "the one interval's addition was timed: " + tally);
    assertEquals(4, bodies.size());
    assertEquals("snappy 0.1.0", headers.get(3));
    assertTrue(log.get(0).contains("failed (HTTP 503); retrying with backoff, the run goes on") && log.get(1).contains("arrive again"), log.toString());
    byte[] body = bodies.get(3);
    SnappyDecompressor snappy = new SnappyDecompressor();
    byte[] raw = new byte[SnappyDecompressor.getUncompressedLength(body, 0)];
    snappy.decompress(body, 0, body.length, raw, 0, raw.length);
    WriteRequest request = WriteRequest.parseFrom(raw);
    TimeSeries ok = request.getTimeseriesList().stream().filter(t -> t.getLabelsList().stream().anyMatch(l -> l.getValue().equals("pkibench_operations_total"))
        && t.getLabelsList().stream().anyMatch(l -> l.getName().equals("outcome") && l.getValue().equals("ok"))).findFirst().orElseThrow();
    assertEquals(List.of("__name__", "level", "outcome", "phase", "run", "workload"), ok.getLabelsList().stream().map(Label::getName).toList(),
        "labels sorted by name");
    assertEquals(3.0, ok.getSamples(0).getValue());
  }

  @Test
  void finish_receiverRefusesTheData_notRetriedAndCountedLost() throws Exception {
    List<String> log = new ArrayList<>();
    MetricsExport tally = runOnce(receiver(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>(), 400), log);
    assertEquals(new MetricsExport(tally.target(), 2, 0, 0, 2, "HTTP 400: out of order sample", 0, 0, 0), tally.withoutCpu());
    assertTrue(MetricsExporter.summary(tally).startsWith("metrics: 2 of 2 pushes to prometheus-rw=http://127.0.0.1:"), MetricsExporter.summary(tally));
  }

  @Test
  void finish_nothingListens_retriedBoundedTimesAndCountedLost() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    long start = System.nanoTime();
    MetricsExport tally = runOnce(MetricsTarget.parse("prometheus-rw=http://127.0.0.1:" + port + "/api/v1/write"), new ArrayList<>());
    assertEquals(new MetricsExport("prometheus-rw=http://127.0.0.1:" + port + "/api/v1/write", 2, 0, 2 * MetricsExporter.RETRIES, 2, "connection refused", 0, 0, 0),
        tally.withoutCpu());
    assertTrue(System.nanoTime() - start < Duration.ofSeconds(20).toNanos(), "bounded: three backoffs, each connection refused at once");
  }

  @Test
  void finish_otlpReceiverNotListening_retriedBoundedTimesAndCountedLost() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    MetricsTarget target = MetricsTarget.parse("otlp=http://127.0.0.1:" + port);
    List<String> log = new ArrayList<>();
    MetricsExport tally = runOnce(target, new OtlpSink(target.uri(), System.currentTimeMillis()), log);
    assertEquals(2, tally.pushes());
    assertEquals(2, tally.lost());
    assertEquals(2 * MetricsExporter.RETRIES, tally.retries());
    assertEquals("connection refused", tally.lastError());
    assertTrue(log.get(0).startsWith("metrics: a push to otlp=http://127.0.0.1:" + port + " failed (connection refused)"), log.toString());
  }

  /**
   * Pushes go one after another over one kept-alive connection, refusals too (their bodies are read to the end), so a
   * push every few seconds costs no TCP or TLS setup; a receiver that closes the connection gets a new one.
   */
  @Test
  void post_fivePushesWithARefusalBetween_oneConnectionKeptAlive() throws Exception {
    List<Integer> clientPorts = new CopyOnWriteArrayList<>();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    AtomicInteger calls = new AtomicInteger();
    server.createContext("/api/v1/write", exchange -> {
      exchange.getRequestBody().readAllBytes();
      clientPorts.add(exchange.getRemoteAddress().getPort());
      byte[] said = "out of order sample".getBytes();
      boolean refuse = calls.incrementAndGet() == 3;
      if (calls.get() == 5) exchange.getResponseHeaders().add("Connection", "close");
      exchange.sendResponseHeaders(refuse ? 400 : 204, refuse ? said.length : -1);
      if (refuse) exchange.getResponseBody().write(said);
      exchange.close();
    });
    server.start();
    URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1/write");
    HttpPush push = new HttpPush();
    List<String> outcomes = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      try {
        push.post(uri, Map.of("Content-Type", "application/x-protobuf"), new byte[] {1, 2, 3});
        outcomes.add("ok");
      } catch (MetricsSink.PushException e) {
        outcomes.add(e.getMessage() + (e.retryable() ? " (retry)" : ""));
      }
    }
    assertEquals(List.of("ok", "ok", "HTTP 400: out of order sample", "ok", "ok", "ok"), outcomes);
    assertEquals(1, clientPorts.subList(0, 5).stream().distinct().count(), "the first five on one connection: " + clientPorts);
    assertTrue(!clientPorts.get(5).equals(clientPorts.get(4)), "after the receiver's Connection: close, a new one: " + clientPorts);
  }
}
