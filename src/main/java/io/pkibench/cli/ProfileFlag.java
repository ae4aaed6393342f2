package io.pkibench.cli;

import io.pkibench.measure.JcmdRecorder;
import io.pkibench.measure.JfrRecorder;
import io.pkibench.measure.ThisJvmRecorder;
import io.pkibench.results.CpuProfile;
import io.pkibench.session.RunProfiler;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * {@code --profile} of run and study: its checks, the recorders it starts, and what it prints and
 * adds to the report.
 */
final class ProfileFlag {
  static final String DESCRIPTION =
      "record the client with JDK Flight Recorder (and the services a study starts, or the --cpu pid:N JVM through jcmd, which needs a JDK);"
          + " the HTML report gains 'where the CPU went' per workload: top frames and a flame graph per side; the .jfr files are kept beside the result";

  private ProfileFlag() {}

  /**
   * The pids of a {@code --cpu pid:N[+M…]} meter (empty for jvm and host, and for a value the --cpu
   * check refuses).
   */
  static List<Long> pids(String cpu) {
    if (cpu == null || !cpu.startsWith("pid:")) return List.of();
    try {
      return Arrays.stream(cpu.substring(4).split("\\+")).map(Long::parseLong).toList();
    } catch (NumberFormatException e) {
      return List.of();
    }
  }

  /** Every reason {@code --profile} cannot record this run. */
  static List<String> problems(String cpu, boolean fork) {
    List<String> problems = new ArrayList<>();
    if (fork)
      problems.add(
          "--profile with --fork: the series would run in JVMs the profile does not record; leave one of them out");
    for (long pid : pids(cpu)) {
      String problem =
          JcmdRecorder.problem(
              JcmdRecorder.jcmdOfThisJdk(), pid, "--profile with --cpu pid:" + pid);
      if (problem != null) problems.add(problem);
    }
    return problems;
  }

  /** This JVM, and each {@code --cpu} pid through jcmd. */
  static RunProfiler forRun(Path resultFile, String cpu, Consumer<String> log) {
    List<JfrRecorder> recorders = new ArrayList<>(List.of(new ThisJvmRecorder()));
    for (long pid : pids(cpu)) recorders.add(new JcmdRecorder(JcmdRecorder.jcmdOfThisJdk(), pid));
    return new RunProfiler(resultFile, recorders, InstantSource.system(), log);
  }

  /**
   * This JVM; the study's services record themselves (see {@link RunProfiler#serviceJvmOptions}).
   */
  static RunProfiler forStudy(Path resultFile, Consumer<String> log) {
    return new RunProfiler(resultFile, List.of(new ThisJvmRecorder()), InstantSource.system(), log);
  }

  /** The java command of a study's services, recording themselves from their start. */
  static List<String> serviceJava(List<String> javaCommand, RunProfiler profiler)
      throws IOException {
    List<String> java = new ArrayList<>(javaCommand.subList(0, 1));
    java.addAll(profiler.serviceJvmOptions());
    java.addAll(javaCommand.subList(1, javaCommand.size()));
    return java;
  }

  /**
   * The profile beside {@code resultFile}, or null; one that cannot be read is said and left out of
   * the report.
   */
  static CpuProfile readBeside(Path resultFile, PrintWriter err) {
    try {
      return CpuProfile.readBeside(resultFile);
    } catch (IOException e) {
      err.println(
          "the profile beside " + resultFile + " is left out of the report: " + e.getMessage());
      return null;
    }
  }
}
