package io.pkibench.workload.api;

import java.util.List;

/**
 * A {@code -p name=value} parameter a workload accepts: its default, and the values allowed (empty
 * = free).
 */
public record ParamSpec(
    String name, String defaultValue, List<String> allowed, String description) {
  /** The parameter that names the service a client workload calls ({@code --target}). */
  public static final String TARGET = "target";

  public ParamSpec {
    allowed = List.copyOf(allowed);
  }

  public static ParamSpec choice(
      String name, String defaultValue, String description, String... allowed) {
    return new ParamSpec(name, defaultValue, List.of(allowed), description);
  }

  public static ParamSpec free(String name, String defaultValue, String description) {
    return new ParamSpec(name, defaultValue, List.of(), description);
  }
}
