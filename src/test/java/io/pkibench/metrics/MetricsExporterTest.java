package io.pkibench.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
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
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The exporter against receivers that are overloaded, refuse the data, or are not there: retried,
 * bounded, counted.
 */
@Timeout(60)
class MetricsExporterTest {
  private HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) server.stop(0);
  }

  /**
   * A loopback HTTP receiver answering each request with the next status of {@code statuses} (the
   * last one repeats).
   */
  private MetricsTarget receiver(List<byte[]> bodies, List<String> headers, int... statuses)
      throws Exception {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    AtomicInteger calls = new AtomicInteger();
    server.createContext(
        "/api/v1/write",
        exchange -> {
          bodies.add(exchange.getRequestBody().readAllBytes());
          headers.add(
              exchange.getRequestHeaders().getFirst("Content-Encoding")
                  + " "
                  + exchange.getRequestHeaders().getFirst("X-Prometheus-Remote-Write-Version"));
          int status = statuses[Math.min(calls.getAndIncrement(), statuses.length - 1)];
          byte[] said = status == 400 ? "out of order sample".getBytes() : new byte[0];
          exchange.sendResponseHeaders(status, said.length == 0 ? -1 : said.length);
          if (said.length > 0) exchange.getResponseBody().write(said);
          exchange.close();
        });
    server.start();
    return MetricsTarget.parse(
        "prometheus-rw=http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1/write");
  }

  private static MetricsExport runOnce(MetricsTarget target, List<String> log) {
    return runOnce(target, new RemoteWriteSink(target.uri()), log);
  }

  private static MetricsExport runOnce(MetricsTarget target, MetricsSink sink, List<String> log) {
    LiveMetrics live = new LiveMetrics();
    SeriesSpec spec =
        new SeriesSpec(
            "sign", new LevelLoad.Open(8, 400), 1, 1, LiveMetricsTest.ONE, LiveMetricsTest.ONE);
    live.interval(LiveMetricsTest.sample(spec, false, 3, 1, 1_000_000, 2_000_000, 3_000_000));
    // An hour apart: the pushes are the first one, at the start, and the last one, made by
    // finish().
    MetricsExporter exporter =
        MetricsExporter.start(
            live,
            sink,
            new MetricsExporter.Setup(
                "run-1",
                target,
                Duration.ofHours(1),
                InstantSource.system(),
                new JvmCpuMeter(),
                null),
            log::add);
    return exporter.finish();
  }

  @Test
  void finish_receiverOverloadedTwice_retriedWithBackoffThenDelivered() throws Exception {
    List<byte[]> bodies = new CopyOnWriteArrayList<>();
    List<String> headers = new CopyOnWriteArrayList<>();
    List<String> log = new ArrayList<>();
    MetricsExport tally = runOnce(receiver(bodies, headers, 503, 503, 204), log);
    assertEquals(
        new MetricsExport(tally.target(), 2, 2, 2, 0, "HTTP 503", 0, 0, 0), tally.withoutCpu());
    assertTrue(
        tally.firstPushCpuSeconds() > 0
            && tally.exporterCpuSeconds() >= 0
            && tally.exporterCpuSeconds() < 10,
        tally.toString());
    assertTrue(
        tally.recordingCpuSeconds() > 0 && tally.recordingCpuSeconds() < 1,
        "the one interval's addition was timed: " + tally);
    assertEquals(4, bodies.size());
    assertEquals("snappy 0.1.0", headers.get(3));
    assertTrue(
        log.get(0).contains("failed (HTTP 503); retrying with backoff, the run goes on")
            && log.get(1).contains("arrive again"),
        log.toString());
    byte[] body = bodies.get(3);
    SnappyDecompressor snappy = new SnappyDecompressor();
    byte[] raw = new byte[SnappyDecompressor.getUncompressedLength(body, 0)];
    snappy.decompress(body, 0, body.length, raw, 0, raw.length);
    WriteRequest request = WriteRequest.parseFrom(raw);
    TimeSeries ok =
        request.getTimeseriesList().stream()
            .filter(
                t ->
                    t.getLabelsList().stream()
                            .anyMatch(l -> l.getValue().equals("pkibench_operations_total"))
                        && t.getLabelsList().stream()
                            .anyMatch(
                                l -> l.getName().equals("outcome") && l.getValue().equals("ok")))
            .findFirst()
            .orElseThrow();
    assertEquals(
        List.of("__name__", "level", "outcome", "phase", "run", "workload"),
        ok.getLabelsList().stream().map(Label::getName).toList(),
        "labels sorted by name");
    assertEquals(3.0, ok.getSamples(0).getValue());
  }

  @Test
  void finish_receiverRefusesTheData_notRetriedAndCountedLost() throws Exception {
    List<String> log = new ArrayList<>();
    MetricsExport tally =
        runOnce(receiver(new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>(), 400), log);
    assertEquals(
        new MetricsExport(tally.target(), 2, 0, 0, 2, "HTTP 400: out of order sample", 0, 0, 0),
        tally.withoutCpu());
    assertTrue(
        MetricsExporter.summary(tally)
            .startsWith("metrics: 2 of 2 pushes to prometheus-rw=http://127.0.0.1:"),
        MetricsExporter.summary(tally));
  }

  @Test
  void finish_nothingListens_retriedBoundedTimesAndCountedLost() throws Exception {
    int port = io.pkibench.testing.ReservedPorts.one();
    long start = System.nanoTime();
    MetricsExport tally =
        runOnce(
            MetricsTarget.parse("prometheus-rw=http://127.0.0.1:" + port + "/api/v1/write"),
            new ArrayList<>());
    assertEquals(
        new MetricsExport(
            "prometheus-rw=http://127.0.0.1:" + port + "/api/v1/write",
            2,
            0,
            2 * MetricsExporter.RETRIES,
            2,
            "connection refused",
            0,
            0,
            0),
        tally.withoutCpu());
    assertTrue(
        System.nanoTime() - start < Duration.ofSeconds(20).toNanos(),
        "bounded: three backoffs, each connection refused at once");
  }

  @Test
  void finish_otlpReceiverNotListening_retriedBoundedTimesAndCountedLost() throws Exception {
    int port = io.pkibench.testing.ReservedPorts.one();
    MetricsTarget target = MetricsTarget.parse("otlp=http://127.0.0.1:" + port);
    List<String> log = new ArrayList<>();
    MetricsExport tally =
        runOnce(target, new OtlpSink(target.uri(), System.currentTimeMillis()), log);
    assertEquals(2, tally.pushes());
    assertEquals(2, tally.lost());
    assertEquals(2 * MetricsExporter.RETRIES, tally.retries());
    assertEquals("connection refused", tally.lastError());
    assertTrue(
        log.get(0)
            .startsWith(
                "metrics: a push to otlp=http://127.0.0.1:"
                    + port
                    + " failed (connection refused)"),
        log.toString());
  }

  /**
   * A receiver that never ends its answer (a header line growing a byte every 2 s, each byte within
   * the per-read timeout): finish() waits its deadline for the push under way, then says so, counts
   * it lost and returns.
   */
  @Test
  void finish_receiverNeverEndsItsAnswer_returnsAtItsDeadlineCountingThePushLost()
      throws Exception {
    try (HttpPushTest.HostileReceiver receiver =
        new HttpPushTest.HostileReceiver(
            out -> {
              out.write(HttpPushTest.ascii("HTTP/1.1 200 OK\r\nX-Slow: "));
              while (true) {
                out.write('x');
                Thread.sleep(2_000);
              }
            })) {
      MetricsTarget target = MetricsTarget.parse("prometheus-rw=" + receiver.uri());
      List<String> log = new CopyOnWriteArrayList<>();
      long start = System.nanoTime();
      MetricsExport tally =
          assertTimeoutPreemptively(
              MetricsExporter.FINISH_WITHIN.multipliedBy(4),
              () -> runOnce(target, log),
              "finish() must return within its deadline of "
                  + MetricsExporter.FINISH_WITHIN.toSeconds()
                  + " s");
      long tookNanos = System.nanoTime() - start;
      assertTrue(
          tookNanos >= MetricsExporter.FINISH_WITHIN.toNanos() - Duration.ofMillis(100).toNanos(),
          "waited its deadline: " + tookNanos / 1_000_000 + " ms");
      assertEquals(0, tally.delivered());
      assertTrue(tally.pushes() >= 1 && tally.lost() == tally.pushes(), tally.toString());
      String gaveUp =
          "metrics: a push to "
              + target
              + " had not ended "
              + MetricsExporter.FINISH_WITHIN.toSeconds()
              + " s after the run; not waiting for it longer, it is counted lost";
      assertTrue(log.contains(gaveUp), log.toString());
      assertEquals(
          "a push had not ended " + MetricsExporter.FINISH_WITHIN.toSeconds() + " s after the run",
          tally.lastError());
    }
  }

  /**
   * Pushes go one after another over one kept-alive connection, refusals too (their bodies are read
   * to the end), so a push every few seconds costs no TCP or TLS setup; a receiver that closes the
   * connection gets a new one.
   */
  @Test
  void post_fivePushesWithARefusalBetween_oneConnectionKeptAlive() throws Exception {
    List<Integer> clientPorts = new CopyOnWriteArrayList<>();
    List<String> bodies = new CopyOnWriteArrayList<>();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    AtomicInteger calls = new AtomicInteger();
    server.createContext(
        "/api/v1/write",
        exchange -> {
          bodies.add(Arrays.toString(exchange.getRequestBody().readAllBytes()));
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
        push.post(
            uri, Map.of("Content-Type", "application/x-protobuf"), new byte[] {1, 2, 3, 4}, 3);
        outcomes.add("ok");
      } catch (MetricsSink.PushException e) {
        outcomes.add(e.getMessage() + (e.retryable() ? " (retry)" : ""));
      }
    }
    assertEquals(List.of("ok", "ok", "HTTP 400: out of order sample", "ok", "ok", "ok"), outcomes);
    assertEquals(
        Collections.nCopies(6, "[1, 2, 3]"),
        bodies,
        "the first 3 bytes of the 4-byte buffer, each time");
    assertEquals(
        1,
        clientPorts.subList(0, 5).stream().distinct().count(),
        "the first five on one connection: " + clientPorts);
    assertTrue(
        !clientPorts.get(5).equals(clientPorts.get(4)),
        "after the receiver's Connection: close, a new one: " + clientPorts);
  }

  /** Each push's outcome, "ok" or the refusal's message (with "(retry)" where it is retried). */
  private static List<String> pushes(HttpPush push, URI uri, int count) {
    List<String> outcomes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      try {
        push.post(uri, Map.of("Content-Type", "application/x-protobuf"), new byte[] {1, 2, 3}, 3);
        outcomes.add("ok");
      } catch (MetricsSink.PushException e) {
        outcomes.add(e.getMessage() + (e.retryable() ? " (retry)" : ""));
      }
    }
    return outcomes;
  }

  /**
   * The JDK's HTTP server answering a refusal in chunks and a redirect with a Location: the chunked
   * body is quoted and the connection carries the next push; the redirect is refused, never
   * followed (its target is never asked); a refusal holding an escape sequence and a line break is
   * quoted with their codes, not as they are.
   */
  @Test
  void post_chunkedRefusalThenARedirect_quotedRefusedAndNeverFollowed() throws Exception {
    List<Integer> clientPorts = new CopyOnWriteArrayList<>();
    AtomicInteger elsewhere = new AtomicInteger();
    AtomicInteger calls = new AtomicInteger();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/elsewhere",
        exchange -> {
          elsewhere.incrementAndGet();
          exchange.sendResponseHeaders(204, -1);
          exchange.close();
        });
    server.createContext(
        "/api/v1/write",
        exchange -> {
          exchange.getRequestBody().readAllBytes();
          clientPorts.add(exchange.getRemoteAddress().getPort());
          switch (calls.incrementAndGet()) {
            case 2 -> {
              exchange.sendResponseHeaders(400, 0); // 0: chunked
              try (var body = exchange.getResponseBody()) {
                body.write("out of order ".getBytes());
                body.flush();
                body.write("sample".getBytes());
              }
            }
            case 3 -> {
              exchange.getResponseHeaders().add("Location", "/elsewhere");
              exchange.sendResponseHeaders(307, -1);
            }
            case 5 -> {
              byte[] said = "bad\u001b[2J\nINFO forged line".getBytes();
              exchange.sendResponseHeaders(400, said.length);
              exchange.getResponseBody().write(said);
            }
            default -> exchange.sendResponseHeaders(204, -1);
          }
          exchange.close();
        });
    server.start();
    URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/api/v1/write");
    try (HttpPush push = new HttpPush()) {
      assertEquals(
          List.of(
              "ok",
              "HTTP 400: out of order sample",
              "HTTP 307",
              "ok",
              "HTTP 400: bad\\x1b[2J\\x0aINFO forged line"),
          pushes(push, uri, 5));
    }
    assertEquals(0, elsewhere.get(), "the redirect's target was never asked");
    assertEquals(
        1, clientPorts.stream().distinct().count(), "one connection throughout: " + clientPorts);
  }

  /**
   * A receiver that closes a kept-alive connection while it is idle (as servers do after their idle
   * timeout), without saying so: the next push goes once more on a new connection and arrives; a
   * receiver that closes every connection before answering is counted a failure, retried by the
   * exporter, not looped on here.
   */
  @Test
  void post_idleConnectionClosedByReceiver_sentAgainOnANewOne() throws Exception {
    try (ServerSocket listening = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      List<String> requests = new CopyOnWriteArrayList<>();
      Thread receiver =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try {
                      for (int connection = 0; connection < 3; connection++) {
                        try (var s = listening.accept()) {
                          var in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
                          String line;
                          int length = 0;
                          while (!(line = readLine(in)).isEmpty())
                            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:"))
                              length = Integer.parseInt(line.substring(15).trim());
                          in.readFully(new byte[length]);
                          requests.add("connection " + connection);
                          if (connection == 2) continue; // closes before answering
                          s.getOutputStream().write("HTTP/1.1 204 No Content\r\n\r\n".getBytes());
                          s.getOutputStream().flush();
                          Thread.sleep(200); // then closes while the client thinks it kept alive
                        }
                      }
                    } catch (Exception e) {
                      requests.add("receiver: " + e);
                    }
                  });
      URI uri = URI.create("http://127.0.0.1:" + listening.getLocalPort() + "/api/v1/write");
      try (HttpPush push = new HttpPush()) {
        assertEquals(List.of("ok"), pushes(push, uri, 1));
        Thread.sleep(500); // the receiver has closed that connection by now
        assertEquals(List.of("ok"), pushes(push, uri, 1));
        Thread.sleep(500);
        List<String> third = pushes(push, uri, 1);
        assertEquals(1, third.size());
        assertTrue(
            third.get(0).endsWith("(retry)"),
            "closed before any answer, on a new connection too: " + third);
      }
      receiver.join(5_000);
      assertEquals(List.of("connection 0", "connection 1", "connection 2"), requests);
    }
  }

  private static String readLine(DataInputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int c; (c = in.read()) != '\n'; ) {
      if (c < 0) throw new EOFException();
      if (c != '\r') line.append((char) c);
    }
    return line.toString();
  }
}
