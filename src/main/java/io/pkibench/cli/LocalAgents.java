package io.pkibench.cli;

import io.pkibench.analysis.RunThresholds;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.SegmentMerge;
import io.pkibench.session.ForkedSeries;
import io.pkibench.session.ResultFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * {@code run --agents N --local}: the same command as N agent processes of this program on this
 * machine, each {@code --segment K/N} on one shared timetable, each writing {@code OUT.agentK.json}
 * (and its log beside it), then their results merged into {@code OUT} as {@code pkibench merge}
 * does. What a cluster's Indexed Job does, on one machine: it proves the split and the merge, and
 * shows where one client process, not the target, was the limit.
 */
final class LocalAgents {
  /**
   * The flags each agent gets from here instead of from the user's command line: with a value, then
   * without.
   */
  private static final Set<String> REPLACED_WITH_VALUE =
      Set.of(
          "--agents",
          "--segment",
          "--start-at",
          "--start-in",
          "--start-signal",
          "-o",
          "--out",
          "--html");

  private static final Set<String> REPLACED = Set.of("--local", "--allow-missing", "--quiet");

  private LocalAgents() {}

  private static final class NotMerged extends RuntimeException {
    NotMerged(String message) {
      super(message);
    }
  }

  /** The user's arguments ({@code run …}) without the flags each agent is given its own of. */
  static List<String> agentArgs(List<String> args) {
    List<String> kept = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      String name = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
      if (REPLACED_WITH_VALUE.contains(name)) {
        if (!a.contains("=")) i++;
        continue;
      }
      if (REPLACED.contains(a)) continue;
      kept.add(a);
    }
    return kept;
  }

  /** The result file of agent {@code k}, beside the merged one. */
  static Path agentFile(Path out, int k) {
    String name = out.getFileName().toString();
    String base = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
    return out.resolveSibling(base + ".agent" + k + ".json");
  }

  /**
   * Starts the agents, waits for every one, merges what they wrote; the exit code. {@code startAt}:
   * the user's shared start, or null to start them together once all are set up (see {@link
   * StartSignal}).
   */
  static int run(
      CliContext ctx,
      List<String> runArgs,
      int agents,
      Instant startAt,
      boolean allowMissing,
      Path out,
      Path html,
      Consumer<String> log)
      throws IOException, InterruptedException {
    return run(ctx, runArgs, agents, startAt, allowMissing, out, html, RunThresholds.none(), log);
  }

  /**
   * As above, {@code limits} checked on the merged result, not by the agents (each measures only
   * its share).
   */
  static int run(
      CliContext ctx,
      List<String> runArgs,
      int agents,
      Instant startAt,
      boolean allowMissing,
      Path out,
      Path html,
      RunThresholds limits,
      Consumer<String> log)
      throws IOException, InterruptedException {
    Files.createDirectories(out.toAbsolutePath().getParent());
    List<Process> running = new ArrayList<>();
    // Ctrl-C or a kill of this process stops the agents too: none is left measuring alone.
    Thread stopAgents = new Thread(() -> running.forEach(Process::destroy));
    Runtime.getRuntime().addShutdownHook(stopAgents);
    List<SegmentMerge.Input> inputs = new ArrayList<>();
    Path signal =
        out.resolveSibling(out.getFileName().toString().replaceFirst("\\.json$", "") + ".start");
    Files.deleteIfExists(signal);
    for (int k = 1; k <= agents; k++) Files.deleteIfExists(StartSignal.readyFile(signal, k));
    try {
      for (int k = 1; k <= agents; k++) {
        Path file = agentFile(out, k);
        Files.deleteIfExists(
            file); // an agent that never writes must not leave an older run's file to be merged
        List<String> command = new ArrayList<>(ForkedSeries.thisJvm());
        command.addAll(agentArgs(runArgs)); // "run" and what followed it, as the user typed them
        command.addAll(List.of("--segment", k + "/" + agents, "--out", file.toString(), "--quiet"));
        // A time the user gave is everyone's; else each agent waits, ready, for the one time given
        // once all are.
        command.addAll(
            startAt != null
                ? List.of("--start-at", startAt.toString())
                : List.of("--start-signal", signal.toString()));
        ProcessBuilder pb =
            new ProcessBuilder(command)
                .directory(ctx.workingDir().toFile())
                .redirectErrorStream(true)
                .redirectOutput(
                    file.resolveSibling(file.getFileName().toString().replace(".json", ".log"))
                        .toFile());
        pb.environment().clear();
        pb.environment().putAll(ctx.env());
        Process p = pb.start();
        running.add(p);
        log.accept("agent " + k + "/" + agents + ": pid " + p.pid() + ", result " + file);
      }
      Instant start =
          startAt != null
              ? startAt
              : StartSignal.startWhenReady(
                  signal, running, AgentOptions.LOCAL_READY_WITHIN, ctx.clock());
      log.accept(agents + " agents start at " + start);
      for (int k = 1; k <= agents; k++) {
        int code = running.get(k - 1).waitFor();
        Path file = agentFile(out, k);
        if (code != 0)
          log.accept(
              "agent "
                  + k
                  + "/"
                  + agents
                  + " exited with "
                  + code
                  + "; its log: "
                  + file.resolveSibling(file.getFileName().toString().replace(".json", ".log")));
        if (Files.exists(file)) {
          try {
            inputs.add(new SegmentMerge.Input(file, RunResultJson.read(file)));
          } catch (IOException e) {
            log.accept("agent " + k + "/" + agents + ": " + e.getMessage());
          }
        }
      }
    } finally {
      running.forEach(Process::destroy);
      Files.deleteIfExists(signal);
      for (int k = 1; k <= agents; k++) Files.deleteIfExists(StartSignal.readyFile(signal, k));
      try {
        Runtime.getRuntime().removeShutdownHook(stopAgents);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running already
      }
    }
    if (inputs.isEmpty()) {
      ctx.err()
          .println("cannot merge: no agent wrote a result; see the agents' logs beside " + out);
      return ExitCodes.RUN_FAILED;
    }
    if (inputs.size() < agents) {
      // The merge names the missing segments; a partial result's .hlog is the agent's own, left
      // beside it.
      log.accept((agents - inputs.size()) + " of " + agents + " agents wrote no result");
    }
    String commandLine = "pkibench " + String.join(" ", runArgs);
    int code;
    try {
      code =
          MergeCommand.mergeAndSave(
              ctx, inputs, allowMissing, commandLine, out, html, limits, NotMerged::new);
    } catch (NotMerged e) {
      // Not bad flags: the agents ran, and what they left cannot be added up; their files stay for
      // a look or a later merge.
      ctx.err().println(e.getMessage());
      return ExitCodes.RUN_FAILED;
    }
    ctx.out()
        .println(
            "saved "
                + out
                + " (agents' own results beside it: "
                + agentFile(out, 1).getFileName()
                + " …); interval logs: "
                + ResultFile.hlogFileFor(agentFile(out, 1)).getFileName()
                + " …");
    return code;
  }
}
