package io.pkibench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Class names written out in full in code ({@code java.util.List}, {@code org.bouncycastle...})
 * hide a file's dependencies from its imports, where ArchitectureTest's reader and a person look.
 * This counts them in main code, outside import and package lines, comments and literals.
 */
class InlineNamesTest {
  /**
   * The most inline qualified names main code may hold. Above the target of 50 while the packages
   * cli, study, report and server.pec still hold theirs (their work is on other branches): lower it
   * to 50 once they merge.
   */
  static final int LIMIT = 50;

  static final Path MAIN = Path.of("src/main/java");

  /** Lowercase package segments, at least two, then a capitalised class name. */
  private static final Pattern QUALIFIED =
      Pattern.compile("(?<![\\w.$])([a-z][a-z0-9_]*(?:\\.[a-z][a-z0-9_]*)+)\\.([A-Z][\\w$]*)");

  @Test
  void inlineNames_countsOnlyCode() {
    String source =
        """
        package io.example.sample;

        import java.util.Map;
        import static java.util.Objects.requireNonNull;

        /** Javadoc naming java.time.Duration and {@link java.util.Set}. */
        class Sample {
          // a line comment with java.util.Optional
          /* a block comment with org.example.Block
             over two lines: java.net.URI */
          String text = "a string with java.io.File in it, \\" and javax.crypto.Cipher";
          char quote = '"';
          String afterChar = "still a string: java.nio.file.Path";
          String block = \"""
              a text block with java.security.Signature
              and an escaped \\\""" then java.util.Base64
              \""";
          java.util.List<String> names = new java.util.ArrayList<>();
          Map<String, org.example.deep.Thing.Inner> things = Map.of(); // java.util.HashMap
          int n = this.names.Size + "java.util.Locale".length();
        }
        """;

    assertEquals(
        List.of("java.util.List", "java.util.ArrayList", "org.example.deep.Thing"),
        inlineNames(source));
  }

  @Test
  void mainCode_holdsAtMostTheLimitOfInlineQualifiedNames() {
    Map<Path, Integer> perFile = new TreeMap<>();
    for (Path file : javaFiles(MAIN)) {
      int count = inlineNames(read(file)).size();
      if (count > 0) perFile.put(MAIN.relativize(file), count);
    }
    int total = perFile.values().stream().mapToInt(Integer::intValue).sum();
    Map<String, Integer> perPackage = new TreeMap<>();
    perFile.forEach(
        (file, count) -> perPackage.merge(String.valueOf(file.getParent()), count, Integer::sum));
    String worstFiles =
        perFile.entrySet().stream()
            .sorted(Map.Entry.<Path, Integer>comparingByValue(Comparator.reverseOrder()))
            .limit(15)
            .map(e -> "  " + e.getValue() + "  " + e.getKey())
            .collect(Collectors.joining("\n"));

    assertTrue(
        total <= LIMIT,
        total
            + " class names written out in full in "
            + MAIN
            + " (limit "
            + LIMIT
            + "): import them instead. Per package "
            + perPackage
            + "; worst files:\n"
            + worstFiles);
  }

  /** The qualified names in code, in order of appearance, each up to its first class name. */
  static List<String> inlineNames(String source) {
    List<String> names = new ArrayList<>();
    for (String line : codeOnly(source).split("\n", -1)) {
      String trimmed = line.strip();
      if (trimmed.startsWith("import ") || trimmed.startsWith("package ")) continue;
      Matcher m = QUALIFIED.matcher(line);
      while (m.find()) {
        String packageName = m.group(1);
        if (packageName.startsWith("this.") || packageName.startsWith("super.")) continue;
        names.add(packageName + "." + m.group(2));
      }
    }
    return names;
  }

  /**
   * The source with comments, string, char and text-block literals blanked to spaces; line breaks
   * stay, so lines keep their numbers.
   */
  static String codeOnly(String source) {
    StringBuilder code = new StringBuilder(source.length());
    int i = 0;
    int n = source.length();
    while (i < n) {
      int end;
      if (source.startsWith("//", i)) {
        end = source.indexOf('\n', i);
        if (end < 0) end = n;
      } else if (source.startsWith("/*", i)) {
        end = source.indexOf("*/", i + 2);
        end = end < 0 ? n : end + 2;
      } else if (source.startsWith("\"\"\"", i)) {
        end = textBlockEnd(source, i + 3);
      } else if (source.charAt(i) == '"' || source.charAt(i) == '\'') {
        end = literalEnd(source, i);
      } else {
        code.append(source.charAt(i++));
        continue;
      }
      for (int k = i; k < end; k++) code.append(source.charAt(k) == '\n' ? '\n' : ' ');
      i = end;
    }
    return code.toString();
  }

  /** Just past the closing quote of the string or char literal opening at {@code start}. */
  private static int literalEnd(String source, int start) {
    char quote = source.charAt(start);
    int i = start + 1;
    while (i < source.length() && source.charAt(i) != quote) i += source.charAt(i) == '\\' ? 2 : 1;
    return Math.min(source.length(), i + 1);
  }

  /** Just past the closing {@code """} of a text block whose content starts at {@code from}. */
  private static int textBlockEnd(String source, int from) {
    int i = from;
    while (i < source.length()) {
      if (source.charAt(i) == '\\') i += 2;
      else if (source.startsWith("\"\"\"", i)) return i + 3;
      else i++;
    }
    return source.length();
  }

  private static List<Path> javaFiles(Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
