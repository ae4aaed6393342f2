package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResultJson;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Base64;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A result file is input: a histogram in it declaring a range no run records (1..2^62 ns at 5
 * significant digits, tens of megabytes of counts each once decoded) is refused from its header by
 * report and compare, naming the file and where.
 */
@org.junit.jupiter.api.Timeout(value = 2, unit = java.util.concurrent.TimeUnit.MINUTES)
class ReportHistogramRangeTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return InThisJvm.run(dir, out, err, args);
  }

  @Test
  void reportAndCompare_histogramDeclaringRangeTo2pow62_refusedNamingFileAndHistogram()
      throws Exception {
    RunResultJson.write(
        ResultFixtures.closedRun(
            "sign",
            new int[] {1, 2},
            new double[][] {{100, 101, 99}, {190, 200, 210}},
            new long[] {1_000_000, 2_000_000}),
        dir.resolve("wide.json"));
    Histogram wide = new Histogram(1, 1L << 62, 5);
    wide.recordValue(2_000_000);
    ByteBuffer buffer = ByteBuffer.allocate(wide.getNeededByteBufferCapacity());
    int length = wide.encodeIntoCompressedByteBuffer(buffer);
    String encoded =
        Base64.getEncoder().encodeToString(java.util.Arrays.copyOf(buffer.array(), length));
    var tree = RunResultJson.mapper().readTree(dir.resolve("wide.json").toFile());
    ((ObjectNode) tree.get("workloads").get(0).get("levels").get(1).get("iterations").get(2))
        .put("histogram", encoded);
    RunResultJson.mapper().writeValue(dir.resolve("wide.json").toFile(), tree);

    assertEquals(2, run("report", "wide.json"), out + "\n" + err);
    String said = err.toString();
    assertTrue(
        said.contains(
            "wide.json is damaged: workloads[0].levels[1].iterations[2].histogram declares values up to "
                + (1L << 62)
                + " ns"),
        said);
    assertTrue(
        said.contains("pkibench records up to 600000000000 ns"), "says what a run writes: " + said);
    err.getBuffer().setLength(0);
    assertEquals(2, run("compare", "wide.json", "wide.json"), out + "\n" + err);
    assertTrue(
        err.toString()
            .contains(
                "wide.json is damaged: workloads[0].levels[1].iterations[2].histogram declares"),
        err.toString());
  }
}
