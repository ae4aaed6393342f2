package io.pkibench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * pom.xml's profile "mutation" (bench/mutation) lists the oracle classes PIT mutates and the tests
 * it runs against them. A test that reaches an oracle but is not listed leaves the mutants only it
 * would kill counted as survivors (issue 47: Comparison's staged rows, reached by StagesCliTest
 * alone, scored 74%). So: every test class that names an oracle class (or drives it through the
 * CLI, below) is in the list or excluded here with its reason, every listed test exists, and every
 * target matches a class.
 */
class MutationProfileTest {
  static final Path POM = Path.of("pom.xml");
  static final Path MAIN = Path.of("src/main/java");
  static final Path TESTS = Path.of("src/test/java");
  static final Path SELF = Path.of("io/pkibench/MutationProfileTest.java");

  /**
   * Tests that reach an oracle but stay out of the mutation run, each with why: PIT runs every
   * covering test per mutant, and these start servers, providers or whole studies (minutes each on
   * a loaded machine) where a fast test in the list already holds the oracle.
   */
  static final Map<String, String> EXCLUDED =
      Map.of(
          "io.pkibench.cli.ConsoleTableWidthTest",
              "checks the console tables' width, not Comparison's verdicts (ComparisonTest does)",
          "io.pkibench.server.pec.PecProvidersTest",
              "two providers relaying: slow; ReliabilityCheckTest plants its faults in a spool",
          "io.pkibench.server.pec.PecRelayTest",
              "two providers relaying: slow; ReliabilityCheckTest plants its faults in a spool",
          "io.pkibench.server.signer.SignerServiceFaultsTest",
              "a signer service under faults: slow; the AdES workload tests hold AdesChecks",
          "io.pkibench.workload.apispec.ApiWorkloadTest",
              "an HTTP API with EU DSS signing behind it: slow; the AdES workload tests hold AdesChecks",
          "io.pkibench.server.keyserver.KeyServerTest",
              "the key server end to end: slow; Protocol3Test holds the protocol",
          "io.pkibench.study.CompareAcrossRunsTest",
              "whole studies run twice: slow; ComparisonTest and StagesCliTest hold compare",
          "io.pkibench.cli.CliTest",
              "the whole CLI with real workloads: slow; ComparisonGateTest holds compare's gate",
          "io.pkibench.study.RsfnStudyVerifiesTest",
              "key-server nodes on loopback: slow; Protocol3Test holds the protocol");

  /**
   * Oracles that tests reach without naming them: compare's rows are Comparison's, driven through
   * the CLI's {@code compare} command.
   */
  static final Map<String, Pattern> REACHED_THROUGH =
      Map.of("Comparison", Pattern.compile("\"compare\""));

  /**
   * Oracles every CLI and study test uses as a tool (each reads its result back through
   * RunResultJson): only tests in the oracle's own package count as its tests.
   */
  static final Set<String> OWN_PACKAGE_ONLY = Set.of("RunResultJson");

  @Test
  void mutationProfile_everyTestReachingAnOracle_isListedOrExcludedWithItsReason()
      throws IOException {
    List<String> targets = property("mutation.classes");
    Set<String> listed = new TreeSet<>(property("mutation.tests"));
    Map<String, String> oracles = oracleClasses(targets); // simple name -> package

    List<String> problems = new ArrayList<>();
    for (String target : targets) {
      String pkg = target.substring(0, target.lastIndexOf('.'));
      String name = target.substring(target.lastIndexOf('.') + 1).replace("*", "");
      if (oracles.entrySet().stream()
          .noneMatch(e -> e.getValue().equals(pkg) && e.getKey().startsWith(name)))
        problems.add("mutation.classes " + target + " matches no class in src/main/java");
    }
    for (String test : listed)
      if (!Files.isRegularFile(TESTS.resolve(test.replace('.', '/') + ".java")))
        problems.add("mutation.tests " + test + " is no test class in src/test/java");
    for (String test : EXCLUDED.keySet())
      if (!Files.isRegularFile(TESTS.resolve(test.replace('.', '/') + ".java")))
        problems.add("EXCLUDED " + test + " is no test class in src/test/java: drop it");

    Map<String, Set<String>> missing = new TreeMap<>(); // test -> oracles it reaches
    for (Path file : testFiles()) {
      String test = TESTS.relativize(file).toString().replace('/', '.').replaceAll("\\.java$", "");
      // this test names the oracles in its own tables
      if (listed.contains(test) || EXCLUDED.containsKey(test) || file.endsWith(SELF)) continue;
      String testPackage = test.substring(0, test.lastIndexOf('.'));
      String code = withoutComments(Files.readString(file));
      for (var oracle : oracles.entrySet()) {
        if (OWN_PACKAGE_ONLY.contains(oracle.getKey()) && !oracle.getValue().equals(testPackage))
          continue;
        boolean named = Pattern.compile("\\b" + oracle.getKey() + "\\b").matcher(code).find();
        Pattern through = REACHED_THROUGH.get(oracle.getKey());
        if (named || (through != null && through.matcher(code).find()))
          missing.computeIfAbsent(test, t -> new TreeSet<>()).add(oracle.getKey());
      }
    }
    missing.forEach(
        (test, reached) ->
            problems.add(
                test
                    + " reaches "
                    + reached
                    + ": add it to pom.xml's mutation.tests, or to EXCLUDED here with the reason"));
    assertEquals(List.of(), problems, "pom.xml's mutation profile against the tests");
  }

  /** Each main class a target names (a trailing * a prefix, as PIT reads it): name -> package. */
  static Map<String, String> oracleClasses(List<String> targets) throws IOException {
    Map<String, String> classes = new TreeMap<>();
    for (String target : targets) {
      String pkg = target.substring(0, target.lastIndexOf('.'));
      String name = target.substring(target.lastIndexOf('.') + 1);
      boolean prefix = name.endsWith("*");
      String stem = name.replace("*", "");
      Path dir = MAIN.resolve(pkg.replace('.', '/'));
      if (!Files.isDirectory(dir)) continue;
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.toList()) {
          String simple = f.getFileName().toString().replaceAll("\\.java$", "");
          if (!f.toString().endsWith(".java")) continue;
          if (prefix ? simple.startsWith(stem) : simple.equals(stem)) classes.put(simple, pkg);
        }
      }
    }
    return classes;
  }

  static List<Path> testFiles() throws IOException {
    try (Stream<Path> files = Files.walk(TESTS)) {
      return files.filter(f -> f.getFileName().toString().endsWith("Test.java")).sorted().toList();
    }
  }

  /** The value of {@code <name>} in pom.xml, split at commas. */
  static List<String> property(String name) throws IOException {
    Matcher m =
        Pattern.compile("<" + Pattern.quote(name) + ">([^<]*)</" + Pattern.quote(name) + ">")
            .matcher(Files.readString(POM));
    assertTrue(m.find(), "pom.xml has no <" + name + ">");
    List<String> items = List.of(m.group(1).split(","));
    for (String item : items)
      assertEquals(item.strip(), item, name + ": an item with blanks around it matches nothing");
    return items;
  }

  /** Code without its comments: a test that only mentions an oracle in prose does not reach it. */
  static String withoutComments(String code) {
    return code.replaceAll("(?s)/\\*.*?\\*/", " ").replaceAll("(?m)^\\s*//.*$", " ");
  }
}
