package io.pkibench.cli;

import io.pkibench.analysis.Analysis;
import io.pkibench.analysis.RunThresholds;
import io.pkibench.measure.HlogMerge;
import io.pkibench.report.HtmlReport;
import io.pkibench.report.StudyTables;
import io.pkibench.report.TerminalTable;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.SegmentMerge;
import io.pkibench.session.ResultFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "merge",
    mixinStandardHelpOptions = true,
    header = "Adds up the results of the agents of one split plan into one result.",
    description = {
      "Adds up the results of the agents of one split plan (run --segment I/N) into one result: per level and iteration,"
          + " counts, CPU and latency histograms summed (percentiles read from the summed histograms, never averaged); each agent's own"
          + " figures kept in the result's merge section; their .hlog interval logs added into one beside it. Refuses different plans, two files"
          + " of one segment and missing segments, naming the files."
    },
    footer = {
      "",
      "Examples:",
      "  T=$(date -u -d '+30 sec' +%%FT%%TZ)   # one start time for every agent",
      "  pkibench run sign -p alg=ecdsa-p256 --concurrency 4,8 --segment 1/2 --start-at $T -o seg1.json &",
      "  pkibench run sign -p alg=ecdsa-p256 --concurrency 4,8 --segment 2/2 --start-at $T -o seg2.json; wait",
      "  pkibench merge seg1.json seg2.json -o all.json --html all.html",
      "  pkibench merge seg*.json -o all.json --allow-missing   # an agent died: merge the others, saying which share is absent",
      "  pkibench merge seg1.json seg2.json -o all.json --threshold 'p99<5ms' --threshold 'throughput>=2000/s'   # the run's limits, on the whole",
      "  pkibench merge agent1.json agent2.json -o restpki.json   # the agents of 'study restpki --segment I/2': the study's table, each step summed",
      "",
      "Exit codes: 0 merged, 1 merged but an agent's run was not complete or a share is absent, 2 refused (nothing written),"
          + " 3 merged and a --threshold failed."
    })
final class MergeCommand implements Callable<Integer> {
  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Parameters(
      arity = "1..*",
      paramLabel = "FILE",
      description = "the agents' result files (run --segment I/N --out FILE), one per segment")
  List<Path> files;

  @Option(
      names = {"-o", "--out"},
      required = true,
      paramLabel = "FILE",
      description =
          "the merged result, an ordinary result 'report' and 'compare' read; '-': the JSON to stdout (and"
              + " results/merge-TIME.json), everything else to stderr")
  Path out;

  @Option(
      names = "--html",
      paramLabel = "FILE.html",
      description = "also write the merged result's HTML report there")
  Path html;

  @Option(
      names = "--allow-missing",
      description =
          "merge what is there when a segment (or a level of one) is missing; the result says which share is absent")
  boolean allowMissing;

  @Option(
      names = {RunThresholds.FLAG, "--thresholds"},
      split = ",",
      paramLabel = "EXPR",
      description =
          "a limit checked on the merged result, as 'run --threshold' (an agent's share is not the run's figure): p99<5ms, errors<1%%,"
              + " throughput>=2000/s, sign.p99<5ms...; any failing exits with 3")
  List<String> thresholds = new ArrayList<>();

