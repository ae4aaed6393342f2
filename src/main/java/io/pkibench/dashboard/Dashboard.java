package io.pkibench.dashboard;

import io.pkibench.measure.CpuMeter;
import io.pkibench.metrics.LiveMetrics;
import io.pkibench.metrics.MetricsSnapshot;
import io.pkibench.results.RunResult;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.InstantSource;
import java.util.function.Consumer;

/**
 * A run's live page: a thread of its own reads the totals {@link LiveMetrics} already keeps (its
 * {@link LiveMetrics#peek}, once a second: nothing new on the engine's side) and sends them to the
 * page's own process ({@link LivePageServer}), which keeps the history, draws the page and answers
 * the browsers: none of that, nor the compiling of its code, is the measured process's CPU. At the
 * end {@link #freeze} puts the saved report in its place, so the page a browser reloads into is the
 * very one {@code --html} writes.
 */
public final class Dashboard implements AutoCloseable {
  /** How often the totals are read: the page's resolution. */
  static final Duration READ_EVERY = Duration.ofSeconds(1);

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
  private final LivePageProcess page;
  private final Thread reader;
  private volatile boolean stopping;
  private volatile boolean frozen;

  /**
   * What the dashboard costs this (the measured) process: the CPU its readings took, on whichever
   * thread made them, and since when, for the line said at the stop.
   */
  private volatile long readingCpuNanos;

  private final long startedNanos = System.nanoTime();

  /** The study's result last sent: sent again only when the runner saved another. */
  private RunResult soFarSent;

  /** The reading's line, made again each second in the same buffer. */
  private final StringBuilder line = new StringBuilder(4096);

  private Dashboard(
      LiveMetrics metrics, Setup setup, DashboardServer.Limits limits, Consumer<String> log)
      throws IOException {
    this.metrics = metrics;
    this.setup = setup;
    this.page =
        LivePageProcess.start(
            new LivePageServer.Args(
                setup.runId(),
                setup.bind().getAddress().getHostAddress(),
                setup.bind().getPort(),
                setup.hostGiven(),
                setup.plannedSeconds(),
                limits),
            log);
    try {
      warmUp();
      read(); // the first reading, so the page has its start before the first second
    } catch (RuntimeException e) {
      page.stop(); // not left serving a run that could not start its page
      throw e;
    }
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
    log.accept(
        "dashboard: "
            + d.url()
            + " (live while the run goes on; drawn by process "
            + d.page.pid()
            + (d.page.cpus() == null ? "" : " on CPUs " + d.page.cpus() + ", off this run's")
            + ", not the measured one)");
    return d;
  }

  /**
   * Every step of a reading compiled before the run starts (about two seconds at the start, outside
   * every measured second; see {@link LiveMetrics#warmUp}): the live totals' per-second additions
   * and peek (on a scratch {@link LiveMetrics}), the CPU meter, the line, and its writing through
   * the same writers as the pipe's, to nowhere.
   */
  private void warmUp() {
    StringBuilder scratchLine = new StringBuilder(4096);
    Writer nowhere = LivePageProcess.pipeWriter(OutputStream.nullOutputStream());
    LiveMetrics.warmUp(
        LiveMetrics.WARM_UP_TIMES,
        scratch -> {
          reading(scratch, "warm-up", null, scratchLine);
          try {
            LivePageProcess.writeLine(nowhere, scratchLine);
          } catch (IOException e) {
            throw new UncheckedIOException(e); // nowhere does not fail
          }
        });
  }

  public String url() {
    return page.url();
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
    long cpuBefore = THREADS.getCurrentThreadCpuTime();
    readAndSend();
    readingCpuNanos += THREADS.getCurrentThreadCpuTime() - cpuBefore; // one writer at a time
  }

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private void readAndSend() {
    StudyView study = setup.study();
    RunResult soFar = study == null ? null : study.soFar();
    RunResult changed = soFar == soFarSent ? null : soFar;
    soFarSent = soFar;
    page.send(reading(metrics, study == null ? null : study.step(), changed, line));
  }

  /**
   * One reading of {@code totals} and the meters, as the line the page's process reads: the series
   * that moved since the last reading only, the page keeping the others' totals ({@link
   * LivePages#add}), so the line stays a few series long however many levels and steps a study has
   * been through.
   */
  private StringBuilder reading(
      LiveMetrics totals, String step, RunResult changed, StringBuilder into) {
    MetricsSnapshot snapshot =
        new MetricsSnapshot(
            setup.runId(),
            setup.clock().millis(),
            totals.peek(),
            setup.client().cpuNanos() / 1e9,
            setup.service() == null ? Double.NaN : setup.service().cpuNanos() / 1e9);
    try {
      PageMessage.readingLine(into, snapshot, step, changed);
    } catch (IOException e) {
      throw new IllegalStateException("a study's result Jackson cannot write", e);
    }
    return into;
  }

  /**
   * The run has ended: one last reading, and from now on the page is {@code finalPage} (the report,
   * as {@code --html} saves it).
   */
  public void freeze(String finalPage) {
    stopReading();
    read();
    page.sendWithin(PageMessage.end(finalPage));
    frozen = true;
  }

  private void stopReading() {
    stopping = true;
    reader.interrupt();
    try {
      reader.join(Duration.ofSeconds(2));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stays up {@code linger} after a frozen end (said on {@code log}), then stops serving and says
   * what the page's process cost.
   */
  public void stop(Consumer<String> log) {
    stopReading();
    Duration linger = setup.linger();
    if (frozen && !linger.isZero()) {
      log.accept(
          "dashboard: the final page stays at " + url() + " for " + linger.toSeconds() + " s");
      try {
        Thread.sleep(linger);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    double cpuSeconds = page.stop();
    double seconds = Math.max(1e-9, (System.nanoTime() - startedNanos) / 1e9);
    if (Double.isFinite(cpuSeconds))
      log.accept(
          String.format(
              java.util.Locale.ROOT,
              "dashboard: stopped; the page's process used %.2f CPU-seconds (not the measured process's);"
                  + " in the measured process, its readings took %.1f ms of CPU (%.2f ms a second) and the"
                  + " live totals they read %.1f ms (%.2f ms a second; the same with --metrics alone)",
              cpuSeconds,
              readingCpuNanos / 1e6,
              readingCpuNanos / 1e6 / seconds,
              metrics.recordingCpuNanos() / 1e6,
              metrics.recordingCpuNanos() / 1e6 / seconds));
  }

  @Override
  public void close() {
    stop(line -> {});
  }
}
