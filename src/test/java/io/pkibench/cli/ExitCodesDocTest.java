package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * docs/cli-grammar.md publishes the exit codes; {@link ExitCodes} defines them; each command's help
 * lists those it returns. The three must agree, or a script reads a code the docs never promised.
 */
class ExitCodesDocTest {
  private static final Path GRAMMAR = Path.of("docs", "cli-grammar.md");

  @Test
  void grammarPage_listsEveryExitCodeConstantAndNoOther() throws Exception {
    TreeSet<Integer> documented = documentedCodes();
    TreeSet<Integer> defined = new TreeSet<>(definedCodes());
    defined.add(130); // Ctrl-C: the JVM's own code after a SIGINT, documented for scripts
    assertEquals(defined, documented, GRAMMAR + "'s exit-code table against ExitCodes");
  }

  @Test
  void everyHelpsExitCodeLine_namesOnlyDocumentedCodes() throws Exception {
    TreeSet<Integer> documented = documentedCodes();
    List<String> wrong = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    check(new CommandLine(new PkibenchCommand(context())), documented, wrong, seen);
    assertTrue(seen.size() >= 5, "help texts with an 'Exit codes:' line: " + seen);
    assertEquals(List.of(), wrong, "codes in --help that " + GRAMMAR + " does not list");
  }

  private static void check(
      CommandLine command, TreeSet<Integer> documented, List<String> wrong, List<String> seen) {
    String help = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
    int at = help.indexOf("Exit codes:");
    if (at >= 0) {
      String name = command.getCommandSpec().qualifiedName();
      seen.add(name);
      // "0 done, 1 a workload …, 3 a --threshold failed": a code is a number opening a clause.
      Matcher code = Pattern.compile("(?:Exit codes:|,)\\s+(\\d+) ").matcher(help.substring(at));
      while (code.find()) {
        int c = Integer.parseInt(code.group(1));
        if (!documented.contains(c)) wrong.add(name + ": " + c);
      }
    }
    for (CommandLine sub : command.getSubcommands().values()) check(sub, documented, wrong, seen);
  }

  private static TreeSet<Integer> documentedCodes() throws Exception {
    String page = Files.readString(GRAMMAR);
    String section = page.substring(page.indexOf("## Exit codes"));
    TreeSet<Integer> codes = new TreeSet<>();
    Matcher row = Pattern.compile("(?m)^\\| (\\d+) \\|").matcher(section);
    while (row.find()) codes.add(Integer.parseInt(row.group(1)));
    return codes;
  }

  private static List<Integer> definedCodes() throws IllegalAccessException {
    List<Integer> codes = new ArrayList<>();
    for (Field f : ExitCodes.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getType() == int.class)
        codes.add(f.getInt(null));
    }
    return codes;
  }

  private static CliContext context() {
    return new CliContext(
        new PrintWriter(new StringWriter()),
        new PrintWriter(new StringWriter()),
        Map.of(),
        InstantSource.system(),
        Path.of("."),
        false);
  }
}
