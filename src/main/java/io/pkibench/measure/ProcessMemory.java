package io.pkibench.measure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's resident memory from /proc, beside the CPU meters: what a server holds, read by its
 * pid.
 */
public final class ProcessMemory {
  private ProcessMemory() {}

  /**
   * VmRSS of {@code pid} and its descendants (nginx's workers), in KB; -1 when the process is gone
   * or unreadable.
   */
  public static long rssKb(long pid) {
    var handle = ProcessHandle.of(pid);
    if (handle.isEmpty()) return -1;
    long total = rssOf(pid);
    if (total < 0) return -1;
    for (ProcessHandle child : handle.get().descendants().toList())
      total += Math.max(0, rssOf(child.pid()));
    return total;
  }

  private static long rssOf(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
      return -1;
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }
}
