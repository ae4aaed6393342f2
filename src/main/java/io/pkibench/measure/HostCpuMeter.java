package io.pkibench.measure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Busy CPU time of the whole host from the first line of {@code /proc/stat} (everything but idle
 * and iowait).
 */
public final class HostCpuMeter implements CpuMeter {
  private static final long NANOS_PER_TICK = 10_000_000L;
  private final Path stat;

  public HostCpuMeter(Path stat) {
    this.stat = stat;
  }

  @Override
  public long cpuNanos() {
    try (var lines = Files.lines(stat)) {
      return busyTicks(lines.findFirst().orElseThrow()) * NANOS_PER_TICK;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + stat, e);
    }
  }

  /**
   * user nice system idle iowait irq softirq steal ...: busy = all but idle (4th) and iowait (5th).
   */
  static long busyTicks(String cpuLine) {
    String[] f = cpuLine.trim().split("\\s+");
    long busy = 0;
    for (int i = 1; i <= Math.min(8, f.length - 1); i++) {
      if (i != 4 && i != 5) busy += Long.parseLong(f[i]);
    }
    return busy;
  }

  @Override
  public String describe() {
    return "host";
  }
}
