package io.pkibench.measure;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** Monotone CPU time of whatever is being sized: this JVM, another process, or the whole host. */
public interface CpuMeter {
  long cpuNanos();

  /** How the result file names this meter, e.g. {@code jvm}, {@code pid:4242}, {@code host}. */
  String describe();

  /** The CPUs the measured thing may use, the denominator of utilisation. */
  default int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  /** {@code jvm}, {@code host}, {@code pid:N}, or {@code pid:N+M+…} (several processes summed). */
  static CpuMeter of(String spec) {
    if (spec.equals("jvm")) return new JvmCpuMeter();
    if (spec.equals("host")) return new HostCpuMeter(Path.of("/proc/stat"));
    if (spec.startsWith("pid:") && spec.contains("+")) {
      try {
        List<Long> pids =
            Arrays.stream(spec.substring(4).split("\\+")).map(Long::parseLong).toList();
        for (long pid : pids)
          new ProcessCpuMeter(pid); // each must exist now: a typo fails up front
        return new ProcessGroupCpuMeter(() -> pids);
      } catch (NumberFormatException e) {
        // fall through to the message below
      }
    }
    if (spec.startsWith("pid:")) {
      try {
        return new ProcessCpuMeter(Long.parseLong(spec.substring(4)));
      } catch (NumberFormatException e) {
        // fall through to the message below
      }
    }
    throw new IllegalArgumentException(
        "'"
            + spec
            + "' is not a CPU meter; use jvm (this process), host (the whole machine), pid:N (another process) or pid:N+M (several, summed)");
  }
}
