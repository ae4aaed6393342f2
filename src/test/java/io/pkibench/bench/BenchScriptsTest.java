package io.pkibench.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.testing.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench scripts stop what they start. A script runs with a mark in its environment, which every
 * process it starts, and every process those start, inherits; once the script has ended, no process
 * may carry the mark. It runs in a process group of its own ({@code setsid}), as a terminal's
 * foreground job, for Ctrl-C to reach. The scripts run on the classes this suite was compiled to
 * (BENCH_CLASSPATH), so nothing is built here.
 */
@Timeout(
    value = 6,
    unit = TimeUnit.MINUTES) // the scripts start key-server JVMs: a hang ends, said as one
class BenchScriptsTest {
  @TempDir Path dir;

  /** A process carrying the script's mark: its pid, process group and command line. */
  record Left(long pid, long group, String command) {}

  /**
   * bench/rsfn, interrupted as Ctrl-C does (SIGINT to the whole foreground process group) once both
   * of its key-server nodes are up and its first run has begun: background processes of a script
   * ignore SIGINT, so the nodes end only if the script stops them.
   */
  @Test
  void rsfn_ctrlCOnceItsNodesAreUp_leavesNoProcessItStarted() throws Exception {
    Path log = dir.resolve("rsfn.log");
    String mark = "bench-scripts-test-" + java.util.UUID.randomUUID();
    // SIGINT as a terminal's shell leaves it for a command it runs (this JVM may have been started
    // with it ignored, which
    // a child inherits and bash cannot trap); -w: the process ends with the script
    ProcessBuilder builder =
        new ProcessBuilder(
                "setsid", "-w", "env", "--default-signal=INT", "bash", "bench/rsfn", "1", "30")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("BENCH_CLASSPATH", System.getProperty("java.class.path"));
    builder.environment().put("BENCH_SCRIPTS_TEST", mark);
    Process script = builder.start();
    try {
      try {
        Await.until(
            Duration.ofSeconds(240),
            "bench/rsfn's two nodes up and its first run started",
            () ->
                Files.readString(log).contains("rounds: ")
                    && started(mark).stream().filter(p -> pkibench(p, "run ")).count() == 1);
      } catch (AssertionError e) {
        throw new AssertionError(
            e.getMessage()
                + "; its output:\n"
                + Files.readString(log)
                + "\nits processes: "
                + started(mark),
            e);
      }
      List<Left> before = started(mark);
      assertEquals(
          2,
          before.stream().filter(p -> pkibench(p, "serve keyserver ")).count(),
          "two nodes running: " + before);
      long group =
          before.stream()
              .filter(p -> p.command().contains("bench/rsfn"))
              .findFirst()
              .orElseThrow()
              .group();
      new ProcessBuilder("kill", "-INT", "--", "-" + group)
          .inheritIO()
          .start()
          .waitFor(10, TimeUnit.SECONDS);
      assertTrue(
          script.waitFor(90, TimeUnit.SECONDS),
          "bench/rsfn ends after Ctrl-C:\n" + Files.readString(log));
      assertEquals(
          List.of(),
          started(mark),
          "processes bench/rsfn started and left running:\n" + Files.readString(log));
      assertEquals(
          130, script.exitValue(), "the script says it was interrupted:\n" + Files.readString(log));
    } finally {
      for (Left p : started(mark))
        ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroyForcibly);
      script.destroyForcibly();
    }
  }

  /** Whether {@code p} is pkibench (from classes or the jar) running {@code command}. */
  static boolean pkibench(Left p, String command) {
    return p.command().contains("io.pkibench.cli.Main " + command)
        || p.command().contains("pkibench.jar " + command);
  }

  /**
   * The live processes (zombies, already ended, excluded) whose environment carries {@code mark}.
   */
  static List<Left> started(String mark) throws IOException {
    byte[] wanted = ("BENCH_SCRIPTS_TEST=" + mark).getBytes(StandardCharsets.UTF_8);
    List<Left> found = new ArrayList<>();
    try (Stream<Path> all = Files.list(Path.of("/proc"))) {
      for (Path p :
          (Iterable<Path>) all.filter(d -> d.getFileName().toString().matches("\\d+"))::iterator) {
        String stat;
        String command;
        byte[] environment;
        try {
          stat = Files.readString(p.resolve("stat"));
          command =
              new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8)
                  .replace('\0', ' ')
                  .strip();
          environment = Files.readAllBytes(p.resolve("environ"));
        } catch (IOException goneOrNotOurs) {
          continue; // ended while listed
        }
        // after the command name in parentheses: state ppid pgrp ...
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        if (!fields[0].equals("Z") && contains(environment, wanted)) {
          found.add(
              new Left(
                  Long.parseLong(p.getFileName().toString()), Long.parseLong(fields[2]), command));
        }
      }
    }
    return found;
  }

  private static boolean contains(byte[] environment, byte[] entry) {
    outer:
    for (int i = 0; i + entry.length <= environment.length; i++) {
      if (i > 0 && environment[i - 1] != 0) continue; // entries start after a NUL
      for (int j = 0; j < entry.length; j++) if (environment[i + j] != entry[j]) continue outer;
      if (i + entry.length == environment.length || environment[i + entry.length] == 0) return true;
    }
    return false;
  }
}
