package io.pkibench.cli;

import io.pkibench.report.TerminalTable;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultCsv;
import io.pkibench.results.RunResultJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "report",
    mixinStandardHelpOptions = true,
    description = "Prints a saved result again, from the file alone (nothing is rerun).",
    footer = {"", "Examples:", "  pkibench report run.json", "  pkibench report run.json --format csv > levels.csv"})
final class ReportCommand implements Callable<Integer> {
  enum Format { table, csv, json }

  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "FILE", description = "a result file written by 'pkibench run'")
  Path file;

  @Option(names = "--format", defaultValue = "table", description = "table, csv or json (default: ${DEFAULT-VALUE})")
  Format format;

  @Override
  public Integer call() throws Exception {
    CliContext ctx = parent.context;
    Path path = ctx.resolve(file);
    if (!Files.exists(path)) {
      throw new ParameterException(spec.commandLine(), "FILE " + file + ": no such file; give the --out file of a run");
    }
    RunResult result;
    try {
      result = RunResultJson.read(path);
    } catch (java.io.IOException e) {
      throw new ParameterException(spec.commandLine(), "FILE " + file + ": " + e.getMessage());
    }
    switch (format) {
      case table -> ctx.out().print(TerminalTable.render(result));
      case csv -> ctx.out().print(RunResultCsv.toCsv(result));
      case json -> ctx.out().print(RunResultJson.toJson(result));
    }
    return ExitCodes.OK;
  }
}
