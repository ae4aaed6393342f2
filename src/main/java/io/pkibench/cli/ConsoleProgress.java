package io.pkibench.cli;

import io.pkibench.engine.IterationOutcome;
import io.pkibench.engine.ProgressListener;
import io.pkibench.engine.ProgressSnapshot;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.text.Units;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The live view on stderr: on a terminal one status line rewritten each second, elsewhere plain
 * lines; a "slowest operation so far" line whenever a workload's maximum latency is beaten (an
 * outlier seen as it happens, not only in the table's max).
 */
final class ConsoleProgress implements ProgressListener {
  private final PrintWriter err;
  private final boolean rewrite;
  private final boolean quiet;
  private final Map<String, Long> slowestNanos = new HashMap<>();
  private boolean statusShown;

  ConsoleProgress(PrintWriter err, boolean rewrite, boolean quiet) {
    this.err = err;
    this.rewrite = rewrite;
    this.quiet = quiet;
  }

  @Override
  public synchronized void tick(ProgressSnapshot s) {
    if (quiet) return;
    Long record = slowestNanos.get(s.workload());
    if (s.maxNanos() > 0 && (record == null || s.maxNanos() > record)) {
      slowestNanos.put(s.workload(), s.maxNanos());
      if (record != null) {
        line(
            "slowest operation so far: "
                + s.workload()
                + " c="
                + s.concurrency()
                + " took "
                + Units.nanos(s.maxNanos())
                + " (the slowest before it: "
                + Units.nanos(record)
                + ")");
      }
    }
    String status =
        String.format(
            Locale.ROOT,
            "%s c=%d series %d/%d %s %d/%d | ops %d ok %d err %d | %s ops/s | avg %s p99 %s max %s",
            s.workload(),
            s.concurrency(),
            s.series(),
            s.seriesCount(),
            s.warmup() ? "warmup" : "measure",
            s.iteration(),
            s.iterationCount(),
            s.started(),
            s.succeeded(),
            s.failed(),
            Units.rate(s.recentOpsPerSecond()),
            Units.nanos(s.meanNanos()),
            Units.nanos(s.p99Nanos()),
            Units.nanos(s.maxNanos()));
    if (!s.liveCounts().isEmpty()) {
      StringBuilder live = new StringBuilder(status).append(" |");
      s.liveCounts()
          .forEach((name, n) -> live.append(String.format(Locale.ROOT, " %s %,d", name, n)));
      status = live.toString();
    }
    if (rewrite) {
      err.print("\r\033[K" + status);
      statusShown = true;
    } else {
      err.println(status);
    }
    err.flush();
  }

  @Override
  public synchronized void iterationFinished(SeriesSpec spec, IterationOutcome o) {
    if (quiet) return;
    line(
        String.format(
            Locale.ROOT,
            "%s c=%d series %d %s %d: %s ops/s, p99 %s, %d failed",
            spec.workload(),
            spec.concurrency(),
            o.series(),
            o.warmup() ? "warmup" : "measure",
            o.index(),
            Units.rate(o.opsPerSecond()),
            Units.nanos(o.latency().getValueAtPercentile(99)),
            o.failed()));
  }

  /** A line that stays (not overwritten by the next status). */
  synchronized void line(String text) {
    if (statusShown) {
      err.print("\r\033[K");
      statusShown = false;
    }
    err.println(text);
    err.flush();
  }

  synchronized void done() {
    if (statusShown) err.print("\r\033[K");
    statusShown = false;
    err.flush();
  }
}
