package io.pkibench.study;

import java.util.List;

/**
 * A service a study needs, started as its own JVM: {@code pkibench serve ARGS… --port N}, where N is a
 * free loopback port the runner picks once and keeps across restarts (so a step's target stays
 * valid). {@code scheme} is how its URL starts ({@code https}, {@code http}); no secret ever goes in
 * {@code args} (a PIN travels by file or environment). An argument may hold another service's port as
 * {@code {port:NAME}} (two services that call each other, e.g. PEC providers), filled in at start.
 */
public record ServiceSpec(String name, List<String> args, String scheme) {
  public ServiceSpec {
    args = List.copyOf(args);
    if (args.contains("--port")) throw new IllegalArgumentException(name + ": the runner chooses --port; leave it out");
  }
}
