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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Every help text is a format string to picocli: a lone {@code %} (as in "10%") makes it give up
 * formatting that text, warn on stderr ("[picocli WARN] Could not format …") and show it raw. Each
 * command's help is rendered here with stderr caught, and must render without a warning. Each is
 * also read as a newcomer reads it: summaries that end, examples that can be copied whole, synopses
 * and placeholders in words.
 */
class HelpFormatTest {
  /**
   * picocli's default placeholder is the field's name in angle brackets: {@code <maxConnections>}.
   */
  private static final Pattern FIELD_NAME_PLACEHOLDER = Pattern.compile("<[a-z][A-Za-z0-9]*>");

  /** A full stop, then a new sentence: a summary that holds two. */
  private static final Pattern SENTENCE_BREAK = Pattern.compile("[a-z)]\\. [A-Z]");

  @Test
  void everyCommandsSummary_isOneWholeSentence() {
    List<String> cut = new ArrayList<>();
    for (CommandLine command : commands(tree())) {
      String summary = HelpLayout.summary(command.getCommandSpec());
      boolean oneSentence = summary.endsWith(".") && !SENTENCE_BREAK.matcher(summary).find();
      if (!oneSentence) cut.add(command.getCommandSpec().qualifiedName() + ": " + summary);
    }
    assertEquals(List.of(), cut, "a command's summary (its header) is one sentence that ends");
  }

  @Test
  void everyExampleLine_isRenderedWholeOnOneLine() {
    List<String> wrapped = new ArrayList<>();
    for (CommandLine command : commands(tree())) {
      List<String> rendered =
          List.of(command.getUsageMessage(CommandLine.Help.Ansi.OFF).split("\\R"));
      for (String line : command.getCommandSpec().usageMessage().footer()) {
        String example = String.format(line.replace("%n", "")).stripTrailing();
        if (example.startsWith("  ") && !rendered.contains(example))
          wrapped.add(command.getCommandSpec().qualifiedName() + ": " + example.strip());
      }
    }
    assertEquals(List.of(), wrapped, "an example line is printed whole, never wrapped");
  }

  @Test
  void noHelp_showsAFieldNamePlaceholderOrAnUnreadableSynopsis() {
    List<String> found = new ArrayList<>();
    for (CommandLine command : commands(tree())) {
      String name = command.getCommandSpec().qualifiedName();
      String help = command.getUsageMessage(CommandLine.Help.Ansi.OFF);
      Matcher placeholder = FIELD_NAME_PLACEHOLDER.matcher(help);
      while (placeholder.find()) found.add(name + ": " + placeholder.group());
      if (help.contains("...[,") || help.contains("]]..."))
        found.add(name + ": a repeated list in the synopsis");
    }
    assertEquals(List.of(), found, "placeholders in capitals (PORT, FILE), synopses abbreviated");
  }

  @Test
  void barePkibench_andHelp_listEveryCommand() {
    StringWriter out = new StringWriter();
    int bare = Main.execute(context(out), new String[0]);
    assertEquals(0, bare, out.toString());
    for (CommandLine command : tree().getSubcommands().values())
      if (!command.getCommandSpec().usageMessage().hidden())
        assertTrue(
            out.toString().contains("  " + command.getCommandName() + " "),
            "bare pkibench lists " + command.getCommandName() + ":\n" + out);
    StringWriter help = new StringWriter();
    assertEquals(0, Main.execute(context(help), "help", "run"));
    assertTrue(help.toString().startsWith("Usage: pkibench run"), help.toString());
  }

  private static CommandLine tree() {
    return Main.commandLine(context());
  }

  /** {@code root} and every command under it, once each (picocli lists a command per alias). */
  private static List<CommandLine> commands(CommandLine root) {
    List<CommandLine> all = new ArrayList<>();
    all.add(root);
    for (Map.Entry<String, CommandLine> sub : root.getSubcommands().entrySet()) {
      CommandSpec spec = sub.getValue().getCommandSpec();
      if (sub.getKey().equals(spec.name()) && !spec.usageMessage().hidden())
        all.addAll(commands(sub.getValue()));
    }
    return all;
  }

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
    return context(new StringWriter());
  }

  private static CliContext context(StringWriter out) {
    return new CliContext(
        new PrintWriter(out),
        new PrintWriter(new StringWriter()),
        Map.of(),
        InstantSource.system(),
        Path.of("").toAbsolutePath(),
        false);
  }
}
