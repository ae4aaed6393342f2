package io.pkibench.cli;

import io.pkibench.analysis.Analysis;
import io.pkibench.analysis.LevelPoint;
import io.pkibench.analysis.Steadiness;
import io.pkibench.analysis.TrimmedNumber;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import io.pkibench.text.OutsideText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The (concurrency, throughput) points {@code pkibench fit} reads: a CSV of {@code
 * concurrency,throughput} (a header line optional, a third column of latency accepted and not used,
 * {@code #} comments and blank lines skipped), or a result file, whose workload's steady levels are
 * the points as every run's own fit takes them.
 */
record FitPoints(String source, List<LevelPoint> points, List<String> notes) {
  /** More lines than any sweep has; a larger file is someone else's data. */
  static final int MOST_ROWS = 100_000;

  /**
   * Reads {@code file}; every problem found goes to {@code problems} (each naming the file and
   * line), and null is returned then.
   */
  static FitPoints read(CliContext ctx, Path file, String workload, List<String> problems) {
    Path path = ctx.resolve(file);
    if (!Files.isRegularFile(path)) {
      problems.add(
          "FILE "
              + file
              + ": no such file; give a CSV of concurrency,throughput or a result file of 'pkibench run'");
      return null;
    }
    String text;
    try {
      if (Files.size(path) > 64L << 20) {
        problems.add(
            "FILE " + file + ": over 64 MB; neither a sweep's CSV nor a result file is that large");
        return null;
      }
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (IOException | UncheckedIOException e) {
      problems.add("FILE " + file + ": cannot be read as UTF-8 text (" + e.getMessage() + ")");
      return null;
    }
    if (text.stripLeading().startsWith("{")) return fromResult(ctx, file, workload, problems);
    if (workload != null)
      problems.add(
          "--workload "
              + OutsideText.forTerminal(workload)
              + ": only a result file has workloads; "
              + file
              + " is a CSV");
    return fromCsv(file.toString(), text, problems);
  }

  static FitPoints fromCsv(String name, String text, List<String> problems) {
    List<LevelPoint> points = new ArrayList<>();
    String[] lines = text.split("\r?\n", -1);
    int before = problems.size();
    boolean seenRow = false;
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      if (line.isEmpty() || line.startsWith("#")) continue;
      String where = name + " line " + (i + 1);
      if (points.size() >= MOST_ROWS) {
        problems.add(where + ": more than " + MOST_ROWS + " rows; a sweep has tens");
        break;
      }
      String[] cells = line.split("\\s*[,;\\t]\\s*", -1);
      if (!seenRow && !looksNumeric(cells[0])) {
        seenRow = true; // a header: its names are the user's, nothing to check in them
        continue;
      }
      seenRow = true;
      if (cells.length < 2 || cells.length > 3) {
        problems.add(
            where
                + ": "
                + cells.length
                + " column(s); give concurrency,throughput[,latency], e.g. 8,1234.5");
        continue;
      }
      Double n = number(cells[0]), x = number(cells[1]);
      if (n == null || !(n > 0))
        problems.add(
            where
                + ": concurrency '"
                + OutsideText.forTerminal(cells[0], 40)
                + "' is not a number above 0");
      if (x == null || !(x >= 0))
        problems.add(
            where
                + ": throughput '"
                + OutsideText.forTerminal(cells[1], 40)
                + "' is not a number of 0 or more");
      if (cells.length == 3 && !cells[2].isEmpty() && number(cells[2]) == null) {
        problems.add(
            where
                + ": latency '"
                + OutsideText.forTerminal(cells[2], 40)
                + "' is not a number (leave the third column out or empty)");
      }
      if (n != null && n > 0 && x != null && x >= 0)
        points.add(new LevelPoint(n, x, null, 0, null, 0));
    }
    if (problems.size() > before) return null;
    if (points.isEmpty()) {
      problems.add(name + ": no rows of concurrency,throughput");
      return null;
    }
    points.sort(Comparator.comparingDouble(LevelPoint::load));
    return new FitPoints(name, points, List.of());
  }

  private static FitPoints fromResult(
      CliContext ctx, Path file, String workload, List<String> problems) {
    RunResult result;
    try {
      result = ResultFiles.read(ctx, "FILE", file);
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
      return null;
    }
    List<WorkloadResult> candidates =
        result.workloads().stream().filter(w -> !w.levels().isEmpty()).toList();
    WorkloadResult chosen = null;
    if (workload != null) {
      chosen =
          candidates.stream()
              .filter(
                  w ->
                      w.name().equals(workload)
                          || Analysis.label(w.name(), w.params()).equals(workload))
              .findFirst()
              .orElse(null);
      if (chosen == null) {
        problems.add(
            "--workload "
                + OutsideText.forTerminal(workload)
                + ": no such workload with levels in "
                + file
                + "; it has "
                + labels(candidates));
        return null;
      }
    } else if (candidates.size() == 1) {
      chosen = candidates.get(0);
    } else {
      problems.add(
          file
              + " holds "
              + (candidates.isEmpty()
                  ? "no workload with a measured level"
                  : candidates.size()
                      + " workloads: name one with --workload, one of "
                      + labels(candidates)));
      return null;
    }
    if (chosen.levels().stream().anyMatch(l -> l.openLoop() != null)) {
      problems.add(
          file
              + ": "
              + OutsideText.forTerminal(Analysis.label(chosen.name(), chosen.params()))
              + " is an open-loop sweep (its levels are target rates,"
              + " not concurrency): the USL does not apply to it");
      return null;
    }
    List<String> notes = new ArrayList<>();
    List<LevelResult> steady = new ArrayList<>();
    for (LevelResult level : chosen.levels()) {
      Optional<String> never = Steadiness.neverSteadied(level);
      if (never.isPresent())
        notes.add(
            "concurrency "
                + TrimmedNumber.of(level.load(), 1)
                + " left out, as every run's fit leaves it out: "
                + never.get());
      else steady.add(level);
    }
    return new FitPoints(
        file + " · " + OutsideText.forTerminal(Analysis.label(chosen.name(), chosen.params())),
        LevelPoint.of(steady),
        notes);
  }

  private static String labels(List<WorkloadResult> workloads) {
    return String.join(
        ", ",
        workloads.stream()
            .map(w -> "'" + OutsideText.forTerminal(Analysis.label(w.name(), w.params())) + "'")
            .toList());
  }

  private static boolean looksNumeric(String cell) {
    return number(cell) != null;
  }

  private static Double number(String cell) {
    try {
      double v = Double.parseDouble(cell.strip());
      return Double.isFinite(v) ? v : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
