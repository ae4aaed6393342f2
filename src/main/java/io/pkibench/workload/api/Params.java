package io.pkibench.workload.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A workload's parameters after validation: every declared parameter has a value, defaults filled
 * in.
 */
public final class Params {
  private final Map<String, String> values;

  private Params(Map<String, String> values) {
    this.values = values;
  }

  /**
   * Validates {@code given} against {@code specs}; every problem is reported, naming {@code -p} and
   * the fix.
   */
  public static Params resolve(String workload, List<ParamSpec> specs, Map<String, String> given) {
    List<String> problems = new ArrayList<>();
    Map<String, String> values = new TreeMap<>();
    for (ParamSpec spec : specs) values.put(spec.name(), spec.defaultValue());
    for (var e : given.entrySet()) {
      ParamSpec spec =
          specs.stream().filter(s -> s.name().equals(e.getKey())).findFirst().orElse(null);
      if (spec == null) {
        problems.add(
            "-p "
                + e.getKey()
                + ": '"
                + workload
                + "' has no such parameter; it takes "
                + (specs.isEmpty()
                    ? "none"
                    : String.join(", ", specs.stream().map(ParamSpec::name).toList())));
      } else if (!spec.allowed().isEmpty() && !spec.allowed().contains(e.getValue())) {
        problems.add(
            "-p "
                + e.getKey()
                + "="
                + e.getValue()
                + ": use one of "
                + String.join(", ", spec.allowed()));
      } else {
        values.put(e.getKey(), e.getValue());
      }
    }
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("\n", problems));
    return new Params(values);
  }

  public String get(String name) {
    String v = values.get(name);
    if (v == null) throw new IllegalStateException("parameter " + name + " was not declared");
    return v;
  }

  /** A size such as {@code 1024}, {@code 137k} or {@code 1m} (binary multiples). */
  public int bytes(String name) {
    int n = parseBytes(get(name));
    if (n < 0)
      throw new IllegalArgumentException(
          "-p " + name + "=" + get(name) + ": write a size in bytes, like 1024, 137k or 1m");
    return n;
  }

  /**
   * {@code 1024}, {@code 137k}, {@code 1m} (binary multiples) as bytes; -1 when it is not such a
   * size.
   */
  public static int parseBytes(String text) {
    String v = text.trim().toLowerCase(Locale.ROOT);
    long multiplier = 1;
    if (v.endsWith("k")) multiplier = 1024;
    else if (v.endsWith("m")) multiplier = 1024 * 1024;
    String digits = multiplier == 1 ? v : v.substring(0, v.length() - 1);
    try {
      long n = Long.parseLong(digits) * multiplier;
      if (n >= 0 && n <= Integer.MAX_VALUE - 64) return (int) n;
    } catch (NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  /** Every value, defaults included: what the result file records. */
  public Map<String, String> asMap() {
    return Map.copyOf(values);
  }
}
