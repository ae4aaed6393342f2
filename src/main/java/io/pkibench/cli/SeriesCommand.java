package io.pkibench.cli;

import io.pkibench.files.OutputFiles;
import io.pkibench.measure.HlogFile;
import io.pkibench.pki.TestPki;
import io.pkibench.results.RunResultJson;
import io.pkibench.session.ForkedSeries;
import io.pkibench.session.SeriesRequest;
import io.pkibench.session.SeriesResponse;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * The child side of {@code run --fork}: runs one series in this fresh JVM and answers in a file.
 * Not for people.
 */
@Command(
    name = "series",
    hidden = true,
    description = "Runs one series for 'run --fork' (internal).")
final class SeriesCommand implements Callable<Integer> {
  @ParentCommand PkibenchCommand parent;

  @Option(names = "--request", required = true)
  Path request;

  @Option(names = "--response", required = true)
  Path response;

  @Option(names = "--hlog", required = true)
  Path hlog;

  @Option(names = "--pki")
  Path pki;

  @Option(names = "--pin-file")
  Path pinFile;

  @Override
  public Integer call() throws Exception {
    CliContext ctx = parent.context;
    SeriesRequest req =
        RunResultJson.mapper().readValue(ctx.resolve(request).toFile(), SeriesRequest.class);
    ConsoleProgress progress = new ConsoleProgress(ctx.err(), false, false);
    SeriesResponse answer;
    try (HlogFile log =
        new HlogFile(ctx.resolve(hlog), ctx.clock().instant(), "pkibench forked series")) {
      Path pkiDir = ctx.pkiDir(pki);
      answer =
          ForkedSeries.serveHere(
              req,
              WorkloadCatalog.builtIn(),
              KeyOpeners.of(ctx, pkiDir, pinFile, progress::line),
              () -> TestPki.openOrInit(pkiDir, ctx.clock(), progress::line),
              progress,
              log,
              ctx.clock(),
              ctx.env());
    }
    // Beside the result, under a name others can guess: written whole under a name they cannot, and
    // renamed into place.
    OutputFiles.replace(ctx.resolve(response), RunResultJson.mapper().writeValueAsString(answer));
    return answer.failure() == null ? ExitCodes.OK : ExitCodes.RUN_FAILED;
  }
}
