package io.pkibench.study;

import io.pkibench.measure.CpuAffinity;
import io.pkibench.measure.CpuSet;
import java.io.IOException;

/**
 * This JVM, the load generator, moved onto the client's cores for the study (the series it forks
 * inherit them), and back onto the cores it had when the study ends: a study run inside a
 * longer-lived JVM leaves it as it found it.
 */
record ClientPinning(CpuSet before) implements AutoCloseable {
  static ClientPinning to(CpuSplit cpus) throws IOException, InterruptedException {
    if (cpus.isShared()) return new ClientPinning(null);
    CpuSet before = CpuAffinity.ofThisProcess();
    CpuAffinity.pin(ProcessHandle.current().pid(), cpus.client());
    return new ClientPinning(before);
  }

  @Override
  public void close() throws IOException, InterruptedException {
    if (before != null) CpuAffinity.pin(ProcessHandle.current().pid(), before);
  }
}
