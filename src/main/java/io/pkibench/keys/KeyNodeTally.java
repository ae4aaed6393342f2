package io.pkibench.keys;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A key-server node behind a key source and its share of the calls so far: the key source's own
 * account, which the session copies into the result file (keys know nothing of that format).
 */
public record KeyNodeTally(
    String node,
    int weight,
    long calls,
    long failures,
    boolean upAtEnd,
    List<Transition> transitions) {
  public KeyNodeTally {
    transitions = List.copyOf(transitions);
  }

  /** The node taken out ({@code up} false) or rejoining, when the client saw it, and why. */
  public record Transition(Instant at, boolean up, String why) {}

  /**
   * The tallies of several clients of the same nodes (forked series, each its own JVM) as one:
   * calls and failures added per node, every transition kept in order of time, up at the end as the
   * last client saw it.
   */
  public static List<KeyNodeTally> sum(List<List<KeyNodeTally>> clients) {
    Map<String, KeyNodeTally> byNode = new LinkedHashMap<>();
    for (List<KeyNodeTally> client : clients) {
      for (KeyNodeTally n : client) {
        byNode.merge(
            n.node(),
            n,
            (a, b) -> {
              List<Transition> both = new ArrayList<>(a.transitions());
              both.addAll(b.transitions());
              both.sort(Comparator.comparing(Transition::at));
              return new KeyNodeTally(
                  a.node(),
                  a.weight(),
                  a.calls() + b.calls(),
                  a.failures() + b.failures(),
                  b.upAtEnd(),
                  both);
            });
      }
    }
    return List.copyOf(byNode.values());
  }
}
