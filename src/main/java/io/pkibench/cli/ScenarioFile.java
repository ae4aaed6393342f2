package io.pkibench.cli;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.pkibench.plan.MixSpec;
import io.pkibench.text.OutsideText;
import io.pkibench.workload.api.Suggestions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * A scenario file: the YAML form of {@code run}'s options, the file a user keeps beside their
 * service. Each top-level key is one of {@code run}'s long options without its dashes ({@code
 * rates: 400}, {@code measure: 5x10s}, {@code param: {alg: ecdsa-p256}}), looked up in the
 * command's own spec, so an option added to {@code run} is a key here too; a key that is none is
 * refused with its line. {@code members} lists the mix: each with {@code name}, {@code weight},
 * optional {@code label} and its own {@code params}. A flag given on the command line wins over the
 * file's value (the {@code -p} map is merged, the command line's entries winning).
 */
final class ScenarioFile {
  static final String MEMBERS = "members";
  private static final List<String> MEMBER_KEYS = List.of("name", "label", "weight", "params");

  /** Options that make no sense from a file: one scenario naming another, and the help. */
  private static final List<String> REFUSED = List.of("scenario", "help", "version");

  private ScenarioFile() {}

  /** A value as read, with the line it starts on. */
  record Located(Object value, int line) {}

  /**
   * What the file says: each option's value by its key, and the mix's members (empty when it lists
   * none).
   */
  record Contents(
      Map<String, Located> options, List<MixSpec.Member> members, List<String> problems) {}

