package io.pkibench.dashboard;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * The page's process: serves the live page from the readings the measured process sends on its
 * standard input, a {@link PageMessage} a line, and ends when that input ends (the run stopped, or
 * its process died). Drawing the page, answering browsers and compiling that code costs a process
 * of its own, not the one measured. Says {@code listening URL} on its standard output once it
 * listens, and {@code cpu SECONDS} as it ends: what the page cost.
 */
public final class LivePageServer {
  private LivePageServer() {}

  /** The arguments, in order, as {@link LivePageProcess} passes them. */
  record Args(
      String runId,
      String bindHost,
      int port,
      String hostGiven,
      double plannedSeconds,
      DashboardServer.Limits limits) {
    List<String> list() {
      return List.of(
          runId,
          bindHost,
          Integer.toString(port),
          hostGiven,
          Double.toString(plannedSeconds),
          Integer.toString(limits.maxClients()),
          Long.toString(limits.exchangeWithin().toMillis()));
    }

    static Args parse(String[] a) {
      if (a.length != 7)
        throw new IllegalArgumentException(
            "the page's process takes 7 arguments from pkibench, not " + a.length);
      return new Args(
          a[0],
          a[1],
          Integer.parseInt(a[2]),
          a[3],
          Double.parseDouble(a[4]),
          new DashboardServer.Limits(
              Integer.parseInt(a[5]), Duration.ofMillis(Long.parseLong(a[6]))));
    }
  }

  public static void main(String[] args) {
    System.exit(run(args, System.in, System.out, System.err));
  }

  static int run(String[] arguments, InputStream in, PrintStream out, PrintStream err) {
    Args args;
    try {
      args = Args.parse(arguments);
    } catch (RuntimeException e) {
      err.println("pkibench page: " + e.getMessage());
      return 2;
    }
    LivePages pages = new LivePages(args.runId(), args.plannedSeconds());
    DashboardServer server;
    try {
      server =
          DashboardServer.start(
              new InetSocketAddress(InetAddress.getByName(args.bindHost()), args.port()),
              args.hostGiven(),
              pages,
              args.limits());
    } catch (IOException e) {
      err.println(e.getMessage());
      return 1;
    }
    out.println("listening " + server.url());
    out.flush();
    try (server;
        BufferedReader lines =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        PageMessage m;
        try {
          m = PageMessage.parse(line);
        } catch (IOException e) {
          // the sender is this pkibench: a line it could not have written is a defect, said once
          err.println("pkibench page: a reading it cannot read (" + e.getMessage() + ")");
          continue;
        }
        if (m.snapshot() != null) {
          pages.add(m.snapshot());
          if (m.step() != null || m.soFar() != null) pages.study(m.step(), m.soFar());
        }
        if (m.finalPage() != null) pages.freeze(m.finalPage());
      }
    } catch (IOException e) {
      err.println("pkibench page: its input failed (" + e.getMessage() + ")");
    }
    out.println(
        "cpu "
            + ManagementFactory.getPlatformMXBean(com.sun.management.OperatingSystemMXBean.class)
                    .getProcessCpuTime()
                / 1e9);
    out.flush();
    return 0;
  }
}
