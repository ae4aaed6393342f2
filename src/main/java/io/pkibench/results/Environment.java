package io.pkibench.results;

import io.pkibench.text.CommandLineSecrets;
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

  /**
   * The command line is kept without the secrets a URL in it carries (a --metrics receiver's
   * password or key), here where every run, merge and study builds its environment: the result
   * file, the interval log's header and the report all take it from this record.
   */
  public Environment {
    providers = List.copyOf(providers);
    commandLine = CommandLineSecrets.redacted(commandLine);
  }
}
