package io.pkibench.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;

/**
 * pkibench's command line, run in the test's JVM in {@code dir} as a user types it; what it prints
 * is kept for the assertions.
 */
final class InThisJvm {
  private InThisJvm() {}

  /**
   * The exit code of {@code pkibench ARGS}, its standard output and error appended to {@code out}
   * and {@code err}.
   */
  static int run(Path dir, StringWriter out, StringWriter err, String... args) {
    return Main.execute(
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            InstantSource.system(),
            dir,
            false),
        args);
  }
}
