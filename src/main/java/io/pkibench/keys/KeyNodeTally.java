package io.pkibench.keys;

import java.time.Instant;
import java.util.List;

/**
 * A key-server node behind a key source and its share of the calls so far: the key source's own
 * account, which the session copies into the result file (keys know nothing of that format).
 */
public record KeyNodeTally(String node, int weight, long calls, long failures, boolean upAtEnd, List<Transition> transitions) {
  public KeyNodeTally {
    transitions = List.copyOf(transitions);
  }

  /** The node taken out ({@code up} false) or rejoining, when the client saw it, and why. */
  public record Transition(Instant at, boolean up, String why) {}
}
