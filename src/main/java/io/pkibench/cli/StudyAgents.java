package io.pkibench.cli;

import io.pkibench.files.OutputFiles;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.study.StepAgents;
import io.pkibench.workload.api.ParamSpec;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code study --agents N --local}: each step's chosen level as {@code pkibench run WORKLOAD
 * --target URL ...} in N agent processes ({@link LocalAgents}, one shared start), written beside
 * the study's result as {@code RESULT.STEP.json} and its {@code .agentK.json} files, and merged.
 * Each agent reads the services' CPU by their pids; the merge counts one host's once.
 */
final class StudyAgents implements StepAgents {
  private final CliContext ctx;
  private final int count;
  private final Path resultFile;
  private final Path pkiDir;
  private final Path pinFile;
  private final String hangGrace;
  private final Consumer<String> log;

  StudyAgents(
      CliContext ctx,
      int count,
      Path resultFile,
      Path pkiDir,
      Path pinFile,
      String hangGrace,
      Consumer<String> log) {
    this.ctx = ctx;
    this.count = count;
    this.resultFile = resultFile;
    this.pkiDir = pkiDir;
    this.pinFile = pinFile;
    this.hangGrace = hangGrace;
    this.log = log;
  }

  @Override
  public int count() {
    return count;
  }

  /**
   * The {@code run} command line that measures {@code plan}'s one workload and level, as each agent
   * is given it (without its segment).
   */
  static List<String> runArgs(
      Plan plan, String serviceCpu, Path pkiDir, Path pinFile, String hangGrace) {
    WorkloadSpec w = plan.workloads().get(0);
    List<String> args = new ArrayList<>(List.of("run", w.name()));
    for (Map.Entry<String, String> p : w.params().entrySet()) {
      if (p.getKey().equals(ParamSpec.TARGET)) args.addAll(List.of("--target", p.getValue()));
      else args.addAll(List.of("-p", p.getKey() + "=" + p.getValue()));
    }
    args.addAll(List.of("--keys", w.keys(), "--pki", pkiDir.toString()));
    if (pinFile != null)
      args.addAll(List.of("--pin-file", pinFile.toString())); // the file's name, never the PIN
    int workers = ((LoadModel.Closed) plan.load()).concurrency().get(0);
    args.addAll(
        List.of(
            "--concurrency",
            Integer.toString(workers),
            "--warmup",
            plan.warmup().toString(),
            "--measure",
            plan.measure().toString(),
            "--series",
            Integer.toString(plan.series()),
            "--cpu",
            serviceCpu,
            "--hang-grace",
            hangGrace));
    return args;
  }

  @Override
  public RunResult measure(String name, Plan plan, int agents, String serviceCpu)
      throws IOException, InterruptedException {
    String base = resultFile.getFileName().toString().replaceFirst("\\.json$", "");
    Path out = resultFile.toAbsolutePath().resolveSibling(base + "." + name + ".json");
    List<String> args = runArgs(plan, serviceCpu, pkiDir, pinFile, hangGrace);
    log.accept(
        name
            + ": "
            + agents
            + " agents: pkibench "
            + String.join(" ", args)
            + " --segment K/"
            + agents);
    // The merge's table goes to the agents' log, not between the study's lines: the study prints
    // the step's own.
    StringWriter mergeTable = new StringWriter();
    CliContext quiet =
        new CliContext(
            new PrintWriter(mergeTable, true),
            ctx.err(),
            ctx.env(),
            ctx.clock(),
            ctx.workingDir(),
            false);
    Files.deleteIfExists(out); // an older run's merge must not stand for this one
    int code = LocalAgents.run(quiet, args, agents, null, false, out, null, log);
    OutputFiles.replace(
        out.resolveSibling(base + "." + name + ".merge.txt"), mergeTable.toString());
    if (!Files.exists(out)) {
      throw new StepAgents.Failed(
          "the "
              + agents
              + " agents of step "
              + name
              + " left no merged result (exit "
              + code
              + "); see their logs beside "
              + out);
    }
    return RunResultJson.read(out);
  }
}
