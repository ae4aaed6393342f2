package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResultJson;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A corrupt JSON file given to pkibench is refused naming the file and what is wrong, in words: not
 * Jackson's "Source: REDACTED (StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION disabled)".
 */
class CorruptJsonInputTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  private static void saysItInWords(String said, String file) {
    assertTrue(said.contains(file), said);
    assertFalse(said.contains("REDACTED") || said.contains("StreamReadFeature"), said);
    assertFalse(said.contains("at [Source"), said);
  }

  @Test
  void truncatedResult_exit2NamingTheFile() throws Exception {
    Files.writeString(dir.resolve("cut.json"), "{\"schema\": \"pkibench.run/1\", \"workloads\": [");
    assertEquals(ExitCodes.USAGE, InThisJvm.run(dir, out, err, "report", "cut.json"));
    saysItInWords(err.toString(), "cut.json");
    assertEquals(ExitCodes.USAGE, InThisJvm.run(dir, out, err, "compare", "cut.json", "cut.json"));
    saysItInWords(err.toString(), "cut.json");
  }

  @Test
  void corruptProfileBesideTheResult_leftOutSaidInWords() throws Exception {
    RunResultJson.write(
        ResultFixtures.closedRun(
            "sign", new int[] {1}, new double[][] {{100, 101}}, new long[] {1_000_000}),
        dir.resolve("r.json"));
    Files.writeString(dir.resolve("r.profile.json"), "{\"format\": ");
    assertEquals(0, InThisJvm.run(dir, out, err, "report", "r.json", "--html", "r.html"));
    saysItInWords(err.toString(), "r.profile.json");
  }

  @Test
  void corruptTestPkiManifest_exit2NamingIt() throws Exception {
    Files.createDirectories(dir.resolve("pki"));
    Files.writeString(dir.resolve("pki/pki.json"), "{\"schema\": \"pkibench");
    int code =
        InThisJvm.run(
            dir,
            out,
            err,
            "run",
            "sign",
            "--pki",
            "pki",
            "--warmup",
            "0x1s",
            "--measure",
            "1x100ms",
            "--concurrency",
            "1",
            "-o",
            "r.json");
    assertEquals(ExitCodes.USAGE, code, err.toString());
    saysItInWords(err.toString(), "pki.json");
  }
}
