package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every help text is a format string to picocli: a lone {@code %} (as in "10%") makes it give up
 * formatting that text, warn on stderr ("[picocli WARN] Could not format …") and show it raw. Each
 * command's help is rendered here with stderr caught, and must render without a warning.
 */
class HelpFormatTest {
  @Test
  void everyCommandsHelp_rendersWithoutPicocliWarnings() {
    List<String> warned = new ArrayList<>();
    render(new CommandLine(new PkibenchCommand(context())), warned);
    assertEquals(List.of(), warned, "write 10%% for 10% in a picocli text");
  }

  @Test
  void aLonePercent_isWhatPicocliWarnsAbout() {
    @CommandLine.Command(name = "demo", description = "gains under 10%, its spread added")
    class Demo {}
    List<String> warned = new ArrayList<>();
    render(new CommandLine(new Demo()), warned);
    assertEquals(1, warned.size(), warned.toString());
    assertTrue(warned.get(0).startsWith("demo: "), warned.get(0));
  }

  /** Renders {@code command}'s help and its subcommands', naming each that made picocli warn. */
  private static void render(CommandLine command, List<String> warned) {
    PrintStream before = System.err;
    ByteArrayOutputStream caught = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(caught, true, StandardCharsets.UTF_8));
      command.getUsageMessage();
    } finally {
      System.setErr(before);
    }
    String err = caught.toString(StandardCharsets.UTF_8);
    if (err.contains("WARN"))
      warned.add(command.getCommandSpec().qualifiedName() + ": " + err.strip());
    for (CommandLine sub : command.getSubcommands().values()) render(sub, warned);
  }

  private static CliContext context() {
    return new CliContext(
        new PrintWriter(new StringWriter()),
        new PrintWriter(new StringWriter()),
        Map.of(),
        InstantSource.system(),
        Path.of("").toAbsolutePath(),
        false);
  }
}
