package io.pkibench.cli;

import io.pkibench.analysis.FitReport;
import io.pkibench.analysis.TrimmedNumber;
import io.pkibench.report.FitFormat;
import io.pkibench.results.RunResultJson;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "fit",
    mixinStandardHelpOptions = true,
    header =
        "Fits the Universal Scalability Law to a run's throughput and says how far to trust it.",
    description =
        "Fits the Universal Scalability Law to throughput over concurrency and says how far to trust it: σ, κ, λ and"
            + " the peak (N_max, X_max) with their intervals, predictions with the interval a measurement would fall in, the"
            + " concurrency a target rate needs, and with --upto, how far the fit below N missed the points above it. The fit is"
            + " the one every run and study makes. Past twice the largest fitted concurrency it declines to predict.",
    footer = {
      "",
      "FILE is a CSV of concurrency,throughput (a header line optional, a third column of latency accepted) or a"
          + " result file of 'pkibench run' (its steady levels, as the run's own fit takes them).",
      "",
      "Examples:",
      "  pkibench fit sweep.csv",
      "  pkibench fit sweep.csv --upto 10 --predict 12,16,20",
      "  pkibench fit run.json --workload sign --target-rate 5000 --format json",
      "",
      "Exit codes: 0 fitted, 1 the points follow no USL curve (it says why), 2 bad input."
    })
final class FitCommand implements Callable<Integer> {
  enum Format {
    table,
    json
  }

  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "FILE", description = "a CSV of concurrency,throughput or a result file")
  Path file;

  @Option(
      names = "--upto",
      paramLabel = "N",
      description =
          "fit only the points at concurrency N or below; the rest are held out and compared with the fit's predictions")
  Double upto;

  @Option(
      names = "--predict",
      split = ",",
      paramLabel = "N",
      description = "concurrencies to predict throughput at, e.g. --predict 16,32")
  List<Double> predict = new ArrayList<>();

  @Option(
      names = "--target-rate",
      paramLabel = "OPS_PER_S",
      description = "the throughput to reach: the concurrency (workers, cores) that gives it")
  Double targetRate;

  @Option(
      names = "--workload",
      paramLabel = "NAME",
      description = "in a result file of several workloads, the one to fit (its name or label)")
  String workload;

  @Option(
      names = "--confidence",
      paramLabel = "PERCENT",
      defaultValue = "95",
      description = "confidence of every interval, 50 < PERCENT < 100 (default: ${DEFAULT-VALUE})")
  double confidencePercent;

  @Option(
      names = "--format",
      defaultValue = "table",
      paramLabel = "table|json",
      description = "table or json (default: ${DEFAULT-VALUE})")
  Format format;

  @Override
  public Integer call() throws Exception {
    CliContext ctx = parent.context;
    List<String> problems = new ArrayList<>();
    if (upto != null && !(upto > 0))
      problems.add(
          "--upto " + TrimmedNumber.of(upto, 3) + ": give a concurrency above 0, e.g. --upto 8");
    for (Double n : predict) {
      if (n == null || !(n > 0) || !Double.isFinite(n))
        problems.add("--predict " + n + ": give concurrencies above 0, e.g. --predict 16,32");
    }
    if (targetRate != null && !(targetRate > 0 && Double.isFinite(targetRate))) {
      problems.add(
          "--target-rate "
              + targetRate
              + ": give a throughput in operations per second above 0, e.g. --target-rate 5000");
    }
    if (!(confidencePercent > 50 && confidencePercent < 100)) {
      problems.add(
          "--confidence "
              + TrimmedNumber.of(confidencePercent, 4)
              + ": give a percent between 50 and 100, e.g. --confidence 95");
    }
    FitPoints read = FitPoints.read(ctx, file, workload, problems);
    if (read != null && upto != null && read.points().stream().noneMatch(p -> p.load() <= upto)) {
      problems.add(
          "--upto "
              + TrimmedNumber.of(upto, 3)
              + ": no point of "
              + file
              + " is at or below it (the lowest is at "
              + TrimmedNumber.of(read.points().get(0).load(), 2)
              + ")");
    }
    if (!problems.isEmpty())
      throw new ParameterException(spec.commandLine(), String.join("\n", problems));

    FitReport.Attempt attempt =
        FitReport.of(
            read.source(),
            read.points(),
            upto,
            predict,
            targetRate,
            confidencePercent / 100,
            read.notes());
    if (attempt.report() == null) {
      ctx.err().println("No USL fit for " + read.source() + ": " + attempt.noFit().because() + ".");
      FitReport.Superlinear s = attempt.noFit().superlinear();
      if (s != null) {
        ctx.err()
            .println(
                String.format(
                    Locale.ROOT,
                    "Unconstrained fit, superlinear: σ=%s, κ=%s, λ=%s — %s.",
                    TrimmedNumber.of(s.sigma(), 5),
                    TrimmedNumber.of(s.kappa(), 8),
                    TrimmedNumber.of(s.lambda(), 1),
                    s.meaning()));
      }
      for (String note : read.notes()) ctx.err().println("Note: " + note);
      return ExitCodes.RUN_FAILED;
    }
    switch (format) {
      case table -> ctx.out().print(FitFormat.table(attempt.report()));
      case json ->
          ctx.out()
              .println(
                  RunResultJson.mapper()
                      .writerWithDefaultPrettyPrinter()
                      .writeValueAsString(attempt.report()));
    }
    return ExitCodes.OK;
  }
}
