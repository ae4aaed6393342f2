package io.pkibench.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.IllegalFormatException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Help;
import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Help.Ansi.IStyle;
import picocli.CommandLine.Help.Ansi.Text;
import picocli.CommandLine.IHelpSectionRenderer;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * How every command's help is laid out, set once on the whole command tree: synopses abbreviated to
 * {@code [OPTIONS]} (picocli spells a repeated list {@code [--types=TYPE,...[,TYPE,......]]...}),
 * placeholders in capitals rather than picocli's field names, long option lists in sections (load,
 * measurement, keys, services, output), and example lines printed whole, never wrapped, so that
 * they can be copied.
 */
final class HelpLayout {
  private HelpLayout() {}

  /** Commands with more options than this get their options in sections. */
  private static final int GROUPED_FROM_OPTIONS = 14;

  private static final Pattern FIELD_NAME = Pattern.compile("<([a-z][A-Za-z0-9]*)>");

  /** Section headings in the order shown, with the long options each holds. */
  private static final Map<String, Set<String>> SECTIONS = sections();

  private static Map<String, Set<String>> sections() {
    Map<String, Set<String>> sections = new LinkedHashMap<>();
    sections.put(
        "Load (what runs, how many at once, how fast):",
        Set.of(
            "--concurrency",
            "--rate",
            "--rates",
            "--stages",
            "--mix",
            "--scenario",
            "--target",
            "--param",
            "--agents",
            "--local",
            "--segment",
            "--start-at",
            "--start-in",
            "--source-addresses",
            "--virtual-threads",
            "--types",
            "--core-ratio-sweep",
            "--flow-rate",
            "--pauses",
            "--fault",
            "--seed"));
    sections.put(
        "Measurement:",
        Set.of(
            "--warmup",
            "--measure",
            "--series",
            "--duration",
            "--quick",
            "--smoke",
            "--cpu",
            "--fork",
            "--verify",
            "--profile",
            "--hang-grace",
            "--check-sizing",
            "--cgroup-root",
            "--service-cpus",
            "--allow-missing",
            "--max-utilisation",
            "--target-rate",
            "--no-search",
            "--no-sweep",
            "--no-paths",
            "--confidence",
            "--predict",
            "--upto",
            "--baseline",
            "--verify-sample"));
    sections.put(
        "Keys and TLS:",
        Set.of(
            "--keys",
            "--pin-file",
            "--pki",
            "--trust",
            "--client-auth",
            "--tls",
            "--key",
            "--groups",
            "--suites",
            "--protocols"));
    sections.put(
        "Services:",
        Set.of(
            "--service",
            "--restart-per-type",
            "--server",
            "--spool",
            "--dir",
            "--provider-workers",
            "--bind",
            "--port",
            "--plain-port",
            "--revocation",
            "--tsa",
            "--tsa-trust",
            "--idle-timeout",
            "--frame-deadline",
            "--max-connections",
            "--max-connections-per-address"));
    sections.put(
        "Output:",
        Set.of(
            "--out",
            "--output",
            "--html",
            "--png",
            "--format",
            "--metrics",
            "--metrics-interval",
            "--dashboard",
            "--dashboard-linger",
            "--quiet",
            "--save-samples",
            "--threshold",
            "--csv"));
    return sections;
  }

  private static final String OTHER = "Other:";

  static CommandLine apply(CommandLine root) {
    root.setHelpFactory(ReadableLabels::new);
    layOut(root);
    return root;
  }

  private static void layOut(CommandLine command) {
    command.getCommandSpec().usageMessage().abbreviateSynopsis(true);
    Map<String, IHelpSectionRenderer> renderers = command.getHelpSectionMap();
    renderers.put(CommandLine.Model.UsageMessageSpec.SECTION_KEY_FOOTER, HelpLayout::footer);
    renderers.put(
        CommandLine.Model.UsageMessageSpec.SECTION_KEY_OPTION_LIST, HelpLayout::optionList);
    command.setHelpSectionMap(renderers);
    for (CommandLine sub : command.getSubcommands().values()) layOut(sub);
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

  /**
   * Lines that start with a blank (examples, tables) as written; prose lines wrapped at the help's
   * width as picocli would.
   */
  private static String footer(Help help) {
    String[] lines = help.commandSpec().usageMessage().footer();
    if (lines.length == 0) return "";
    int width = help.commandSpec().usageMessage().width();
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      for (String formatted : format(line).split("\n", -1)) {
        if (formatted.startsWith(" ") || formatted.length() <= width) {
          out.append(formatted.stripTrailing()).append('\n');
        } else {
          out.append(wrap(formatted, width));
        }
      }
    }
    return out.toString();
  }

