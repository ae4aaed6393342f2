package io.pkibench.cli;

import io.pkibench.plan.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;

/**
 * Every problem with a command's flags, collected before anything starts and reported at once (exit
 * 2), each naming its flag and the fix. The checks read a flag and say what is wrong; a value that
 * fails gives back a stand-in so the checks after it still run.
 */
final class FlagProblems {
  private final List<String> problems = new ArrayList<>();

  /** A problem worded by its caller; it names its flag. */
  void add(String problem) {
    problems.add(problem);
  }

  void addAll(Collection<String> more) {
    problems.addAll(more);
  }

  /** Adds "{@code flag value}: {@code fix}" unless {@code ok}. */
  void require(boolean ok, String flag, Object value, String fix) {
    if (!ok) problems.add(flag + " " + value + ": " + fix);
  }

  /**
   * {@code value} from {@code least} to {@code most}, else "{@code flag value}: give least to
   * most".
   */
  void within(String flag, long value, long least, long most) {
    require(value >= least && value <= most, flag, value, "give " + least + " to " + most);
  }

  /**
   * {@code text} as a duration (500ms, 10s, 5m, 1h), else {@code fallback} and a problem: {@code
   * said} (how the message names the flag, e.g. "--hang-grace" or "--wait 5x"), then why.
   */
  Duration duration(String said, String text, Duration fallback) {
    try {
      return Durations.parse(text);
    } catch (IllegalArgumentException e) {
      problems.add(said + ": " + e.getMessage());
      return fallback;
    }
  }

  /**
   * {@code text} as a duration of at least {@code least}; shorter: "{@code flag text}: give at
   * least LEAST, e.g. EXAMPLE". A bad or short one gives {@code fallback}.
   */
  Duration durationOfAtLeast(
      String flag, String text, Duration least, String example, Duration fallback) {
    Duration d = duration(flag + " " + text, text, null);
    if (d == null) return fallback;
    if (d.compareTo(least) >= 0) return d;
    problems.add(
        flag + " " + text + ": give at least " + Durations.format(least) + ", e.g. " + example);
    return fallback;
  }

  /**
   * The list itself, for the checks of other layers and older helpers that add their problems to a
   * {@code List<String>} (RunThresholds.parse, a study's own checks): one list, one refusal.
   */
  List<String> sink() {
    return problems;
  }

  boolean isEmpty() {
    return problems.isEmpty();
  }

  List<String> list() {
    return List.copyOf(problems);
  }

  /** Refuses the command line with every problem, one a line, when there is any. */
  void throwIfAny(CommandLine commandLine) {
    if (!problems.isEmpty()) throw new ParameterException(commandLine, String.join("\n", problems));
  }
}
