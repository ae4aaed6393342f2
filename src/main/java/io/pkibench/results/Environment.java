package io.pkibench.results;

import java.time.Instant;
import java.util.List;

/** Where and how a run was made, so that anyone can tell whether two results are comparable. */
public record Environment(
    String toolVersion,
    String commit,
    String jdk,
    String os,
    String cpuModel,
    int cores,
    long memoryBytes,
    List<String> providers,
    String commandLine,
    Instant startedAt) {

  public Environment {
    providers = List.copyOf(providers);
  }
}
