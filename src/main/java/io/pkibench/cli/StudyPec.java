package io.pkibench.cli;

import io.pkibench.study.PecStudy;
import io.pkibench.study.Study;
import io.pkibench.workload.pec.PauseRange;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "pec",
    mixinStandardHelpOptions = true,
    header =
        "Study 4: PEC certified e-mail: signing and verification paths, two providers over SMTP, a reliability check.",
    description = {
      "Study 4: PEC certified e-mail (OpenPEC). The signing path (acceptance receipt + transport envelope) and the verification path",
      "(envelope verified + taking-charge and delivery receipts) in this JVM at 1 to 16 workers; then two providers (serve pec, each its own",
      "JVM, CPU by pid) mailing each other over SMTP, 56-80 KB messages 2:3 as the original's 800 and 1,200; then the reliability check:",
      "one acceptance, envelope, taking-charge and delivery receipt per message and recipient, ending 'reliability: N messages, L lost, D duplicated'."
    },
    footer = {
      "",
      "Examples:",
      "  pkibench study pec --quick                        # about 2 minutes",
      "  pkibench study pec --html pec.html                 # 5 s runs, a 100 s flow of 2,000 messages: about 7 minutes",
      "  pkibench study pec --spool /mnt/ssd/pec-spool      # the spools on the disk to size (the original found the disk mattered)",
      "  pkibench study pec --save-samples pec-samples/     # one of each signed document as .eml, chain.pem, verify.sh (openssl)"
    })
final class StudyPec extends StudySubcommand {
  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description =
          "keep the providers' mailboxes, spools and the sent list here; emptied at the start of each run, so a new or empty directory"
              + " (default: a temporary directory, named at the start and removed at the end)")
  Path dir;

  /** The temporary directory this run made for want of --dir, removed when it ends. */
  private Path temporary;

  @Option(
      names = "--spool",
      paramLabel = "DIR",
      description =
          "put the two spools here instead of DIR/spool, e.g. on another disk; emptied at each run too")
  Path spool;

  @Option(
      names = "--flow-rate",
      defaultValue = "20",
      paramLabel = "N",
      description =
          "messages per second the users submit in the flow; 100 s of it: 2,000 messages (default: ${DEFAULT-VALUE})")
  double flowRate;

  @Option(
      names = "--provider-workers",
      defaultValue = "4",
      paramLabel = "N",
      description = "each provider's workers in the flow (default: ${DEFAULT-VALUE})")
  int providerWorkers;

  @Option(
      names = "--no-search",
      description =
          "leave out the maximum-load search of the flow (rates 10 to 160 messages/s; quick: 10 and 40)")
  boolean noSearch;

  @Option(
      names = "--pauses",
      paramLabel = "MIN..MAX",
      description =
          "add the original's reliability run: "
              + "16 users each pausing a random MIN..MAX before each message, e.g. 1s..15s"
              + " (the original's); quick: 2 x 15 s, full: as long as the flow; the reliability check covers its messages (default: none)")
  String pauses;

  @Option(
      names = "--no-paths",
      description =
          "leave out the signing and verification paths measured in this JVM (1 to 16 workers): the providers' flow and its reliability check only")
  boolean noPaths;

  @Option(
      names = "--no-sweep",
      description =
          "leave out the provider-worker sweep that tests OpenPEC's 2 x CPUs + x rule (quick: 2 points)")
  boolean noSweep;

  @Override
  Study study() {
    CliContext ctx = study.parent.context;
    var paused = pauseRange(); // before the temporary directory is made
    Path runDir;
    if (dir != null) {
      runDir = ctx.resolve(dir);
    } else {
      try {
        runDir = temporary = Files.createTempDirectory("pkibench-pec-study-");
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot make a temporary directory for the providers' mailboxes and spools; give one with --dir",
            e);
      }
      ctx.err()
          .println(
              "pec study: mailboxes, spools and the sent list in "
                  + runDir
                  + " (removed at the end; --dir DIR keeps them)");
    }
    PecStudy.Config d = PecStudy.Config.defaults(runDir, spool == null ? null : ctx.resolve(spool));
    return new PecStudy(
        new PecStudy.Config(
            d.dir(),
            d.spool(),
            flowRate,
            providerWorkers,
            noPaths ? List.of() : d.pathWorkers(),
            d.flowWarmup(),
            d.flowMeasure(),
            noSearch ? List.of() : d.searchRates(),
            d.receiptDeadline(),
            noSweep ? List.of() : d.workerSweep(),
            paused));
  }

  /**
   * {@code --pauses}, checked before anything else: a bad range is refused as a bad flag, naming
   * the syntax.
   */
  private PauseRange pauseRange() {
    if (pauses == null) return null;
    try {
      return PauseRange.parse(pauses);
    } catch (IllegalArgumentException e) {
      throw new picocli.CommandLine.ParameterException(
          spec.commandLine(), "--pauses " + pauses + ": " + e.getMessage());
    }
  }

  @Override
  void cleanUp(CliContext ctx) {
    if (temporary == null) return;
    try (var walk = Files.walk(temporary)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    } catch (IOException | UncheckedIOException e) {
      ctx.err()
          .println(
              "pec study: could not remove "
                  + temporary
                  + " ("
                  + e.getMessage()
                  + "); remove it by hand");
    }
  }
}
