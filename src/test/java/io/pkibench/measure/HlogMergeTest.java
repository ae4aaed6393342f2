package io.pkibench.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent's interval log is input to 'merge': its histograms' headers are checked before
 * HdrHistogram's reader sizes them.
 */
class HlogMergeTest {
  @TempDir Path dir;

  Path log(String name, long... latencies) throws Exception {
    Path file = dir.resolve(name);
    try (PrintStream out = new PrintStream(file.toFile(), StandardCharsets.US_ASCII)) {
      HistogramLogWriter writer = new HistogramLogWriter(out);
      writer.outputLogFormatVersion();
      writer.outputStartTime(0);
      writer.setBaseTime(0);
      writer.outputLegend();
      Histogram h = LatencyHistograms.newHistogram();
      for (long l : latencies) h.recordValue(l);
      h.setStartTimeStamp(0);
      h.setEndTimeStamp(1000);
      h.setTag("sign/c1/0/1");
      writer.outputIntervalHistogram(h);
    }
    return file;
  }

  @Test
  void merge_twoAgentsLogs_oneIntervalOfBothCounts() throws Exception {
    Path out = dir.resolve("merged.hlog");
    HlogMerge.Merged merged =
        HlogMerge.merge(List.of(log("a.hlog", 1_000, 2_000), log("b.hlog", 3_000)), out, "merged");
    assertEquals(1, merged.intervals());
    assertTrue(Files.readString(out).contains("Tag=sign/c2/0/1"), Files.readString(out));
  }

  /**
   * A log whose interval declares 1..2^62 ns at 5 digits: refused naming the log, the line and the
   * range, not decoded.
   */
  @Test
  void merge_intervalDeclaringRangeTo2pow62_refusedNamingLogAndLine() throws Exception {
    Path crafted = log("crafted.hlog", 1_000);
    Files.writeString(
        crafted,
        "Tag=sign/c1/0/2,1.000,1.000,1.0," + LatencyHistogramsTest.header(0, 5, 1, 1L << 62) + "\n",
        java.nio.file.StandardOpenOption.APPEND);
    var e =
        assertThrows(
            java.io.IOException.class,
            () ->
                HlogMerge.merge(
                    List.of(log("a.hlog", 1_000), crafted), dir.resolve("m.hlog"), "m"));
    assertTrue(
        e.getMessage().contains("crafted.hlog line 5")
            && e.getMessage().contains("declares values up to " + (1L << 62)),
        e.getMessage());
  }

  @Test
  void merge_lineLongerThanAnyIntervalPkibenchWrites_refusedBeforeReadingItWhole()
      throws Exception {
    Path crafted = log("long.hlog", 1_000);
    Files.writeString(
        crafted,
        "Tag=x/c1/0/1,1,1,1," + "A".repeat(HlogMerge.MOST_LINE_CHARS + 10) + "\n",
        java.nio.file.StandardOpenOption.APPEND);
    var e =
        assertThrows(
            java.io.IOException.class,
            () -> HlogMerge.merge(List.of(crafted), dir.resolve("m.hlog"), "m"));
    assertTrue(e.getMessage().contains("long.hlog line 5: longer than"), e.getMessage());
  }
}
