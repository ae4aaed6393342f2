package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.pkibench.testing.GoldenFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/reference/ is every command's help as the program prints it: this fails when a command's
 * help changed and the pages were not regenerated ({@code -Dpkibench.updateGolden=true} rewrites
 * them all, then fails once, as the other golden files do).
 */
class CommandReferenceTest {
  private static final Path DIR = Path.of("docs", "reference");

  @Test
  void docsReference_isTheCurrentHelpOfEveryCommand() throws IOException {
    Map<String, String> pages =
        CommandReference.pages(Main.commandLine(ReleaseFiles.quietContext()));
    if (Boolean.getBoolean(GoldenFiles.UPDATE)) {
      Files.createDirectories(DIR);
      for (Path old : onDisk()) Files.delete(DIR.resolve(old));
      for (Map.Entry<String, String> page : pages.entrySet())
        Files.writeString(DIR.resolve(page.getKey()), page.getValue(), StandardCharsets.UTF_8);
      fail("rewrote " + DIR + " (-D" + GoldenFiles.UPDATE + "): review 'git diff " + DIR + "'");
    }
    List<String> stale = new ArrayList<>();
    for (Map.Entry<String, String> page : pages.entrySet()) {
      Path file = DIR.resolve(page.getKey());
      if (!Files.exists(file) || !Files.readString(file).equals(page.getValue()))
        stale.add(page.getKey());
    }
    TreeSet<String> extra = new TreeSet<>();
    for (Path file : onDisk()) extra.add(file.toString());
    extra.removeAll(pages.keySet());
    assertEquals(
        List.of(),
        stale,
        "docs/reference/ is stale; regenerate: ./mvnw -B -q test -Dtest=CommandReferenceTest -D"
            + GoldenFiles.UPDATE
            + "=true");
    assertEquals(List.of(), List.copyOf(extra), "pages of commands that no longer exist");
  }

  @Test
  void reference_hasAPagePerCommand_linkedFromItsIndex() {
    Map<String, String> pages =
        CommandReference.pages(Main.commandLine(ReleaseFiles.quietContext()));
    String index = pages.get(CommandReference.INDEX);
    for (String file : List.of("pkibench.md", "pkibench-run.md", "pkibench-study-restpki.md")) {
      assertTrue(pages.containsKey(file), file);
      assertTrue(index.contains("](" + file + ")"), "the index links " + file);
    }
    assertTrue(pages.get("pkibench-run.md").contains("Usage: pkibench run [OPTIONS]"));
  }

  private static List<Path> onDisk() throws IOException {
    if (!Files.isDirectory(DIR)) return List.of();
    try (Stream<Path> files = Files.list(DIR)) {
      return files.map(Path::getFileName).toList();
    }
  }
}
