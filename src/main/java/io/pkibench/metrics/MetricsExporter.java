package io.pkibench.metrics;

import io.pkibench.measure.CpuMeter;
import io.pkibench.results.MetricsExport;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Pushes a run's live figures from a thread of its own: once at the start, every {@code interval},
 * and once more when closed so the final counters are exact. A push that fails is retried with a
 * doubling backoff ({@link #RETRIES} times, then counted lost); the next push carries the running
 * totals, so a lost push costs only that moment's gauges. Nothing here ever waits on the engine or
 * makes it wait: the figures come from {@link LiveMetrics}' snapshots. The run's end waits for the
 * last push at most {@link #FINISH_WITHIN}: a receiver that holds it longer has it counted lost,
 * and the run ends regardless.
 */
public final class MetricsExporter implements AutoCloseable {
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(5);
  static final int RETRIES = 3;
  static final Duration FIRST_BACKOFF = Duration.ofMillis(250);

  /**
   * How long {@link #finish()} waits for the pushing to end: a push (each ends within its own
   * deadline) and a retry's; a receiver that is up answers in milliseconds, one that is not there
   * refuses the connection at once.
   */
  static final Duration FINISH_WITHIN = Duration.ofSeconds(10);

  /**
   * What to push, where, how often, and the CPU meters read at each push (service: null when it is
   * this process).
   */
  public record Setup(
      String runId,
      MetricsTarget target,
      Duration interval,
      InstantSource clock,
      CpuMeter client,
      CpuMeter service) {}

  private final LiveMetrics metrics;
  private final MetricsSink sink;
  private final Setup setup;
  private final Consumer<String> log;
  private final Thread thread;

  /**
   * Guards the counters below, written by the exporter thread and read by finish(), which may stop
   * waiting for it.
   */
  private final Object lock = new Object();

  private boolean closing;
  private MetricsExport tally;
  private long pushes, delivered, retries, lost;
  private String lastError;
  private long cpuNanos, firstPushCpuNanos;
  private boolean firstPushEnded;

  /**
   * Set when finish() stopped waiting: the thread makes no more pushes, retries or log lines, and
   * closes the sink.
   */
  private volatile boolean abandoned;

  // The exporter thread's own.
  private boolean failing;
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private MetricsExporter(
      LiveMetrics metrics, MetricsSink sink, Setup setup, Consumer<String> log) {
    this.metrics = metrics;
    this.sink = sink;
    this.setup = setup;
    this.log = log;
    this.thread = Thread.ofPlatform().daemon().name("pkibench-metrics").unstarted(this::loop);
  }

  /**
   * Starts pushing {@code metrics} to {@code sink}; {@code log} hears when pushes start failing and
   * when they recover.
   */
  public static MetricsExporter start(
      LiveMetrics metrics, MetricsSink sink, Setup setup, Consumer<String> log) {
    MetricsExporter exporter = new MetricsExporter(metrics, sink, setup, log);
    exporter.thread.start();
    return exporter;
  }

  private void loop() {
    try {
      // One push at once, before the run's first interval: the HTTP client, protobuf and the sender
      // load and set up during
      // the warm-up rather than inside a measured iteration, and a receiver that is not there is
      // said before the run.
      pushWithRetries();
      synchronized (lock) {
        firstPushCpuNanos = THREADS.getCurrentThreadCpuTime();
        firstPushEnded = true;
      }
      while (true) {
        synchronized (lock) {
          long until = System.nanoTime() + setup.interval().toNanos();
          long left;
          while (!closing && (left = until - System.nanoTime()) > 0) {
            try {
              lock.wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
              closing = true;
            }
          }
          if (closing) break;
        }
        pushWithRetries();
      }
      pushWithRetries(); // the last one, after the run's last interval: exact totals
      synchronized (lock) {
        cpuNanos = THREADS.getCurrentThreadCpuTime() - firstPushCpuNanos;
      }
    } finally {
      // Here rather than in finish(): a push finish() stopped waiting for may still be using the
      // sink.
      sink.close();
    }
  }

  private void pushWithRetries() {
    if (abandoned) return;
    MetricsSnapshot snapshot =
        new MetricsSnapshot(
            setup.runId(),
            setup.clock().millis(),
            metrics.snapshot(),
            setup.client().cpuNanos() / 1e9,
            setup.service() == null ? Double.NaN : setup.service().cpuNanos() / 1e9);
    synchronized (lock) {
      pushes++;
    }
    long backoffMillis = FIRST_BACKOFF.toMillis();
    for (int attempt = 0; ; attempt++) {
      try {
        sink.push(snapshot);
        synchronized (lock) {
          delivered++;
        }
        if (failing) say("metrics: pushes to " + setup.target() + " arrive again");
        failing = false;
        return;
      } catch (MetricsSink.PushException e) {
        synchronized (lock) {
          lastError = e.getMessage();
        }
        if (!failing) {
          say(
              "metrics: a push to "
                  + setup.target()
                  + " failed ("
                  + e.getMessage()
                  + ")"
                  + (e.retryable() ? "; retrying with backoff" : "")
                  + ", the run goes on; the count is reported at the end");
        }
        failing = true;
        if (!e.retryable() || attempt >= RETRIES || abandoned) {
          synchronized (lock) {
            lost++;
          }
          return;
        }
        synchronized (lock) {
          retries++;
        }
        try {
          Thread.sleep(backoffMillis);
        } catch (InterruptedException interrupted) {
          synchronized (lock) {
            lost++;
          }
          return;
        }
        backoffMillis *= 2;
      }
    }
  }

  /**
   * A line for the terminal, unless finish() has stopped waiting: the run's output has moved on by
   * then.
   */
  private void say(String line) {
    if (!abandoned) log.accept(line);
  }

  /**
   * Makes the last push (retried as any other) and returns the account of every push; idempotent.
   * Waits at most {@link #FINISH_WITHIN} for the pushing to end; a push still under way then is
   * said on the terminal and counted lost.
   */
  public MetricsExport finish() {
    synchronized (lock) {
      if (tally != null) return tally;
      closing = true;
      lock.notifyAll();
    }
    boolean ended = false, interrupted = false;
    try {
      ended = thread.join(FINISH_WITHIN);
    } catch (InterruptedException e) {
      interrupted = true;
      Thread.currentThread().interrupt();
    }
    if (!ended) {
      abandoned = true;
      thread.interrupt(); // a backoff's sleep ends now; a push under way ends at its own deadline,
      // then the sink is closed
      log.accept(
          interrupted
              ? "metrics: stopped waiting for a push to "
                  + setup.target()
                  + " (interrupted); it is counted lost"
              : "metrics: a push to "
                  + setup.target()
                  + " had not ended "
                  + FINISH_WITHIN.toSeconds()
                  + " s after the run; not waiting for it longer, it is counted lost");
    }
    synchronized (lock) {
      if (!ended) {
        lost = pushes - delivered;
        lastError =
            interrupted
                ? "interrupted while waiting for a push"
                : "a push had not ended " + FINISH_WITHIN.toSeconds() + " s after the run";
        long threadCpuNanos = Math.max(0, THREADS.getThreadCpuTime(thread.threadId()));
        if (firstPushEnded) {
          cpuNanos = Math.max(0, threadCpuNanos - firstPushCpuNanos);
        } else {
          firstPushCpuNanos = threadCpuNanos;
          cpuNanos = 0;
        }
      }
      tally =
          new MetricsExport(
              setup.target().toString(),
              pushes,
              delivered,
              retries,
              lost,
              lastError,
              cpuNanos / 1e9,
              firstPushCpuNanos / 1e9,
              metrics.recordingCpuNanos() / 1e9);
      return tally;
    }
  }

  /**
   * One line for the terminal: how many pushes arrived, and where the figures are safe regardless.
   */
  public static String summary(MetricsExport m) {
    String cpu =
        String.format(
            Locale.ROOT,
            "; the pushing thread used %.0f ms of CPU (and %.0f ms for its first push, before the run),"
                + " the per-second additions %.0f ms",
            m.exporterCpuSeconds() * 1e3,
            m.firstPushCpuSeconds() * 1e3,
            m.recordingCpuSeconds() * 1e3);
    if (m.lost() == 0) {
      return "metrics: "
          + m.delivered()
          + " push"
          + (m.delivered() == 1 ? "" : "es")
          + " to "
          + m.target()
          + ", all delivered"
          + (m.retries() > 0 ? " (" + m.retries() + " retried)" : "")
          + cpu;
    }
    return "metrics: "
        + m.lost()
        + " of "
        + m.pushes()
        + " pushes to "
        + m.target()
        + " lost after retries (last: "
        + m.lastError()
        + "); the result file holds every figure regardless"
        + cpu;
  }

  @Override
  public void close() {
    finish();
  }
}
