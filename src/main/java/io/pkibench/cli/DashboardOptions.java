package io.pkibench.cli;

import io.pkibench.dashboard.Dashboard;
import io.pkibench.dashboard.StudyView;
import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.JvmCpuMeter;
import io.pkibench.metrics.LiveMetrics;
import io.pkibench.plan.Durations;
import io.pkibench.plan.Plan;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.function.Consumer;
import picocli.CommandLine.Option;

/**
 * {@code --dashboard} and {@code --dashboard-linger}: a live page in the browser while a run or a
 * study goes on, the saved report in its place at the end.
 */
final class DashboardOptions {
  @Option(
      names = "--dashboard",
      paramLabel = "[ADDRESS:]PORT",
      description =
          "serve a live page while it runs (throughput, p50/p99, errors, CPU per side, the levels so far) at"
              + " http://127.0.0.1:PORT/ (PORT 0: any free one, printed); an ADDRESS other than loopback exposes it"
              + " beyond this machine; at the end the page becomes the report --html saves")
  String dashboard;

  @Option(
      names = "--dashboard-linger",
      defaultValue = "0s",
      paramLabel = "DURATION",
      description =
          "keep --dashboard's final page up this long after the end (default: ${DEFAULT-VALUE}: it stops with the run)")
  String linger;

  /** Started by {@link #start}, stopped by {@link #stop}. */
  private Dashboard started;

  /** Adds a problem per bad value, naming the flag and the fix; {@code apart}: why not, or null. */
  void check(FlagProblems problems, String apart) {
    problems.duration("--dashboard-linger", linger, null);
    if (dashboard == null) return;
    try {
      address();
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    if (apart != null) problems.add(apart);
  }

  /** {@code existing} (--metrics'), or one of its own with --dashboard; null without either. */
  LiveMetrics listener(LiveMetrics existing) {
    return existing != null || dashboard == null ? existing : new LiveMetrics();
  }

  /**
   * Starts the page (nothing without --dashboard); {@code service}: the run's CPU meter, shown as
   * the service's CPU when it measures something other than this process; {@code plan}: for the
   * time that remains (null for a study, whose length is not known up front); {@code study}: its
   * step and table (null for a run).
   */
  void start(
      LiveMetrics live,
      String runId,
      InstantSource clock,
      CpuMeter service,
      Plan plan,
      StudyView study,
      Consumer<String> log)
      throws IOException {
    if (dashboard == null) return;
    InetSocketAddress bind = address();
    if (!bind.getAddress().isLoopbackAddress())
      log.accept(
          "dashboard: listening on "
              + bind.getAddress().getHostAddress()
              + ", not loopback: anyone who reaches this machine sees the live figures");
    started =
        Dashboard.start(
            live,
            new Dashboard.Setup(
                runId,
                bind,
                bind.getHostString(),
                Durations.parse(linger),
                plan == null ? Double.NaN : plannedSeconds(plan),
                clock,
                new JvmCpuMeter(),
                service.describe().equals("jvm") ? null : service,
                study),
            log);
  }

  /** The run has ended: the page becomes {@code report} (the --html page). */
  void freeze(String report) {
    if (started != null && report != null) started.freeze(report);
  }

  /** Lingers if asked (after a frozen end), then stops serving; idempotent. */
  void stop(Consumer<String> log) {
    if (started != null) started.stop(log);
    started = null;
  }

  /** The plan's warm-up and measured time over every level, series and workload. */
  static double plannedSeconds(Plan plan) {
    if (plan.warmup().untilSteady() || plan.measure().untilSteady()) return Double.NaN;
    Duration perLevel = plan.warmup().total().plus(plan.measure().total());
    return perLevel.toMillis()
        / 1000.0
        * plan.load().levels().size()
        * Math.max(1, plan.series())
        * plan.workloads().size();
  }

  private InetSocketAddress address() {
    int colon = dashboard.lastIndexOf(':');
    String host = colon < 0 ? "127.0.0.1" : dashboard.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
    String portText = dashboard.substring(colon + 1);
    int port;
    try {
      port = Integer.parseInt(portText);
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 0 || port > 65535)
      throw new IllegalArgumentException(
          "--dashboard "
              + dashboard
              + ": give [ADDRESS:]PORT, PORT from 0 (any free one) to 65535, e.g. --dashboard 8088");
    try {
      return new InetSocketAddress(InetAddress.getByName(host), port);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException(
          "--dashboard " + dashboard + ": no such address " + host + ", e.g. 127.0.0.1:8088");
    }
  }
}
