package io.pkibench.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code -o/--out} as every command that writes a result reads it: a file, or {@code -} for stdout.
 * With {@code -} stdout carries the JSON alone, so a pipe reads it whole: everything else the
 * command prints (progress, tables, "saved …") goes to stderr. The file is still written where it
 * would be without {@code -o} (a run saves after every level, so a stopped run keeps its levels),
 * and copied to stdout at the end.
 */
final class OutFlag {
  private OutFlag() {}

  static final String STDOUT = "-";

  static boolean stdout(Path out) {
    return out != null && out.toString().equals(STDOUT);
  }

  /** The file {@code out} names, or null for none or stdout (the command's default then). */
  static Path file(CliContext ctx, Path out) {
    return out == null || stdout(out) ? null : ctx.resolve(out);
  }

  /** The context a command prints its human lines through: stderr when the JSON owns stdout. */
  static CliContext human(CliContext ctx, Path out) {
    return stdout(out) ? ctx.withOut(ctx.err()) : ctx;
  }

  /**
   * The result written at {@code file} onto the real stdout (of {@code ctx}, the context before
   * {@link #human}), when {@code -o -} asked for it.
   */
  static void copyIfStdout(CliContext ctx, Path out, Path file) throws IOException {
    if (!stdout(out) || file == null || !Files.isRegularFile(file)) return;
    String json = Files.readString(file);
    ctx.out().print(json.endsWith("\n") ? json : json + "\n");
    ctx.out().flush();
    ctx.err().println("the result is also saved in " + file);
  }
}
