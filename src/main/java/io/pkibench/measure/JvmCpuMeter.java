package io.pkibench.measure;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;

/** CPU time of this JVM, all threads (workers, GC, JIT): the cost of an in-process workload. */
public final class JvmCpuMeter implements CpuMeter {
  private final OperatingSystemMXBean os =
      (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

  @Override
  public long cpuNanos() {
    return os.getProcessCpuTime();
  }

  @Override
  public String describe() {
    return "jvm";
  }
}
