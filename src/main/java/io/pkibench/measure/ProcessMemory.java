package io.pkibench.measure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/**
 * A process's resident memory from /proc, beside the CPU meters: what a server holds, read by its
 * pid.
 */
public final class ProcessMemory {
  private ProcessMemory() {}

  /**
   * VmRSS of {@code pid} and its descendants (nginx's workers), in KB. A process that is gone (or a
   * zombie, which has no VmRSS) has no memory figure: that is an error naming the pid, never a
   * negative number that would flow into a growth or per-connection figure.
   *
   * @throws IllegalStateException when {@code pid}'s memory cannot be read
   */
  public static long rssKb(long pid) {
    var handle = ProcessHandle.of(pid);
    OptionalLong own = handle.isPresent() ? rssOf(pid) : OptionalLong.empty();
    if (own.isEmpty())
      throw new IllegalStateException(
          "process " + pid + " is gone or unreadable in /proc: its memory is unknown");
    long total = own.getAsLong();
    // a descendant ending between the listing and the read holds nothing any more
    for (ProcessHandle child : handle.get().descendants().toList())
      total += rssOf(child.pid()).orElse(0);
    return total;
  }

  private static OptionalLong rssOf(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:"))
          return OptionalLong.of(Long.parseLong(line.replaceAll("[^0-9]", "")));
      }
      return OptionalLong.empty();
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }
}
