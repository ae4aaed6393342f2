package io.pkibench.results;

/**
 * CPU spent by what is being sized ({@code meter}: jvm, pid:N, host) during the measured
 * iterations; {@code utilisation} is over all its cores (1.0 = every core busy); null when no CPU
 * was measured.
 */
public record Cpu(double seconds, double utilisation, Double opsPerCpuSecond, String meter) {

  public static Cpu of(long cpuNanos, long wallNanos, long succeeded, int cores, String meter) {
    double seconds = cpuNanos / 1e9;
    double utilisation = wallNanos == 0 ? 0 : cpuNanos / ((double) wallNanos * cores);
    return new Cpu(seconds, utilisation, cpuNanos == 0 ? null : succeeded / seconds, meter);
  }
}