  @Override
  public Integer call() throws Exception {
    CliContext ctx = OutFlag.human(parent.context, out);
    Path target = OutFlag.file(ctx, out) != null ? ctx.resolve(out) : defaultOut(ctx);
    List<String> problems = new ArrayList<>(FileFlags.writable("--out", out, target));
    List<SegmentMerge.Input> inputs = new ArrayList<>();
    for (Path f : files) {
      if (allowMissing && !Files.exists(ctx.resolve(f))) {
        // An agent that died before its first save leaves no file: its segment is then reported
        // absent by the merge.
        ctx.err()
            .println(
                "FILE " + f + ": no such file; its segment is merged as absent (--allow-missing)");
        continue;
      }
      try {
        inputs.add(new SegmentMerge.Input(f, ResultFiles.read(ctx, "FILE", f)));
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    RunThresholds limits = RunThresholds.parse(thresholds, problems);
    if (!problems.isEmpty())
      throw new ParameterException(spec.commandLine(), String.join("\n", problems));
    String commandLine =
        "pkibench " + String.join(" ", spec.commandLine().getParseResult().originalArgs());
    int code =
        mergeAndSave(
            ctx,
            inputs,
            allowMissing,
            commandLine,
            target,
            html == null ? null : ctx.resolve(html),
            limits,
            message -> new ParameterException(spec.commandLine(), message));
    OutFlag.copyIfStdout(parent.context, out, target);
    return code;
  }

  /** {@code -o -}: the merged result is also kept, where a run keeps its own by default. */
  private static Path defaultOut(CliContext ctx) {
    String time =
        DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
            .withZone(ZoneOffset.UTC)
            .format(ctx.clock().instant());
    return ctx.resolve(Path.of("results", "merge-" + time + ".json"));
  }

  /**
   * The agents' interval logs ({@code .hlog} beside each result) added into one beside {@code out},
   * their intervals of one iteration matched in order; an agent's missing log is said, and the
   * others are merged without it.
   */
  private static void mergeIntervalLogs(CliContext ctx, List<SegmentMerge.Input> inputs, Path out) {
    List<Path> logs = new ArrayList<>();
    for (SegmentMerge.Input in : inputs) {
      Path log = ResultFile.hlogFileFor(ctx.resolve(in.file()));
      if (Files.isReadable(log)) logs.add(log);
      else
        ctx.err()
            .println(
                "no interval log "
                    + log
                    + " beside "
                    + in.file()
                    + ": the merged .hlog lacks that agent's intervals");
    }
    if (logs.isEmpty()) return;
    Path merged = ResultFile.hlogFileFor(out);
    try {
      HlogMerge.Merged m =
          HlogMerge.merge(
              logs, merged, "pkibench merge of " + logs.size() + " agents' interval logs");
      ctx.out()
          .println(
              "interval logs: "
                  + logs.size()
                  + " merged into "
                  + merged
                  + " ("
                  + m.intervals()
                  + " intervals)");
    } catch (IOException | RuntimeException e) {
      // The merged result stands without it: the agents' own logs are still there to merge again.
      ctx.err().println("cannot merge the interval logs into " + merged + ": " + e.getMessage());
    }
  }

  /**
   * Merges {@code inputs} into {@code out} (and {@code html}), printing the table: the exit code,
   * or {@code refused}'s exception when they cannot be merged. Shared by {@code merge} and {@code
   * run --agents N --local}.
   */
  static int mergeAndSave(
      CliContext ctx,
      List<SegmentMerge.Input> inputs,
      boolean allowMissing,
      String commandLine,
      Path out,
      Path html,
      Function<String, RuntimeException> refused)
      throws IOException {
    return mergeAndSave(
        ctx, inputs, allowMissing, commandLine, out, html, RunThresholds.none(), refused);
  }

  /**
   * As above, {@code limits} checked on the merged result (its verdicts saved in it and printed;
   * exit code 3 when one fails).
   */
  static int mergeAndSave(
      CliContext ctx,
      List<SegmentMerge.Input> inputs,
      boolean allowMissing,
      String commandLine,
      Path out,
      Path html,
      RunThresholds limits,
      Function<String, RuntimeException> refused)
      throws IOException {
    RunResult merged;
    try {
      merged = SegmentMerge.merge(inputs, allowMissing, commandLine);
    } catch (SegmentMerge.Refused e) {
      throw refused.apply("cannot merge: " + String.join("\n", e.problems()));
    }
    Analysis analysis = Analysis.of(merged, new Analysis.Options(null, 0.7, null));
    merged = merged.withAnalysis(RunResultJson.mapper().valueToTree(analysis));
    if (!limits.isEmpty()) merged = merged.withThresholds(limits.evaluate(merged));
    RunResultJson.write(merged, out);
    ctx.out().print(TerminalTable.render(merged, analysis));
    // The agents of a split study (study --segment): the study's own table, as the study prints it.
    if (merged.study() != null) ctx.out().print(StudyTables.terminal(merged));
    if (html != null) {
      HtmlReport.write(html, merged, analysis);
      ctx.out().println("report " + html);
    }
    mergeIntervalLogs(ctx, inputs, out);
    int agents = merged.merge().agents();
    ctx.out()
        .println(
            "merged "
                + merged.merge().sections().size()
                + " of "
                + agents
                + " agents into "
                + out
                + (merged.merge().absent().isEmpty()
                    ? ""
                    : "; absent: " + String.join("; ", merged.merge().absent())));
    boolean whole = merged.status() == RunStatus.COMPLETE && merged.merge().absent().isEmpty();
    if (!whole) return ExitCodes.RUN_FAILED;
    return merged.thresholds() == null || RunThresholds.allPassed(merged.thresholds())
        ? ExitCodes.OK
        : ExitCodes.THRESHOLD_FAILED;
  }
}
