package io.pkibench.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Output formats sealed in files under src/test/resources. Only {@code bench/update-golden} (never
 * {@code ./test}) sets {@code pkibench.updateGolden}: the file is then rewritten and the test
 * fails, so that no run passes against a file it has just written; the next run, after the diff was
 * reviewed, decides.
 */
public final class GoldenFiles {
  public static final String UPDATE = "pkibench.updateGolden";

  private GoldenFiles() {}

  public static void assertMatches(Path golden, String actual, String whatChanged)
      throws IOException {
    assertMatches(golden, actual.getBytes(StandardCharsets.UTF_8), whatChanged);
  }

  public static void assertMatches(Path golden, byte[] actual, String whatChanged)
      throws IOException {
    assertMatches(golden, actual, whatChanged, Boolean.getBoolean(UPDATE));
  }

  /** As above, {@code rewrite} said rather than read from {@link #UPDATE}. */
  static void assertMatches(Path golden, byte[] actual, String whatChanged, boolean rewrite)
      throws IOException {
    if (rewrite) {
      Files.write(golden, actual);
      fail(
          "rewrote "
              + golden
              + " (-D"
              + UPDATE
              + "): review 'git diff "
              + golden
              + "', then run ./test");
    }
    assertArrayEquals(Files.readAllBytes(golden), actual, whatChanged + " (" + golden + ")");
  }
}
