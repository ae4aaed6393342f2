package io.pkibench.cli;

import io.pkibench.analysis.Comparison;
import io.pkibench.analysis.Threshold;
import io.pkibench.analysis.TrimmedNumber;
import io.pkibench.files.OutputFiles;
import io.pkibench.report.ComparisonFormat;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.text.OutsideText;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "compare",
    mixinStandardHelpOptions = true,
    header = "Compares a new run with a base run, each change beyond the noise or not (Welch's t).",
    description = {
      "Compares a new run with a base run per workload, level and metric by Welch's two-sample t on the",
      "measured iterations, printing each change's interval. A row is better or worse (beyond the noise), same (its",
      "interval rules out a change of the threshold's size, or of 5%% without one), or inconclusive (the interval spans",
      "both; it says how many iterations a side would tell). A threshold fails only on a change beyond the noise.",
      "Workloads match by role, not by port: a study's step by its label, key-server nodes by order and weight,",
      "a study's services by name; one present in only one run makes the comparison incomplete."
    },
    footer = {
      "",
      "Examples:",
      "  pkibench compare base.json new.json",
      "  pkibench compare base.json new.json --threshold 'throughput>-5%%' --threshold 'p99<+10%%' --format markdown",
      "  pkibench compare base.json new.json --threshold 'throughput>-5%%' --confidence 95 -o cmp.json",
      "",
      "Exit codes: 0 every threshold holds, 3 a threshold fails beyond the noise, 5 no threshold fails but one",
      "could not be decided (inconclusive: measure more iterations), 6 with a threshold, none failed but a workload or",
      "level is in only one run (incomplete), 2 bad input."
    })
final class CompareCommand implements Callable<Integer> {
  enum Format {
    table,
    /** compare's own word before the one vocabulary (docs/cli-grammar.md): read as table. */
    text,
    markdown,
    json
  }

  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "BASE")
  Path base;

  @Parameters(index = "1", paramLabel = "NEW")
  Path current;

  @Option(
      names = "--threshold",
      paramLabel = "EXPR",
      description =
          "a limit on the change, k6-style: throughput>-5%% (may drop 5%%), p99<+10%% (may rise 10%%); metrics throughput, cpu,"
              + " p50, p90, p99, p999, max; repeatable")
  List<String> thresholds = new ArrayList<>();

  @Option(
      names = "--confidence",
      paramLabel = "PERCENT",
      defaultValue = "99",
      description =
          "confidence of each change's interval, 50 < PERCENT < 100 (default: ${DEFAULT-VALUE}; one row in a hundred"
              + " may show a change that is not there)")
  double confidencePercent;

  @Option(
      names = "--format",
      defaultValue = "table",
      paramLabel = "FORMAT",
      description =
          "what to print: table, markdown (for a CI comment) or json (default: ${DEFAULT-VALUE})")
  Format format;

  @Option(
      names = {"-o", "--out"},
      paramLabel = "FILE",
      description =
          "also write the comparison as JSON there; '-': the JSON to stdout, the table to stderr")
  Path out;

  @Option(
      names = "--html",
      paramLabel = "FILE.html",
      description = "also write the comparison as an HTML page there")
  Path html;

  @Override
  public Integer call() throws Exception {
    CliContext ctx = OutFlag.human(parent.context, out);
    List<String> problems = new ArrayList<>();
    Path outFile = OutFlag.file(ctx, out);
    if (outFile != null) problems.addAll(FileFlags.writable("--out", out, outFile));
    if (html != null) problems.addAll(FileFlags.writable("--html", html, ctx.resolve(html)));
    if (format == Format.text) {
      ctx.err().println("--format text: now called table (docs/cli-grammar.md); read as table");
      format = Format.table;
    }
    List<Threshold> limits = new ArrayList<>();
    for (String t : thresholds) {
      try {
        Threshold limit = Threshold.parse(t);
        limits.add(limit);
        if (Threshold.formerSpelling(t))
          ctx.err()
              .println(
                  "--threshold "
                      + t
                      + ": now written "
                      + limit
                      + " (docs/cli-grammar.md); the old spelling goes in a release");
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    if (!(confidencePercent > 50 && confidencePercent < 100)) {
      problems.add(
          "--confidence "
              + TrimmedNumber.of(confidencePercent, 4)
              + ": give a percent between 50 and 100, e.g. --confidence 95");
    }
    RunResult b = read("BASE", base, problems), c = read("NEW", current, problems);
    if (!problems.isEmpty())
      throw new ParameterException(spec.commandLine(), String.join("\n", problems));
    Comparison comparison = Comparison.of(b, c, limits, confidencePercent / 100);
    if (comparison.rows().isEmpty()) {
      throw new ParameterException(
          spec.commandLine(),
          "nothing to compare: the two runs share no workload and level ("
              + OutsideText.forTerminal(String.join("; ", comparison.unmatched()))
              + ")");
    }
    String json = RunResultJson.mapper().writeValueAsString(comparison);
    switch (format) {
      case table, text -> ctx.out().print(ComparisonFormat.text(comparison));
      case markdown -> ctx.out().print(ComparisonFormat.markdown(comparison));
      case json -> ctx.out().println(json);
    }
    if (outFile != null) {
      OutputFiles.replace(outFile, json + "\n");
      ctx.err().println("wrote " + outFile);
    } else if (OutFlag.stdout(out)) {
      parent.context.out().println(json);
    }
    if (html != null) {
      OutputFiles.replace(ctx.resolve(html), ComparisonFormat.html(comparison));
      ctx.err().println("wrote " + ctx.resolve(html));
    }
    if (!comparison.passed()) return ExitCodes.THRESHOLD_FAILED;
    if (!comparison.complete() && !limits.isEmpty()) return ExitCodes.INCOMPLETE;
    return comparison.conclusive() ? ExitCodes.OK : ExitCodes.INCONCLUSIVE;
  }

  private RunResult read(String label, Path file, List<String> problems) {
    try {
      return ResultFiles.read(parent.context, label, file);
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
      return null;
    }
  }
}
