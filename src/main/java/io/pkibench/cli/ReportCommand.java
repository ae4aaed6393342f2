package io.pkibench.cli;

import io.pkibench.analysis.Analysis;
import io.pkibench.files.OutputFiles;
import io.pkibench.report.HtmlReport;
import io.pkibench.report.JmhJson;
import io.pkibench.report.PngExport;
import io.pkibench.report.StudyTables;
import io.pkibench.report.TerminalTable;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultCsv;
import io.pkibench.results.RunResultJson;
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
    name = "report",
    mixinStandardHelpOptions = true,
    description =
        "Prints or writes a saved result again, from the file alone (nothing is rerun): table, CSV, JSON, JMH JSON, HTML, PNG charts.",
    footer = {
      "",
      "Examples:",
      "  pkibench report run.json",
      "  pkibench report run.json --html report.html --png charts/",
      "  pkibench report run.json --format csv > levels.csv",
      "  pkibench report run.json --target-rate 2000 --max-utilisation 60"
    })
final class ReportCommand implements Callable<Integer> {
  enum Format {
    table,
    csv,
    json,
    jmh_json
  }

  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "FILE", description = "a result file written by 'pkibench run'")
  Path file;

  @Option(
      names = "--format",
      defaultValue = "table",
      paramLabel = "FORMAT",
      description =
          "what to print: table, csv (one row per level), json (the result with its analysis) or jmh-json (JMH's result shape) (default: ${DEFAULT-VALUE})",
      converter = FormatConverter.class)
  Format format;

  @Option(
      names = {"-o", "--out"},
      paramLabel = "FILE",
      description =
          "also write the result, its analysis recomputed, as JSON there; '-': the JSON to stdout, the table to stderr")
  Path out;

  @Option(
      names = "--html",
      paramLabel = "FILE.html",
      description = "also write the self-contained HTML report there")
  Path html;

  /**
   * {@code --output FILE.html}, the HTML report's flag before the one grammar: kept one release.
   */
  @Option(names = "--output", paramLabel = "FILE.html", hidden = true)
  Path formerHtml;

  @Option(
      names = "--png",
      paramLabel = "DIR",
      description = "also write each chart as a PNG file into DIR")
  Path pngDir;

  @picocli.CommandLine.Mixin SizingOptions sizing = new SizingOptions();

  @Option(
      names = "--baseline",
      paramLabel = "WORKLOAD",
      description = "the workload the relative CPU cost table divides by (default: the first)")
  String baseline;

  static final class FormatConverter implements picocli.CommandLine.ITypeConverter<Format> {
    @Override
    public Format convert(String value) {
      try {
        return Format.valueOf(value.replace('-', '_'));
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.TypeConversionException(
            "'" + value + "': use table, csv, json or jmh-json");
      }
    }
  }

  @Override
  public Integer call() throws Exception {
    CliContext ctx = OutFlag.human(parent.context, out);
    List<String> problems = new ArrayList<>();
    sizing.check(problems);
    if (out != null && out.getFileName().toString().matches("(?i).*\\.html?")) {
      problems.add(
          "-o "
              + out
              + ": -o/--out writes the result's JSON now; the HTML report is --html "
              + out
              + " (docs/cli-grammar.md)");
    } else if (OutFlag.file(ctx, out) != null) {
      problems.addAll(FileFlags.writable("--out", out, ctx.resolve(out)));
    }
    if (formerHtml != null) {
      if (html != null) problems.add("--output and --html: give the HTML report once, --html");
      ctx.err().println("--output: now --html (docs/cli-grammar.md); --output goes in a release");
      html = formerHtml;
    }
    if (html != null) problems.addAll(FileFlags.writable("--html", html, ctx.resolve(html)));
    if (!problems.isEmpty())
      throw new ParameterException(spec.commandLine(), String.join("\n", problems));
    RunResult result;
    try {
      result = ResultFiles.read(ctx, "FILE", file);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    Analysis analysis;
    try {
      analysis = Analysis.of(result, sizing.analysis(baseline));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    // The analysis is always recomputed from the levels, so a report reflects these options and
    // this version's rules.
    result = result.withAnalysis(RunResultJson.mapper().valueToTree(analysis));
    switch (format) {
      case table -> {
        if (result.study() != null) ctx.out().print(StudyTables.terminal(result));
        ctx.out().print(TerminalTable.render(result, analysis));
      }
      case csv -> ctx.out().print(RunResultCsv.toCsv(result));
      case json -> ctx.out().print(RunResultJson.toJson(result));
      case jmh_json -> ctx.out().print(JmhJson.of(result));
    }
    if (OutFlag.stdout(out)) parent.context.out().print(RunResultJson.toJson(result));
    else if (out != null) {
      OutputFiles.replace(ctx.resolve(out), RunResultJson.toJson(result));
      ctx.err().println("wrote " + ctx.resolve(out));
    }
    if (html != null) {
      Path target = ctx.resolve(html);
      HtmlReport.write(
          target, result, analysis, ProfileFlag.readBeside(ctx.resolve(file), ctx.err()));
      ctx.err().println("wrote " + target);
    }
    if (pngDir != null) {
      var written = PngExport.write(HtmlReport.charts(result, analysis), ctx.resolve(pngDir));
      ctx.err().println("wrote " + written.size() + " charts into " + ctx.resolve(pngDir));
    }
    return ExitCodes.OK;
  }
}
