package io.pkibench.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;

/** Everything a command may take from the outside world, so that tests run commands in-process. */
public record CliContext(
    PrintWriter out, PrintWriter err, Map<String, String> env, InstantSource clock, Path workingDir, boolean terminal) {

  public static CliContext system() {
    return new CliContext(
        new PrintWriter(System.out, true),
        new PrintWriter(System.err, true),
        System.getenv(),
        InstantSource.system(),
        Path.of("").toAbsolutePath(),
        System.console() != null && System.console().isTerminal());
  }

  /** The test PKI directory: {@code --pki}, else {@code $PKIBENCH_PKI}, else {@code ~/.pkibench/pki}. */
  public Path pkiDir(Path flag) {
    if (flag != null) return workingDir.resolve(flag);
    String fromEnv = env.get("PKIBENCH_PKI");
    if (fromEnv != null && !fromEnv.isBlank()) return workingDir.resolve(fromEnv);
    return Path.of(env.getOrDefault("HOME", workingDir.toString()), ".pkibench", "pki");
  }

  public Path resolve(Path p) {
    return workingDir.resolve(p);
  }
}
