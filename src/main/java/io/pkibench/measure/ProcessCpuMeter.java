package io.pkibench.measure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time of another process (a reference server) from {@code /proc/PID/stat}: utime + stime. */
public final class ProcessCpuMeter implements CpuMeter {
  // USER_HZ is 100 on every Linux ABI the JDK runs on; /proc reports in these ticks.
  static final long NANOS_PER_TICK = 10_000_000L;
  private final long pid;
  private final Path stat;

  public ProcessCpuMeter(long pid) {
    this.pid = pid;
    this.stat = Path.of("/proc", Long.toString(pid), "stat");
    if (!Files.isReadable(stat)) {
      throw new IllegalArgumentException(
          "--cpu pid:"
              + pid
              + ": no such process ("
              + stat
              + " unreadable); give the pid of a running server");
    }
  }

  @Override
  public long cpuNanos() {
    String line;
    try {
      line = Files.readString(stat);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "process " + pid + " is gone; its CPU time can no longer be read", e);
    }
    return parseStat(line) * NANOS_PER_TICK;
  }

  /**
   * utime + stime in ticks; the command name in parentheses may itself hold spaces, so split after
   * ')'.
   */
  static long parseStat(String line) {
    String[] f = line.substring(line.lastIndexOf(')') + 2).split(" ");
    // fields after the name start at field 3 (state); utime is field 14, stime field 15.
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  @Override
  public String describe() {
    return "pid:" + pid;
  }
}
