package io.pkibench.plan;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A traffic mix run as one workload: each operation draws one of {@code members} with probability
 * weight / sum of weights (by arrival in open loop, by operation in closed loop), the same draws
 * for the same {@code seed}. A member's {@code label} names it in the result (its workload name
 * unless two members run one workload with different parameters); its {@code params} are what was
 * given to it, shared ones included.
 */
public record MixSpec(List<Member> members, long seed) {

  public record Member(
      String name,
      String label,
      double weight,
      @JsonInclude(JsonInclude.Include.ALWAYS) Map<String, String> params) {
    public Member {
      label = label == null || label.isBlank() ? name : label;
      params = params == null ? Map.of() : Collections.unmodifiableSortedMap(new TreeMap<>(params));
    }

    public Member withParams(Map<String, String> newParams) {
      return new Member(name, label, weight, newParams);
    }
  }

  public MixSpec {
    members = List.copyOf(members);
  }

  /** The share of operations asked of member {@code i}: its weight over the sum of weights. */
  public double askedShare(int i) {
    double sum = 0;
    for (Member m : members) sum += m.weight();
    return members.get(i).weight() / sum;
  }

  /**
   * {@code NAME=WEIGHT,...} as {@code --mix} takes it; every bad entry is reported at once, naming
   * the flag and the fix. Names are checked against the catalog later, where a suggestion can be
   * made.
   */
  public static List<Member> parse(String flag, String text) {
    List<String> problems = new ArrayList<>();
    List<Member> members = new ArrayList<>();
    if (text == null || text.isBlank())
      throw new IllegalArgumentException(flag + ": give members and weights, e.g. sign=7,verify=3");
    for (String entry : text.split(",", -1)) {
      String item = entry.trim();
      int eq = item.lastIndexOf('=');
      if (item.isEmpty() || eq <= 0) {
        problems.add(flag + ": '" + item + "' is not NAME=WEIGHT; write e.g. sign=7,verify=3");
        continue;
      }
      String name = item.substring(0, eq).trim();
      String weight = item.substring(eq + 1).trim();
      Double w = weight(weight);
      if (w == null) {
        problems.add(
            flag
                + ": the weight of "
                + name
                + " ('"
                + weight
                + "') is not a number; give a positive number, e.g. "
                + name
                + "=3");
        continue;
      }
      members.add(new Member(name, name, w, Map.of()));
    }
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("\n", problems));
    return members;
  }

  /**
   * A weight as written, or null when it is not a finite decimal number (NaN, Infinity and hex are
   * not weights).
   */
  public static Double weight(String text) {
    if (!text.matches("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?")) return null;
    double w = Double.parseDouble(text);
    return Double.isFinite(w) ? w : null;
  }

  /**
   * Every problem of the mix itself (weights, labels), each naming {@code flag}; the members'
   * workloads are the catalog's to check.
   */
  public List<String> problems(String flag) {
    List<String> problems = new ArrayList<>();
    if (members.isEmpty())
      problems.add(flag + ": a mix needs at least one member, e.g. sign=7,verify=3");
    Set<String> labels = new HashSet<>();
    for (Member m : members) {
      if (!(m.weight() > 0) || !Double.isFinite(m.weight())) {
        problems.add(
            flag
                + ": the weight of "
                + m.label()
                + " is "
                + format(m.weight())
                + "; a weight must be above 0 (leave the member out to run none of it)");
      }
      if (!labels.add(m.label())) {
        problems.add(
            flag
                + ": "
                + m.label()
                + " is in the mix twice; give each member once, or give the second a distinct label (scenario: label:)");
      }
    }
    return problems;
  }

  private static String format(double w) {
    return w == Math.rint(w) && Math.abs(w) < 1e15 ? Long.toString((long) w) : Double.toString(w);
  }
}
