package io.pkibench.study;

import java.util.List;

/**
 * A service a study needs, started as its own JVM: {@code pkibench serve ARGS… --port N}, where N
 * is a free loopback port the runner picks once and keeps across restarts (so a step's target stays
 * valid). {@code scheme} is how its URL starts ({@code https}, {@code http}); no secret ever goes
 * in {@code args} (a PIN travels by file or environment). An argument may hold another service's
 * port as {@code {port:NAME}} (two services that call each other, e.g. PEC providers), filled in at
 * start. {@code jvmOptions} go to that service's JVM alone, before the program's arguments (the ssl
 * study's legacy TLS security properties: only its own service and client JVMs get them).
 */
public record ServiceSpec(String name, List<String> args, String scheme, List<String> jvmOptions) {
  public ServiceSpec {
    args = List.copyOf(args);
    jvmOptions = List.copyOf(jvmOptions);
    if (args.contains("--port"))
      throw new IllegalArgumentException(name + ": the runner chooses --port; leave it out");
  }

  public ServiceSpec(String name, List<String> args, String scheme) {
    this(name, args, scheme, List.of());
  }
}
