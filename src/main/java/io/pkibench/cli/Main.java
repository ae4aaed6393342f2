package io.pkibench.cli;

import picocli.CommandLine;

/** The process entry point: the only place that touches System streams, the environment and exit. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(execute(CliContext.system(), args));
  }

  /** Runs a command line against a context; tests call this in-process. */
  public static int execute(CliContext context, String... args) {
    CommandLine cli = new CommandLine(new PkibenchCommand(context));
    cli.setOut(context.out());
    cli.setErr(context.err());
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
      commandLine.getErr().println("pkibench: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
      return e instanceof IllegalArgumentException ? ExitCodes.USAGE : ExitCodes.RUN_FAILED;
    });
    int code = cli.execute(args);
    context.out().flush();
    context.err().flush();
    return code;
  }
}
