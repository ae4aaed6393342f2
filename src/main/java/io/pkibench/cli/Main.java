package io.pkibench.cli;

import java.io.PrintWriter;
import java.util.OptionalInt;
import picocli.CommandLine;

/**
 * The process entry point: the only place that touches System streams, the environment and exit.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    namedMailStreams();
    OptionalInt relaunched = P11KitLaunch.runWithServerAddress(args, System.getenv(), System.err);
    System.exit(
        relaunched.isPresent() ? relaunched.getAsInt() : execute(CliContext.system(), args));
  }

  /**
   * Jakarta Mail 2.1 looks its stream provider up with a ServiceLoader on every encoder, decoder
   * and multipart it makes (jakartaee/mail-api#861), reading jar files each time: half of a PEC
   * document's cost, measured. Naming the provider makes the lookup a class load by name. A
   * JVM-wide setting, so it is made here, at the process's one entry, unless the user set it.
   */
  static void namedMailStreams() {
    if (System.getProperty(MAIL_STREAMS) == null)
      System.setProperty(MAIL_STREAMS, "org.eclipse.angus.mail.util.MailStreamProvider");
  }

  private static final String MAIL_STREAMS = "jakarta.mail.util.StreamProvider";

  /**
   * The command tree as every reader of its help sees it: the terminal, the man pages, the
   * completion scripts and the reference in docs/.
   */
  static CommandLine commandLine(CliContext context) {
    return HelpLayout.apply(new CommandLine(new PkibenchCommand(context)));
  }

  /** Runs a command line against a context; tests call this in-process. */
  public static int execute(CliContext context, String... args) {
    CommandLine cli = commandLine(context);
    cli.setOut(context.out());
    cli.setErr(context.err());
    cli.setCaseInsensitiveEnumValuesAllowed(true);
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          commandLine
              .getErr()
              .println("pkibench: " + (e.getMessage() == null ? e.toString() : e.getMessage()));
          return e instanceof IllegalArgumentException ? ExitCodes.USAGE : ExitCodes.RUN_FAILED;
        });
    // A bad flag gets its message and where to read more, not the command's whole usage after it:
    // the message is the
    // part that says what to change, and forty lines of flags pushed it off the screen.
    cli.setParameterExceptionHandler(
        (e, arguments) -> {
          CommandLine command = e.getCommandLine();
          PrintWriter err = command.getErr();
          err.println(e.getMessage());
          CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
          err.println(
              "see '"
                  + command.getCommandSpec().qualifiedName()
                  + " --help' for every flag and an example");
          return command.getExitCodeExceptionMapper() != null
              ? command.getExitCodeExceptionMapper().getExitCode(e)
              : command.getCommandSpec().exitCodeOnInvalidInput();
        });
    int code = cli.execute(args);
    context.out().flush();
    context.err().flush();
    return code;
  }
}
