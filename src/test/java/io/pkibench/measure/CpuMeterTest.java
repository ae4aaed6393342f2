package io.pkibench.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CpuMeterTest {

  @Test
  void processStat_nameWithSpacesAndParens_readsUtimePlusStime() {
    String line = "4242 (java (my) app) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 30 0 100 0 0";
    assertEquals(1234 + 567, ProcessCpuMeter.parseStat(line));
  }

  @Test
  void hostStat_busyExcludesIdleAndIowait() {
    assertEquals(10 + 2 + 30 + 7 + 8 + 9, HostCpuMeter.busyTicks("cpu  10 2 30 400 500 7 8 9 0 0"));
  }

  @Test
  void meters_burningCpu_advance() {
    for (String spec : new String[] {"jvm", "host", "pid:" + ProcessHandle.current().pid()}) {
      CpuMeter meter = CpuMeter.of(spec);
      long before = meter.cpuNanos();
      long end = System.nanoTime() + 300_000_000L;
      long x = 0;
      while (System.nanoTime() < end) x += Long.numberOfTrailingZeros(x + System.nanoTime());
      assertTrue(meter.cpuNanos() - before >= 100_000_000L, spec + " saw the busy loop (" + x + ")");
      assertEquals(spec, meter.describe());
    }
  }

  @Test
  void of_unknownSpec_namesTheChoices() {
    var e = assertThrows(IllegalArgumentException.class, () -> CpuMeter.of("pid:abc"));
    assertTrue(e.getMessage().contains("jvm") && e.getMessage().contains("pid:N"));
  }
}
