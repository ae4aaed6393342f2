package io.pkibench.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

@Command(
    name = "pkibench",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description =
        "Sizes cryptographic services: throughput, latency percentiles, CPU cost and scalability.",
    subcommands = {
      RunCommand.class,
      StudyCommand.class,
      ReportCommand.class,
      CompareCommand.class,
      FitCommand.class,
      MergeCommand.class,
      ListCommand.class,
      PkiCommand.class,
      RsfnCommand.class,
      PecCommand.class,
      ServeCommand.class,
      SeriesCommand.class,
      TlsAttemptCommand.class,
      CompletionCommand.class,
      HelpCommand.class
    },
    footer = {
      "",
      "Example:",
      "  pkibench run sign -p alg=rsa2048 --concurrency 1..8 --warmup 2x5s --measure 5x5s --out run.json",
      "  pkibench report run.json"
    })
public final class PkibenchCommand implements Runnable {
  final CliContext context;
  @Spec CommandSpec spec;

  PkibenchCommand(CliContext context) {
    this.context = context;
  }

  /** Bare {@code pkibench}: what {@code --help} shows, every command with its summary. */
  @Override
  public void run() {
    spec.commandLine().usage(context.out());
  }
}
