package io.pkibench.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The host meter held from both sides against /proc/stat read here, by this test's own parser, over
 * the same interval. The machine is shared, so the burnt CPU is no reference for the whole host:
 * what the kernel counted between two readings is. The meter's readings are bracketed by the test's
 * (outer: read before and after the meter's; inner: read after and before), and counters only grow,
 * so the meter's difference lies between the inner and the outer difference, give or take a tick
 * per CPU for the per-CPU counters being summed while they move.
 */
class HostCpuMeterProcTest {

  @Test
  void hostMeter_overABusyInterval_readsBetweenTheProcStatReadingsThatBracketIt() throws Exception {
    long nanosPerTick = 1_000_000_000L / clockTicksPerSecond();
    long slackNanos = 2L * Runtime.getRuntime().availableProcessors() * nanosPerTick;
    CpuMeter meter = CpuMeter.of("host");
    CpuMeterTest.burnThreadCpu(100_000_000L); // the loop compiled before it is measured

    long outerBefore = busyTicksFromProcStat();
    long meterBefore = meter.cpuNanos();
    long innerBefore = busyTicksFromProcStat();
    long burnt = CpuMeterTest.burnThreadCpu(400_000_000L);
    long innerAfter = busyTicksFromProcStat();
    long meterAfter = meter.cpuNanos();
    long outerAfter = busyTicksFromProcStat();

    long read = meterAfter - meterBefore;
    long inner = (innerAfter - innerBefore) * nanosPerTick;
    long outer = (outerAfter - outerBefore) * nanosPerTick;
    String seen =
        String.format(
            Locale.ROOT,
            "host meter read %d ms; /proc/stat counted %d ms (inner) to %d ms (outer); this thread"
                + " burnt %d ms",
            read / 1_000_000,
            inner / 1_000_000,
            outer / 1_000_000,
            burnt / 1_000_000);
    System.out.println(seen);
    assertTrue(inner >= 0.85 * burnt, "the test's own reading saw the busy loop: " + seen);
    assertTrue(read >= inner - slackNanos, "the meter misses busy time: " + seen);
    assertTrue(read <= outer + slackNanos, "the meter counts more than the kernel did: " + seen);
    assertEquals("host", meter.describe());
  }

  /**
   * Busy ticks of the whole host, parsed here independently of the meter: user, nice, system, irq,
   * softirq and steal of the aggregate {@code cpu} line (idle and iowait are not busy; guest time
   * is already inside user and nice).
   */
  static long busyTicksFromProcStat() throws IOException {
    String first = Files.readAllLines(Path.of("/proc/stat")).get(0);
    String[] fields = first.trim().split(" +");
    assertEquals("cpu", fields[0], "the first line of /proc/stat is the aggregate: " + first);
    long user = Long.parseLong(fields[1]);
    long nice = Long.parseLong(fields[2]);
    long system = Long.parseLong(fields[3]);
    long irq = Long.parseLong(fields[6]);
    long softirq = Long.parseLong(fields[7]);
    long steal = Long.parseLong(fields[8]);
    return user + nice + system + irq + softirq + steal;
  }

  /** USER_HZ, the unit of /proc/stat, as the system states it (not assumed to be 100). */
  static long clockTicksPerSecond() throws Exception {
    Process getconf = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
    String out = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(getconf.waitFor(10, TimeUnit.SECONDS), "getconf CLK_TCK did not end");
    assertEquals(0, getconf.exitValue(), "getconf CLK_TCK (from libc-bin) is needed: " + out);
    return Long.parseLong(out.trim());
  }
}
