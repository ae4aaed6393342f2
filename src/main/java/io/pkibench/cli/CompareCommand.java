package io.pkibench.cli;

import io.pkibench.analysis.Comparison;
import io.pkibench.analysis.Threshold;
import io.pkibench.report.ComparisonFormat;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "compare",
    mixinStandardHelpOptions = true,
    description = {"Compares a new run with a base run per workload and level, noise-aware: a change inside both runs'",
        "99.9%% intervals is reported as noise, never as a regression."},
    footer = {"", "Examples:", "  pkibench compare base.json new.json",
        "  pkibench compare base.json new.json --threshold throughput:-5%% --threshold p99:+10%% --format markdown",
        "", "Exit codes: 0 every threshold holds, 3 a threshold fails beyond the noise, 2 bad input."})
final class CompareCommand implements Callable<Integer> {
  enum Format { text, markdown, json }

  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Parameters(index = "0", paramLabel = "BASE") Path base;
  @Parameters(index = "1", paramLabel = "NEW") Path current;

  @Option(names = "--threshold", paramLabel = "METRIC:CHANGE%",
      description = "a limit: throughput:-5%% (may drop 5%%), p99:+10%% (may rise 10%%); metrics throughput, cpu, p50, p90, p99, p999, max")
  List<String> thresholds = new ArrayList<>();

  @Option(names = "--format", defaultValue = "text", description = "text, markdown (for a CI comment) or json (default: ${DEFAULT-VALUE})")
  Format format;

  @Override
  public Integer call() throws Exception {
    CliContext ctx = parent.context;
    List<String> problems = new ArrayList<>();
    List<Threshold> limits = new ArrayList<>();
    for (String t : thresholds) {
      try {
        limits.add(Threshold.parse(t));
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    RunResult b = read("BASE", base, problems), c = read("NEW", current, problems);
    if (!problems.isEmpty()) throw new ParameterException(spec.commandLine(), String.join("\n", problems));
    Comparison comparison = Comparison.of(b, c, limits);
    if (comparison.rows().isEmpty()) {
      throw new ParameterException(spec.commandLine(), "nothing to compare: the two runs share no workload and level ("
          + String.join("; ", comparison.unmatched()) + ")");
    }
    switch (format) {
      case text -> ctx.out().print(ComparisonFormat.text(comparison));
      case markdown -> ctx.out().print(ComparisonFormat.markdown(comparison));
      case json -> ctx.out().println(RunResultJson.mapper().writeValueAsString(comparison));
    }
    return comparison.passed() ? ExitCodes.OK : ExitCodes.THRESHOLD_FAILED;
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