  private static String format(String line) {
    try {
      return String.format(line).replace("\r\n", "\n");
    } catch (IllegalFormatException e) {
      return line;
    }
  }

  private static String wrap(String prose, int width) {
    StringBuilder out = new StringBuilder();
    StringBuilder line = new StringBuilder();
    for (String word : prose.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        out.append(line).append('\n');
        line.setLength(0);
      }
      if (line.length() > 0) line.append(' ');
      line.append(word);
    }
    return out.append(line).append('\n').toString();
  }

  /** Options outside picocli's own groups, in sections when there are many of them. */
  private static String optionList(Help help) {
    List<OptionSpec> options = new ArrayList<>();
    for (OptionSpec option : help.commandSpec().options())
      if (option.group() == null && !option.hidden()) options.add(option);
    if (options.size() <= GROUPED_FROM_OPTIONS) return help.optionList();
    Map<String, List<OptionSpec>> sectioned = new LinkedHashMap<>();
    for (String heading : SECTIONS.keySet()) sectioned.put(heading, new ArrayList<>());
    sectioned.put(OTHER, new ArrayList<>());
    for (OptionSpec option : options) sectioned.get(section(option)).add(option);
    Comparator<OptionSpec> byName =
        Comparator.comparing(o -> o.longestName().replaceFirst("^-+", "").toLowerCase(Locale.ROOT));
    StringBuilder out = new StringBuilder();
    for (Map.Entry<String, List<OptionSpec>> section : sectioned.entrySet()) {
      if (section.getValue().isEmpty()) continue;
      section.getValue().sort(byName);
      out.append(section.getKey()).append('\n');
      out.append(
          help.optionListExcludingGroups(
              section.getValue(), help.createDefaultLayout(), null, help.parameterLabelRenderer()));
    }
    return out.append(help.optionListGroupSections()).toString();
  }

  private static String section(OptionSpec option) {
    for (Map.Entry<String, Set<String>> section : SECTIONS.entrySet())
      for (String name : option.names())
        if (section.getValue().contains(name)) return section.getKey();
    return OTHER;
  }

  /**
   * picocli names an option's value after its field ({@code <maxConnections>}) unless told; this
   * help names it in capitals ({@code MAX_CONNECTIONS}), as the labels written by hand are. A list
   * option's label is shown once.
   */
  private static final class ReadableLabels extends Help {
    ReadableLabels(CommandSpec spec, ColorScheme colors) {
      super(spec, colors);
    }

    @Override
    public IParamLabelRenderer parameterLabelRenderer() {
      IParamLabelRenderer picocli = super.parameterLabelRenderer();
      return new IParamLabelRenderer() {
        @Override
        public Text renderParameterLabel(ArgSpec arg, Ansi ansi, List<IStyle> styles) {
          Text label = picocli.renderParameterLabel(arg, ansi, styles);
          String plain = label.plainString();
          // a split option's label is repeated: TYPE,...[,TYPE,......]; once says it
          String readable =
              FIELD_NAME
                  .matcher(plain)
                  .replaceAll(m -> capitals(m.group(1)))
                  .replaceFirst("\\[,.*$", "");
          return readable.equals(plain) ? label : ansi.new Text(readable, colorScheme());
        }

        @Override
        public String separator() {
          return picocli.separator();
        }
      };
    }
  }

  /** {@code maxConnections} → {@code MAX_CONNECTIONS}. */
  static String capitals(String camelCase) {
    return camelCase.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
  }
}
