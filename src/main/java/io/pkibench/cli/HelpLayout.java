package io.pkibench.cli;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/** How every command's help is laid out, set once on the whole command tree. */
final class HelpLayout {
  private HelpLayout() {}

  static CommandLine apply(CommandLine root) {
    return root;
  }

  /**
   * The one line that stands for a command in its parent's list: its header, else the first line of
   * its description (picocli's own choice).
   */
  static String summary(CommandSpec spec) {
    String[] header = spec.usageMessage().header();
    String[] description = spec.usageMessage().description();
    String first = header.length > 0 ? header[0] : description.length > 0 ? description[0] : "";
    return first.replace("%n", " ").replace("%%", "%").strip();
  }
}
