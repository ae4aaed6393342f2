package io.pkibench.cli;

import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.session.TimelineJournal;
import io.pkibench.text.OutsideText;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a result file named on the command line, turning every way it can be wrong into one message
 * that names it.
 */
final class ResultFiles {
  private ResultFiles() {}

  /**
   * {@code label} is how the command names the argument (FILE, BASE, NEW); throws
   * IllegalArgumentException with the fix.
   */
  static RunResult read(CliContext ctx, String label, Path file) {
    Path path = ctx.resolve(file);
    if (!Files.exists(path))
      throw new IllegalArgumentException(
          label + " " + file + ": no such file; give the --out file of a run");
    try {
      RunResult read = RunResultJson.read(path);
      // A run killed during a staged level left that level's seconds beside the file: they are read
      // as an interrupted level.
      RunResult recovered = TimelineJournal.recover(path, read);
      if (recovered != read) {
        ctx.err()
            .println(
                label
                    + " "
                    + file
                    + ": the run was stopped during a staged level; the seconds it measured are read from "
                    + TimelineJournal.fileFor(path).getFileName()
                    + " (status "
                    + recovered.status()
                    + ")");
      }
      return recovered;
    } catch (IOException e) {
      throw new IllegalArgumentException(
          label + " " + file + ": " + OutsideText.forTerminal(e.getMessage()));
    }
  }
}
