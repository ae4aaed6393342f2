package io.pkibench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The repository stands alone: what a user reads (the README, docs, bench scripts, the help and
 * every text the code prints, which the main sources hold) and its tests name no file that lives
 * outside it, such as the developers' notes beside the checkout. A study cites its own page under
 * docs/studies/.
 */
class StandsAloneTest {
  /** Names of files kept beside the checkout for its developers, never shipped with it. */
  static final Pattern OUTSIDE =
      Pattern.compile("STUDIES\\.md|DESIGN\\.md|STYLE\\.md|\\.\\./shared\\b");

  static final List<Path> READ_BY_USERS =
      List.of(
          Path.of("README.md"),
          Path.of("docs"),
          Path.of("bench"),
          Path.of("deploy"),
          Path.of("src/main"),
          Path.of("src/test"),
          Path.of("test"),
          Path.of("pkibench"));

  @Test
  void whatUsersRead_namesNoFileOutsideTheRepository() throws IOException {
    Map<String, String> found = new TreeMap<>();
    int read = 0;
    for (Path root : READ_BY_USERS) {
      assertTrue(Files.exists(root), root + " is where users read");
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          String text;
          try {
            text = Files.readString(f, StandardCharsets.UTF_8);
          } catch (MalformedInputException binary) {
            continue; // images and other binaries hold no reference a reader follows
          }
          read++;
          var m = OUTSIDE.matcher(text);
          if (m.find()) found.put(f.toString(), m.group());
        }
      }
    }
    assertTrue(read > 500, "read what users read: " + read + " files");
    assertEquals(Map.of(), found, "files naming something outside the repository");
  }
}
