package io.pkibench.cli;

import io.pkibench.cli.RsfnCommand.RsfnRun;
import io.pkibench.formats.rsfn.SecurityHeader;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description =
        "Prints an envelope's 588-byte security header field by field (C01–C15), checking nothing.",
    footer = {
      "",
      "Example:",
      "  pkibench rsfn inspect msg.rsfn",
      "",
      "Exit codes: 0 printed, 1 shorter than a header, 2 unreadable."
    })
final class RsfnInspect extends RsfnRun {
  @Parameters(paramLabel = "FILE", description = "the envelope (or a 588-byte answer header)")
  Path file;

  @Override
  public Integer call() {
    byte[] envelope = readFile(file, "FILE");
    failOnProblems();
    if (envelope.length < SecurityHeader.LENGTH) {
      ctx()
          .out()
          .println(
              file
                  + ": "
                  + envelope.length
                  + " bytes, shorter than the 588 of a protocol 3 header");
      return ExitCodes.RUN_FAILED;
    }
    SecurityHeader.decode(envelope).describe().forEach(ctx().out()::println);
    ctx()
        .out()
        .println(
            "payload                "
                + (envelope.length - SecurityHeader.LENGTH)
                + " bytes after the header");
    return ExitCodes.OK;
  }
}
