package io.pkibench.cli;

import java.io.Console;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;

/** Everything a command may take from the outside world, so that tests run commands in-process. */
public record CliContext(
    PrintWriter out,
    PrintWriter err,
    Map<String, String> env,
    InstantSource clock,
    Path workingDir,
    boolean terminal) {

  public static CliContext system() {
    return new CliContext(
        new PrintWriter(System.out, true),
        new PrintWriter(System.err, true),
        System.getenv(),
        InstantSource.system(),
        Path.of("").toAbsolutePath(),
        isTerminal());
  }

  /**
   * JDK 22+ returns a Console even when redirected and says so through isTerminal(); JDK 21 returns
   * null then.
   */
  private static boolean isTerminal() {
    Console console = System.console();
    if (console == null) return false;
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
    } catch (ReflectiveOperationException e) {
      return true;
    }
  }

  /**
   * The test PKI directory: {@code --pki}, else {@code $PKIBENCH_PKI}, else {@code
   * ~/.pkibench/pki}. One named by {@code --pki} that holds no PKI is made only where a slip of the
   * keyboard is unlikely: its parent must exist (a mistyped path is refused, naming 'pki init').
   */
  public Path pkiDir(Path flag) {
    if (flag != null) {
      Path dir = workingDir.resolve(flag);
      Path parent = dir.toAbsolutePath().getParent();
      if (!Files.exists(dir.resolve("pki.json")) && parent != null && !Files.isDirectory(parent)) {
        throw new IllegalArgumentException(
            "--pki "
                + flag
                + ": no test PKI there, and "
                + parent
                + " does not exist; check the path,"
                + " or make one there with 'pkibench pki init --dir "
                + flag
                + "'");
      }
      return dir;
    }
    String fromEnv = env.get("PKIBENCH_PKI");
    if (fromEnv != null && !fromEnv.isBlank()) return workingDir.resolve(fromEnv);
    return Path.of(env.getOrDefault("HOME", workingDir.toString()), ".pkibench", "pki");
  }

  /** This context with {@code out} printing elsewhere (stderr, when stdout carries a result). */
  public CliContext withOut(PrintWriter to) {
    return new CliContext(to, err, env, clock, workingDir, terminal);
  }

  public Path resolve(Path p) {
    return workingDir.resolve(p);
  }
}