  /**
   * Reads {@code file} ({@code shown} as the user named it) and sets every option of {@code run} it
   * names that the command line did not give; returns the mix's members. Every problem of the file
   * is thrown at once, each with its line.
   */
  static List<MixSpec.Member> apply(Path file, String shown, CommandSpec run) {
    Contents contents = read(file, shown, run);
    List<String> problems = new ArrayList<>(contents.problems());
    CommandLine.ParseResult given = run.commandLine().getParseResult();
    for (var e : contents.options().entrySet()) {
      OptionSpec mine = run.findOption("--" + e.getKey());
      String where = shown + " line " + e.getValue().line() + ": " + e.getKey();
      List<String> args;
      try {
        args = args(mine, e.getValue().value());
      } catch (IllegalArgumentException bad) {
        problems.add(where + ": " + OutsideText.forTerminal(bad.getMessage()));
        continue;
      }
      // Parsed by a fresh command of the same class, so the option's own converter and checks
      // apply, and the error names the line.
      CommandLine fresh = new CommandLine(new RunCommand());
      try {
        fresh.parseArgs(args.toArray(String[]::new));
      } catch (CommandLine.ParameterException bad) {
        problems.add(where + ": " + OutsideText.forTerminal(bad.getMessage()));
        continue;
      }
      Object value = fresh.getCommandSpec().findOption("--" + e.getKey()).getValue();
      if (!given.hasMatchedOption(mine)) {
        mine.setValue(value);
      } else if (value instanceof Map<?, ?> fromFile
          && mine.getValue() instanceof Map<?, ?> fromCommandLine) {
        Map<Object, Object> merged = new LinkedHashMap<>(fromFile);
        merged.putAll(fromCommandLine);
        mine.setValue(merged);
      }
    }
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("\n", problems));
    return contents.members();
  }

  /** The command-line words that give {@code option} the file's {@code value}. */
  private static List<String> args(OptionSpec option, Object value) {
    String name = option.longestName();
    List<String> args = new ArrayList<>();
    boolean flag = option.arity().max() == 0;
    switch (value) {
      case Boolean b when flag -> {
        if (b) args.add(name);
      }
      case Map<?, ?> map when Map.class.isAssignableFrom(option.type()) ->
          map.forEach(
              (k, v) -> {
                if (v instanceof Map<?, ?> || v instanceof List<?>)
                  throw new IllegalArgumentException(
                      OutsideText.forTerminal(String.valueOf(k))
                          + " takes one value, not a list or mapping");
                args.add(name);
                args.add(k + "=" + v);
              });
      case List<?> list when !flag -> {
        for (Object v : list)
          if (v instanceof Map<?, ?> || v instanceof List<?>)
            throw new IllegalArgumentException("give a list of values");
        if (option.isMultiValue()) {
          for (Object v : list) {
            args.add(name);
            args.add(String.valueOf(v));
          }
        } else {
          args.add(name);
          args.add(String.join(",", list.stream().map(String::valueOf).toList()));
        }
      }
      case Map<?, ?> map ->
          throw new IllegalArgumentException(
              "takes " + (flag ? "true or false" : "a value") + ", not a mapping");
      case List<?> list -> throw new IllegalArgumentException("takes true or false, not a list");
      default -> {
        if (flag)
          throw new IllegalArgumentException(
              "takes true or false, not '" + OutsideText.forTerminal(String.valueOf(value)) + "'");
        if (value == null)
          throw new IllegalArgumentException("has no value; give one or leave the key out");
        args.add(name);
        args.add(String.valueOf(value));
      }
    }
    return args;
  }

  /**
   * The file's keys checked against {@code run}'s options and its members read, with every problem
   * found, each with its line.
   */
  static Contents read(Path file, String shown, CommandSpec run) {
    Located top;
    try (JsonParser parser = new YAMLFactory().createParser(file.toFile())) {
      JsonToken first = parser.nextToken();
      if (first == null)
        throw new IllegalArgumentException(
            shown + " is empty; give run's options as YAML, e.g. 'rates: 400'");
      top = value(parser);
    } catch (IllegalArgumentException twice) {
      throw new IllegalArgumentException(shown + " " + twice.getMessage(), twice);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      throw new IllegalArgumentException(
          shown
              + (at == null ? "" : " line " + at.getLineNr())
              + " is not valid YAML: "
              + OutsideText.forTerminal(e.getOriginalMessage()),
          e);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "--scenario " + shown + ": cannot read it (" + e.getMessage() + ")", e);
    }
    if (!(top.value() instanceof Map<?, ?> map)) {
      throw new IllegalArgumentException(
          shown
              + " line "
              + top.line()
              + ": give run's options as a mapping of keys, e.g. 'rates: 400'");
    }
    List<String> problems = new ArrayList<>();
    List<String> known = new ArrayList<>(List.of(MEMBERS));
    for (OptionSpec o : run.options()) {
      String longest = o.longestName();
      if (longest.startsWith("--") && !REFUSED.contains(longest.substring(2)))
        known.add(longest.substring(2));
    }
    Map<String, Located> options = new LinkedHashMap<>();
    List<MixSpec.Member> members = new ArrayList<>();
    for (var e : map.entrySet()) {
      String key = (String) e.getKey();
      Located v = (Located) e.getValue();
      OptionSpec option = key.startsWith("-") ? null : run.findOption("--" + key);
      if (key.equals(MEMBERS)) {
        members = members(shown, v, problems);
      } else if (option == null
          || REFUSED.contains(key)
          || !option.longestName().startsWith("--")) {
        problems.add(
            shown
                + " line "
                + v.line()
                + ": unknown key '"
                + OutsideText.forTerminal(key)
                + "'"
                + Suggestions.didYouMean(key, known)
                + "; a scenario's keys are run's long options without their dashes (see 'pkibench run --help') and 'members'");
      } else {
        options.put(key, new Located(plain(v.value()), v.line()));
      }
    }
    if (!members.isEmpty() && options.containsKey("mix")) {
      problems.add(
          shown
              + " line "
              + options.get("mix").line()
              + ": give the mix once, as 'members' or as 'mix', not both");
    }
    return new Contents(options, members, problems);
  }

  private static List<MixSpec.Member> members(String shown, Located list, List<String> problems) {
    List<MixSpec.Member> members = new ArrayList<>();
    if (!(list.value() instanceof List<?> entries) || entries.isEmpty()) {
      problems.add(
          shown
              + " line "
              + list.line()
              + ": members: give a list, each with name, weight and params, e.g. '- {name: sign, weight: 7}'");
      return members;
    }
    for (Object o : entries) {
      Located entry = (Located) o;
      String at = shown + " line " + entry.line() + ": members";
      if (!(entry.value() instanceof Map<?, ?> fields)) {
        problems.add(at + ": each member is a mapping with name, weight and params");
        continue;
      }
      String name = null, label = null;
      Double weight = null;
      Map<String, String> params = new LinkedHashMap<>();
      for (var f : fields.entrySet()) {
        String key = (String) f.getKey();
        Located v = (Located) f.getValue();
        String here = shown + " line " + v.line() + ": members";
        Object plain = plain(v.value());
        switch (key) {
          case "name" -> name = plain instanceof String s ? s : null;
          case "label" -> label = plain == null ? null : String.valueOf(plain);
          case "weight" -> {
            weight = plain == null ? null : MixSpec.weight(String.valueOf(plain));
            if (weight == null) {
              problems.add(
                  here
                      + ": the weight ('"
                      + OutsideText.forTerminal(String.valueOf(plain))
                      + "') is not a number; give a positive number, e.g. weight: 3");
            } else if (!(weight > 0)) {
              problems.add(
                  here
                      + ": the weight is "
                      + plain
                      + "; a weight must be above 0 (leave the member out to run none of it)");
            }
          }
          case "params" -> {
            if (plain instanceof Map<?, ?> given) {
              given.forEach(
                  (k, pv) -> {
                    if (pv instanceof Map<?, ?> || pv instanceof List<?> || pv == null)
                      problems.add(
                          here
                              + ": params."
                              + OutsideText.forTerminal(String.valueOf(k))
                              + " takes one value");
                    else params.put(String.valueOf(k), String.valueOf(pv));
                  });
            } else {
              problems.add(here + ": params is a mapping, e.g. params: {alg: ecdsa-p256}");
            }
          }
          default ->
              problems.add(
                  here
                      + ": unknown key '"
                      + OutsideText.forTerminal(key)
                      + "'"
                      + Suggestions.didYouMean(key, MEMBER_KEYS)
                      + "; a member has "
                      + String.join(", ", MEMBER_KEYS));
        }
      }
      if (name == null || name.isBlank()) {
        problems.add(at + ": a member needs its workload's name, e.g. name: sign");
        continue;
      }
      if (weight == null || !(weight > 0)) continue;
      members.add(new MixSpec.Member(name, label, weight, params));
    }
    return members;
  }

  /** The value with its lines dropped: maps, lists and scalars as Java objects. */
  private static Object plain(Object value) {
    return switch (value) {
      case Located l -> plain(l.value());
      case Map<?, ?> m -> {
        Map<Object, Object> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, plain(v)));
        yield out;
      }
      case List<?> list -> list.stream().map(ScenarioFile::plain).toList();
      case null -> null;
      default -> value;
    };
  }

  /** The value at the parser's current token, each nested value with its line. */
  private static Located value(JsonParser p) throws IOException {
    int line = p.currentTokenLocation().getLineNr();
    JsonToken t = p.currentToken();
    return switch (t) {
      case START_OBJECT -> {
        Map<String, Object> map = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          int keyLine = p.currentTokenLocation().getLineNr();
          p.nextToken();
          Located v = value(p);
          Object before = map.put(key, new Located(v.value(), keyLine));
          if (before != null) {
            throw new IllegalArgumentException(
                "line "
                    + keyLine
                    + ": "
                    + OutsideText.forTerminal(key)
                    + " is given twice (first on line "
                    + ((Located) before).line()
                    + "); give each key once");
          }
        }
        yield new Located(map, line);
      }
      case START_ARRAY -> {
        List<Object> list = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) list.add(value(p));
        yield new Located(list, line);
      }
      case VALUE_TRUE -> new Located(Boolean.TRUE, line);
      case VALUE_FALSE -> new Located(Boolean.FALSE, line);
      case VALUE_NULL -> new Located(null, line);
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> new Located(p.getText(), line);
      default -> new Located(p.getText(), line);
    };
  }
}
