package io.pkibench.study;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The PEC study's directories (its own, and the spools'): emptied at the start of each run, so that
 * the reliability check sees that run's mail alone; only a directory the study made, marked so, is
 * ever emptied.
 */
final class PecStudyDirectory {
  static final String MARKER = ".pkibench-pec-study";

  private PecStudyDirectory() {}

  /** A directory the study may empty: new, empty, or one it made before (marked). */
  static List<String> ownable(String flag, Path dir) {
    if (Files.exists(dir) && !Files.isDirectory(dir))
      return List.of(flag + " " + dir + ": is a file; give a directory");
    if (!Files.isDirectory(dir) || Files.exists(dir.resolve(MARKER))) return List.of();
    try (Stream<Path> entries = Files.list(dir)) {
      if (entries.findAny().isPresent()) {
        return List.of(
            flag
                + " "
                + dir
                + ": holds files this study did not put there, and each run empties its directory;"
                + " give a new or empty directory");
      }
    } catch (IOException e) {
      return List.of(flag + " " + dir + ": cannot be read (" + e.getMessage() + ")");
    }
    return List.of();
  }

  /** Empties {@code dir} (made when absent) and marks it as the study's. */
  static void fresh(Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      try (Stream<Path> all = Files.walk(dir)) {
        for (Path p : all.sorted(Comparator.reverseOrder()).toList())
          if (!p.equals(dir)) Files.delete(p);
      }
    }
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve(MARKER),
        "made by 'pkibench study pec'; emptied at the start of each of its runs\n");
  }
}
