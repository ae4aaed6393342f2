package io.pkibench.dashboard;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pkibench.measure.CpuMeter;
import io.pkibench.metrics.LiveMetrics;
import io.pkibench.metrics.MetricsSnapshot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.function.Consumer;

/**
 * A run's live page: a thread of its own reads the totals {@link LiveMetrics} already keeps (its
 * {@link LiveMetrics#peek}, once a second: nothing new on the engine's side), and the server
 * renders the page from the latest of them per request. At the end {@link #freeze} puts the saved
 * report in its place, so the page a browser reloads into is the very one {@code --html} writes.
 */
public final class Dashboard implements AutoCloseable {
  /** How often the totals are read: the page's resolution. */
  static final Duration READ_EVERY = Duration.ofSeconds(1);

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Where to listen ({@code hostGiven} as the user wrote it), how long to stay after the end, and
   * what to read; {@code service}: null when the service's CPU is this process's; {@code study}:
   * the study's step and table, null for a run.
   */
  public record Setup(
      String runId,
      InetSocketAddress bind,
      String hostGiven,
      Duration linger,
      double plannedSeconds,
      InstantSource clock,
      CpuMeter client,
      CpuMeter service,
      StudyView study) {}

  private final LiveMetrics metrics;
  private final Setup setup;
  private final LiveHistory history;
  private final Thread reader;
  private final DashboardServer server;
  private volatile byte[] frozen;
  private volatile boolean stopping;

  /**
   * The latest reading's rendering, made when a client first asks for it and then served as is
   * until the next reading: however many clients poll, the charts are drawn at most once a second,
   * and not at all while nobody looks.
   */
  private record Rendered(long sequence, boolean ended, String body, byte[] json) {}

  private volatile Rendered rendered;

  private Dashboard(
      LiveMetrics metrics, Setup setup, DashboardServer.Limits limits, Consumer<String> log)
      throws IOException {
    this.metrics = metrics;
    this.setup = setup;
    this.history = new LiveHistory(setup.runId(), setup.plannedSeconds());
    read(); // the first reading, so the page has its start before the first second
    this.server =
        DashboardServer.start(
            setup.bind(),
            setup.hostGiven(),
            new DashboardServer.Pages() {
              @Override
              public byte[] page() {
                byte[] done = frozen;
                if (done != null) return done;
                LiveHistory.View view = history.view();
                return LivePage.page(view, rendered(view).body()).getBytes(StandardCharsets.UTF_8);
              }

              @Override
              public byte[] live() {
                return liveJson();
              }
            },
            limits);
    this.reader =
        Thread.ofPlatform().daemon().name("pkibench-dashboard-reader").unstarted(this::readLoop);
    reader.start();
  }

  /** Starts reading and serving; says the page's address on {@code log}. */
  public static Dashboard start(LiveMetrics metrics, Setup setup, Consumer<String> log)
      throws IOException {
    return start(metrics, setup, DashboardServer.Limits.DEFAULT, log);
  }

  static Dashboard start(
      LiveMetrics metrics, Setup setup, DashboardServer.Limits limits, Consumer<String> log)
      throws IOException {
    Dashboard d = new Dashboard(metrics, setup, limits, log);
    log.accept("dashboard: " + d.url() + " (live while the run goes on)");
    return d;
  }

  public String url() {
    return server.url();
  }

  public int port() {
    return server.port();
  }

  private void readLoop() {
    long next = System.nanoTime();
    while (!stopping) {
      next += READ_EVERY.toNanos();
      long waitNanos = next - System.nanoTime();
      if (waitNanos > 0) {
        try {
          Thread.sleep(Duration.ofNanos(waitNanos));
        } catch (InterruptedException e) {
          return;
        }
      }
      if (!stopping) read();
    }
  }

  private synchronized void read() {
    history.add(
        new MetricsSnapshot(
            setup.runId(),
            setup.clock().millis(),
            metrics.peek(),
            setup.client().cpuNanos() / 1e9,
            setup.service() == null ? Double.NaN : setup.service().cpuNanos() / 1e9));
  }

  /** The live part and the latest second's figures, for the page's script and for tests. */
  byte[] liveJson() {
    return rendered(history.view()).json();
  }

  /** The rendering of {@code view}: the cached one when it is of the same reading. */
  private Rendered rendered(LiveHistory.View view) {
    boolean ended = frozen != null;
    Rendered r = rendered;
    if (r != null && r.sequence() == view.sequence() && r.ended() == ended) return r;
    LivePage.Study study = LivePage.Study.of(setup.study());
    String body = LivePage.body(view, study);
    r = new Rendered(view.sequence(), ended, body, json(view, study, body, ended));
    rendered = r; // two clients at once may both draw it: the same bytes, the last one kept
    return r;
  }

  private static byte[] json(
      LiveHistory.View view, LivePage.Study study, String body, boolean ended) {
    ObjectNode o = JSON.createObjectNode();
    o.put("sequence", view.sequence());
    o.put("ended", ended);
    o.put("status", LivePage.status(view, study));
    List<LiveHistory.Point> points = view.points();
    if (!points.isEmpty()) {
      LiveHistory.Point last = points.get(points.size() - 1);
      o.put("opsPerSecond", last.opsPerSecond());
      o.put("errorsPerSecond", last.errorsPerSecond());
      o.put("p50Millis", last.p50Millis());
      o.put("p99Millis", last.p99Millis());
      // left out where not read (a run's service is this process), rather than written NaN
      if (Double.isFinite(last.clientCpuCores())) o.put("clientCpuCores", last.clientCpuCores());
      if (Double.isFinite(last.serviceCpuCores())) o.put("serviceCpuCores", last.serviceCpuCores());
    }
    o.put("rows", view.rows().size());
    o.put("html", body);
    try {
      return JSON.writeValueAsBytes(o);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The run has ended: one last reading, and from now on the page is {@code finalPage} (the report,
   * as {@code --html} saves it).
   */
  public void freeze(String finalPage) {
    stopping = true;
    reader.interrupt();
    read();
    frozen = finalPage.getBytes(StandardCharsets.UTF_8);
  }

  /** Stays up {@code linger} after a frozen end (said on {@code log}), then stops serving. */
  public void stop(Consumer<String> log) {
    stopping = true;
    reader.interrupt();
    Duration linger = setup.linger();
    if (frozen != null && !linger.isZero()) {
      log.accept(
          "dashboard: the final page stays at " + url() + " for " + linger.toSeconds() + " s");
      try {
        Thread.sleep(linger);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    server.close();
  }

  @Override
  public void close() {
    stop(line -> {});
  }
}
