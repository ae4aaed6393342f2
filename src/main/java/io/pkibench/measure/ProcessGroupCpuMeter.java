package io.pkibench.measure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * CPU time of several processes summed (a study's services, e.g. two key-server nodes), asked for
 * their pids at every reading so that a restarted service is followed. A process that has ended
 * keeps the last CPU time read from it: a node killed mid-run does not make the sum go backwards.
 */
public final class ProcessGroupCpuMeter implements CpuMeter {
  private final Supplier<List<Long>> pids;
  private final Map<Long, Long> lastNanos = new HashMap<>();
  private final int cores;

  public ProcessGroupCpuMeter(Supplier<List<Long>> pids) {
    this(pids, Runtime.getRuntime().availableProcessors());
  }

  /**
   * {@code cores}: how many CPUs the processes may run on (a study's services on their own cores),
   * utilisation's denominator.
   */
  public ProcessGroupCpuMeter(Supplier<List<Long>> pids, int cores) {
    if (cores < 1)
      throw new IllegalArgumentException("a process group runs on at least one core, not " + cores);
    this.pids = pids;
    this.cores = cores;
  }

  @Override
  public int cores() {
    return cores;
  }

  @Override
  public synchronized long cpuNanos() {
    for (long pid : pids.get()) {
      try {
        lastNanos.put(
            pid,
            ProcessCpuMeter.parseStat(
                    Files.readString(Path.of("/proc", Long.toString(pid), "stat")))
                * ProcessCpuMeter.NANOS_PER_TICK);
      } catch (IOException gone) {
        // ended: its last reading stands
      }
    }
    return lastNanos.values().stream().mapToLong(Long::longValue).sum();
  }

  @Override
  public String describe() {
    return "pid:" + pids.get().stream().map(String::valueOf).collect(Collectors.joining("+"));
  }
}
