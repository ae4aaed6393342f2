package io.pkibench.cli;

import io.pkibench.study.StudyCatalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "study",
    mixinStandardHelpOptions = true,
    description =
        "Reruns a published capacity study on this machine (docs/studies.md) into one result file, with its own table and report.",
    subcommands = {
      StudyRestPki.class,
      StudyPix.class,
      StudyRsfn.class,
      StudyPec.class,
      StudySsl.class,
      StudyPqc.class,
      StudyCa.class
    },
    footer = {
      "",
      "Example:",
      "  pkibench study restpki --quick",
      "",
      "Exit codes: 0 done, 1 a step could not run or stopped early, 2 bad flags (nothing started), 4 a post-run check failed."
    })
final class StudyCommand implements Runnable {
  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(),
        "name a study: "
            + String.join(", ", StudyCatalog.builtIn().names())
            + " (pkibench study --help)");
  }
}
