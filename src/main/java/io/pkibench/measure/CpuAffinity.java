package io.pkibench.measure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Which cores a process may run on, read from {@code /proc/PID/status} and set with util-linux's
 * {@code taskset} (on every Debian machine: util-linux is essential). A study gives its services
 * their own cores and the load generator the others, so that a service can reach 100% of its cores
 * while the client runs beside it, as the original studies' separate machines did.
 */
public final class CpuAffinity {
  private CpuAffinity() {}

  /** The CPUs {@code pid} may run on now. */
  public static CpuSet of(long pid) throws IOException {
    for (String line :
        Files.readAllLines(
            Path.of("/proc", Long.toString(pid), "status"), StandardCharsets.UTF_8)) {
      if (line.startsWith("Cpus_allowed_list:"))
        return CpuSet.parse(line.substring("Cpus_allowed_list:".length()));
    }
    throw new IOException(
        "/proc/"
            + pid
            + "/status has no Cpus_allowed_list line; CPU affinity is not readable on this system");
  }

  /** The CPUs this process may run on: what can be split between services and client. */
  public static CpuSet ofThisProcess() throws IOException {
    return of(ProcessHandle.current().pid());
  }

  /** The words that start a command on {@code cpus}: {@code taskset -c LIST}. */
  public static List<String> launchPrefix(CpuSet cpus) {
    return List.of("taskset", "-c", cpus.toString());
  }

  /**
   * Moves every thread of {@code pid} (its GC and JIT threads too) onto {@code cpus}; threads and
   * processes it starts later inherit that.
   */
  public static void pin(long pid, CpuSet cpus) throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(List.of("taskset", "-a", "-c", "-p", cpus.toString(), Long.toString(pid)));
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new IOException(
          "cannot run taskset to give the services their own cores ("
              + e.getMessage()
              + "); install util-linux, or pass --service-cpus shared",
          e);
    }
    String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("taskset did not finish within 10 s");
    }
    if (p.exitValue() != 0)
      throw new IOException("taskset could not move pid " + pid + " to CPUs " + cpus + ": " + said);
  }
}
