package io.pkibench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No main source file over 600 lines (issue 48): a file that grows past it holds more than one role
 * and is split by role, as PecServer, StudyTables and StudyRunner were.
 */
class MainFileSizeTest {
  static final int MOST_LINES = 600;

  @Test
  void mainSources_noneOverTheLimit() throws IOException {
    Map<String, Integer> over = new TreeMap<>();
    int files = 0;
    try (Stream<Path> all = Files.walk(InlineNamesTest.MAIN)) {
      for (Path p : all.filter(f -> f.toString().endsWith(".java")).toList()) {
        files++;
        int lines = Files.readAllLines(p).size();
        if (lines > MOST_LINES) over.put(InlineNamesTest.MAIN.relativize(p).toString(), lines);
      }
    }
    assertTrue(files > 300, "read the main sources: " + files + " files");
    assertEquals(Map.of(), over, "main files over " + MOST_LINES + " lines: split them by role");
  }
}
