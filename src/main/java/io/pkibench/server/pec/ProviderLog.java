package io.pkibench.server.pec;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The provider's log: each line it says begins {@code pec DOMAIN: }, so that two providers sharing
 * a terminal are told apart; a problem that repeats (a full disk, for every item every round) is
 * said once per streak.
 */
final class ProviderLog {
  private final String prefix;
  private final Consumer<String> out;
  private final Map<String, String> saidProblems = new ConcurrentHashMap<>();

  ProviderLog(String domain, Consumer<String> out) {
    this.prefix = "pec " + domain + ": ";
    this.out = out;
  }

  /** One line, with the provider's prefix. */
  void say(String line) {
    out.accept(prefix + line);
  }

  /** The log as it is, without the prefix: for what names its source itself. */
  Consumer<String> unprefixed() {
    return out;
  }

  /**
   * Says {@code problem} once until it changes; null marks the end of the streak (said as such when
   * there was one).
   */
  void sayOnce(String topic, String problem) {
    String before = problem == null ? saidProblems.remove(topic) : saidProblems.put(topic, problem);
    if (problem != null && !problem.equals(before)) say(problem);
    if (problem == null && before != null) say("the spool takes work again (" + topic + ")");
  }

  /** Ends the streak of {@code topic}, when there is one. */
  void ended(String topic) {
    if (saidProblems.containsKey(topic)) sayOnce(topic, null);
  }
}
