package io.pkibench.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.pkibench.results.RunResultJson;
import io.pkibench.text.JsonErrors;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The test PKI's manifest read before anything runs: a damaged one is bad input (exit 2, nothing
 * run), not a workload that "could not run" in a result file written after it.
 */
final class PkiFlag {
  private PkiFlag() {}

  static List<String> manifestProblems(CliContext ctx, Path flag) {
    Path dir;
    try {
      dir = ctx.pkiDir(flag);
    } catch (IllegalArgumentException e) {
      return List.of(e.getMessage());
    }
    Path manifest = dir.resolve("pki.json");
    if (!Files.isRegularFile(manifest)) return List.of(); // made on first use
    try {
      RunResultJson.mapper().readTree(manifest.toFile());
      return List.of();
    } catch (JsonProcessingException e) {
      return List.of(fix(dir, manifest, JsonErrors.inWords(e)));
    } catch (IOException e) {
      return List.of(fix(dir, manifest, e.getMessage()));
    }
  }

  private static String fix(Path dir, Path manifest, String why) {
    return "the test PKI manifest "
        + manifest
        + " cannot be read ("
        + why
        + "); move "
        + dir
        + " away and run 'pkibench pki init --dir "
        + dir
        + "', or give another --pki DIR";
  }
}
