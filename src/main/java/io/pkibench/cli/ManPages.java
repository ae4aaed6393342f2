package io.pkibench.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Section-1 man pages in roff, one per command, from the same picocli model that prints {@code
 * --help}: the page's body is the help text itself, kept as laid out (man would otherwise refill
 * the examples, which must stay one line each to be copied).
 */
final class ManPages {
  private ManPages() {}

  /** A page per visible command of the tree under {@code command}, its own first. */
  static List<Page> of(CommandLine command, String version) {
    List<Page> pages = new ArrayList<>();
    collect(command, version, pages);
    return pages;
  }

  record Page(String fileName, String roff) {}

  private static void collect(CommandLine command, String version, List<Page> pages) {
    CommandSpec spec = command.getCommandSpec();
    String name = spec.qualifiedName("-");
    pages.add(new Page(name + ".1", page(command, name, version)));
    for (CommandLine sub : command.getSubcommands().values()) {
      CommandSpec subSpec = sub.getCommandSpec();
      // picocli lists a command once per alias; the page is the command's, under its name
      if (!subSpec.usageMessage().hidden() && sub.getCommandName().equals(subSpec.name()))
        collect(sub, version, pages);
    }
  }

  private static String page(CommandLine command, String name, String version) {
    StringBuilder roff = new StringBuilder();
    roff.append(".TH \"")
        .append(name.toUpperCase(Locale.ROOT))
        .append("\" \"1\" \"\" \"pkibench ")
        .append(version)
        .append("\" \"pkibench manual\"\n");
    roff.append(".SH NAME\n").append(escape(name)).append(" \\- ");
    roff.append(escape(HelpLayout.summary(command.getCommandSpec()))).append('\n');
    roff.append(".SH DESCRIPTION\n.nf\n");
    for (String line : command.getUsageMessage(CommandLine.Help.Ansi.OFF).split("\n", -1))
      roff.append(escape(line)).append('\n');
    roff.append(".fi\n");
    return roff.toString();
  }

  /** Text that roff prints as written: its escape character doubled, no line read as a request. */
  static String escape(String text) {
    String escaped = text.replace("\\", "\\e").replace("-", "\\-");
    return escaped.startsWith(".") || escaped.startsWith("'") ? "\\&" + escaped : escaped;
  }
}
