package io.pkibench.measure;

/** Monotone CPU time of whatever is being sized: this JVM, another process, or the whole host. */
public interface CpuMeter {
  long cpuNanos();

  /** How the result file names this meter, e.g. {@code jvm}, {@code pid:4242}, {@code host}. */
  String describe();

  /** The CPUs the measured thing may use, the denominator of utilisation. */
  default int cores() {
    return Runtime.getRuntime().availableProcessors();
  }

  /** {@code jvm}, {@code host} or {@code pid:N}. */
  static CpuMeter of(String spec) {
    if (spec.equals("jvm")) return new JvmCpuMeter();
    if (spec.equals("host")) return new HostCpuMeter(java.nio.file.Path.of("/proc/stat"));
    if (spec.startsWith("pid:")) {
      try {
        return new ProcessCpuMeter(Long.parseLong(spec.substring(4)));
      } catch (NumberFormatException e) {
        // fall through to the message below
      }
    }
    throw new IllegalArgumentException(
        "'" + spec + "' is not a CPU meter; use jvm (this process), host (the whole machine) or pid:N (another process)");
  }
}
