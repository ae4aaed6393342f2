package io.pkibench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/** A golden file is rewritten only when asked, and the run that rewrote it never passes. */
class GoldenFilesTest {
  @Test
  void assertMatches_theRunThatRewritesTheFile_failsAndOnlyTheNextRunPasses(@TempDir Path dir)
      throws Exception {
    Path golden = Files.writeString(dir.resolve("format.txt"), "old format");
    byte[] now = "new format".getBytes(StandardCharsets.UTF_8);

    var unasked =
        assertThrows(
            AssertionFailedError.class,
            () -> GoldenFiles.assertMatches(golden, now, "the format changed", false));
    assertTrue(
        unasked.getMessage().startsWith("the format changed (" + golden + ")"),
        unasked.getMessage());
    assertEquals("old format", Files.readString(golden), "not asked: the file is left as it was");

    var rewriting =
        assertThrows(
            AssertionFailedError.class,
            () -> GoldenFiles.assertMatches(golden, now, "the format changed", true));
    assertTrue(rewriting.getMessage().startsWith("rewrote " + golden), rewriting.getMessage());
    assertEquals(
        "new format",
        Files.readString(golden),
        "asked: the file holds the new output, to be reviewed");

    GoldenFiles.assertMatches(
        golden, now, "the format changed", false); // the next run, after the review, passes on it
  }
}
