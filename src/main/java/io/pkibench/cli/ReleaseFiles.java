package io.pkibench.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

/**
 * Writes what the release archive carries besides the jar and docs/, generated from the command
 * tree at build time ({@code ./mvnw package} runs it): the shell completion scripts and the man
 * pages. Usage: {@code ReleaseFiles DIR VERSION}.
 */
public final class ReleaseFiles {
  private ReleaseFiles() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2)
      throw new IllegalArgumentException("usage: ReleaseFiles OUTPUT_DIR VERSION");
    write(Path.of(args[0]), args[1]);
  }

  static void write(Path dir, String version) throws IOException {
    CommandLine cli = Main.commandLine(quietContext());
    CommandSpec root = cli.getCommandSpec();
    Path completion = Files.createDirectories(dir.resolve("completion"));
    Files.writeString(
        completion.resolve("pkibench.bash"),
        CompletionCommand.script(root, CompletionCommand.Shell.bash),
        StandardCharsets.UTF_8);
    Files.writeString(
        completion.resolve("pkibench.zsh"),
        CompletionCommand.script(root, CompletionCommand.Shell.zsh),
        StandardCharsets.UTF_8);
    Path man = Files.createDirectories(dir.resolve("man").resolve("man1"));
    for (ManPages.Page page : ManPages.of(cli, version))
      Files.writeString(man.resolve(page.fileName()), page.roff(), StandardCharsets.UTF_8);
  }

  /** Nothing runs: the commands are only described, so their output goes nowhere. */
  static CliContext quietContext() {
    return new CliContext(
        new PrintWriter(new StringWriter()),
        new PrintWriter(new StringWriter()),
        Map.of(),
        InstantSource.system(),
        Path.of("").toAbsolutePath(),
        false);
  }
}
