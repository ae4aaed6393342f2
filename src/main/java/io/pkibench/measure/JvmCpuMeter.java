package io.pkibench.measure;

import java.lang.management.ManagementFactory;

/** CPU time of this JVM, all threads (workers, GC, JIT): the cost of an in-process workload. */
public final class JvmCpuMeter implements CpuMeter {
  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  @Override
  public long cpuNanos() {
    return os.getProcessCpuTime();
  }

  @Override
  public String describe() {
    return "jvm";
  }
}
