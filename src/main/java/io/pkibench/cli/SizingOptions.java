package io.pkibench.cli;

import io.pkibench.analysis.Analysis;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --target-rate} and {@code --max-utilisation}, shared by {@code run} and {@code report}.
 */
final class SizingOptions {
  @Option(
      names = "--target-rate",
      paramLabel = "OPS_PER_S",
      description = "also say how many cores sustain this rate (see --max-utilisation)")
  Double targetRate;

  @Option(
      names = "--max-utilisation",
      defaultValue = "70",
      paramLabel = "PERCENT",
      description = "CPU utilisation the sizing may plan for (default: ${DEFAULT-VALUE}%%)")
  double maxUtilisationPercent;

  /** Adds a problem per bad value, naming the flag and the fix. */
  void check(List<String> problems) {
    if (targetRate != null && !(targetRate > 0))
      problems.add("--target-rate: give operations per second above 0, e.g. 2000");
    if (!(maxUtilisationPercent > 0 && maxUtilisationPercent <= 100)) {
      problems.add("--max-utilisation: give a percentage in (0, 100], e.g. 70");
    }
  }

  Analysis.Options analysis(String baseline) {
    return new Analysis.Options(targetRate, maxUtilisationPercent / 100, baseline);
  }
}
