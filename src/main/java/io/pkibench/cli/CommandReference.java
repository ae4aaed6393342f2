package io.pkibench.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Model.CommandSpec;

/**
 * docs/reference/: a Markdown page per command holding its help as the terminal prints it, and an
 * index of every command with its summary; generated from the same picocli model as {@code --help},
 * the man pages and the completion scripts, so the three cannot drift apart. CommandReferenceTest
 * fails when the committed pages are stale.
 */
final class CommandReference {
  private CommandReference() {}

  static final String INDEX = "README.md";

  /** File name → Markdown, the index first. */
  static Map<String, String> pages(CommandLine root) {
    List<CommandLine> commands = new ArrayList<>();
    collect(root, commands);
    Map<String, String> pages = new LinkedHashMap<>();
    StringBuilder index = new StringBuilder();
    index.append("# Command reference\n\n");
    index.append("Every command's `--help`, generated from the program itself; ");
    index.append(
        "do not edit these pages by hand. To regenerate them after changing a command:\n\n");
    index.append("```\n");
    index.append(
        "./mvnw -B -q test -Dtest=CommandReferenceTest -Dpkibench.updateGolden=true   # rewrites, then fails once\n");
    index.append("```\n\n");
    index.append("| command | what it does |\n|---|---|\n");
    for (CommandLine command : commands) {
      CommandSpec spec = command.getCommandSpec();
      String file = fileName(spec);
      index
          .append("| [`")
          .append(spec.qualifiedName())
          .append("`](")
          .append(file)
          .append(") | ")
          .append(HelpLayout.summary(spec).replace("|", "\\|"))
          .append(" |\n");
      pages.put(file, page(command));
    }
    Map<String, String> all = new LinkedHashMap<>();
    all.put(INDEX, index.toString());
    all.putAll(pages);
    return all;
  }

  static String fileName(CommandSpec spec) {
    return spec.qualifiedName("-") + ".md";
  }

  private static String page(CommandLine command) {
    CommandSpec spec = command.getCommandSpec();
    StringBuilder page = new StringBuilder();
    page.append("# ").append(spec.qualifiedName()).append("\n\n");
    page.append(HelpLayout.summary(spec)).append("\n\n");
    List<String> subs = new ArrayList<>();
    for (CommandLine sub : visible(command))
      subs.add("[`" + sub.getCommandName() + "`](" + fileName(sub.getCommandSpec()) + ")");
    if (!subs.isEmpty()) page.append("Commands: ").append(String.join(", ", subs)).append(".\n\n");
    page.append("```text\n");
    page.append(command.getUsageMessage(Ansi.OFF).stripTrailing()).append('\n');
    page.append("```\n\n[All commands](").append(INDEX).append(")\n");
    return page.toString();
  }

  private static void collect(CommandLine command, List<CommandLine> into) {
    into.add(command);
    for (CommandLine sub : visible(command)) collect(sub, into);
  }

  /** Subcommands shown in help, once each (picocli lists a command per alias). */
  static List<CommandLine> visible(CommandLine command) {
    List<CommandLine> subs = new ArrayList<>();
    for (Map.Entry<String, CommandLine> sub : command.getSubcommands().entrySet()) {
      CommandSpec spec = sub.getValue().getCommandSpec();
      if (sub.getKey().equals(spec.name()) && !spec.usageMessage().hidden())
        subs.add(sub.getValue());
    }
    return subs;
  }
}
