package io.pkibench.session;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.measure.HlogFile;
import io.pkibench.measure.IntervalLog;
import io.pkibench.results.Environment;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * The one result file of a run or a study, with its interval log ({@code FILE.hlog}) beside it.
 * Every change is written at once, atomically, so a run killed at any point keeps what it measured;
 * several plans (a study's steps) append to the same file and the same log.
 */
public final class ResultFile implements AutoCloseable {
  private final Path path;
  private final IntervalLog intervals;
  private RunResult current;

  private ResultFile(Path path, IntervalLog intervals, RunResult current) {
    this.path = path;
    this.intervals = intervals;
    this.current = current;
  }

  /** Starts {@code path} (status running) and its interval log. */
  public static ResultFile create(Path path, Environment environment, JsonNode plan)
      throws IOException {
    RunResult start = RunResult.start(environment, plan);
    RunResultJson.write(start, path);
    HlogFile hlog =
        new HlogFile(
            hlogFileFor(path), environment.startedAt(), "pkibench " + environment.commandLine());
    return new ResultFile(path, hlog, start);
  }

  public static Path hlogFileFor(Path resultFile) {
    String name = resultFile.getFileName().toString();
    String base = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
    return resultFile.resolveSibling(base + ".hlog");
  }

  public synchronized RunResult current() {
    return current;
  }

  /** Applies {@code change} and writes the file before returning the new result. */
  public synchronized RunResult update(UnaryOperator<RunResult> change) throws IOException {
    RunResult next = change.apply(current);
    if (levels(next) > levels(current)) PAUSE_IN_LEVEL_SAVE.pause();
    RunResultJson.write(next, path);
    current = next;
    return next;
  }

  private static int levels(RunResult r) {
    return r.workloads().stream().mapToInt(w -> w.levels().size()).sum();
  }

  /**
   * A test's seam, off unless the JVM is started with {@code
   * -Dpkibench.test.pauseInLevelSave=FILE}: the save of a new level then creates FILE and waits (at
   * most {@link SavePause#LONGEST}) until the test deletes it, so that a signal sent meanwhile
   * lands inside the save (KilledRunTest).
   */
  private static final SavePause PAUSE_IN_LEVEL_SAVE =
      SavePause.of(System.getProperty("pkibench.test.pauseInLevelSave"));

  public IntervalLog intervals() {
    return intervals;
  }

  public Path path() {
    return path;
  }

  @Override
  public void close() {
    intervals.close();
  }
}
