package io.pkibench.session;

import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.files.OutputFiles;
import io.pkibench.measure.LatencyHistograms;
import io.pkibench.plan.LevelLoad;
import io.pkibench.plan.Stages;
import io.pkibench.results.ErrorCount;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.MemberIteration;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.Timeline;
import io.pkibench.results.WorkloadResult;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.HdrHistogram.Histogram;

/**
 * A staged level's seconds written as they are measured: one JSON line each, with its histograms,
 * appended to {@code BASE.timeline.jsonl} beside the result file {@code BASE.json} (as its interval
 * log is {@code BASE.hlog}). A staged level is one iteration through every stage, saved in the
 * result only when it ends; this file is what a run killed before then (SIGKILL, a crash) leaves of
 * it, and {@link #recover} folds it back into the result as an interrupted level. The first line
 * names the workload, the stages, the level and the members; it is removed once the level is saved.
 * Each line is one write to the file (no buffer held back in this process): a killed JVM loses at
 * most the line it was writing, which the reader leaves out.
 */
public final class TimelineJournal implements TimelineRecorder.Journal, AutoCloseable {
  static final String FORMAT = "pkibench.timeline-journal/1";
  private static final ObjectWriter LINE =
      RunResultJson.mapper().writer().without(SerializationFeature.INDENT_OUTPUT);

  /** What the first line says: whose seconds follow, and what their level needs to be rebuilt. */
  record Header(
      String format,
      int workload,
      String name,
      String stages,
      int concurrency,
      Double targetRate,
      String cpuMeter,
      int cores,
      List<String> members) {}

  /** One measured second, its latency histogram and its members' (base64, in member order). */
  record Line(Timeline.Second second, String histogram, List<String> members) {}

  private final Path path;
  private final int workload;
  private final String name;
  private final String cpuMeter;
  private final int cores;
  private final Consumer<String> log;
  private OutputStream out;
  private SeriesSpec started;
  private boolean failed;

  private TimelineJournal(
      Path path, int workload, String name, String cpuMeter, int cores, Consumer<String> log) {
    this.path = path;
    this.workload = workload;
    this.name = name;
    this.cpuMeter = cpuMeter;
    this.cores = cores;
    this.log = log;
  }

  /** The journal beside {@code resultFile}: {@code BASE.timeline.jsonl}. */
  public static Path fileFor(Path resultFile) {
    String file = resultFile.getFileName().toString();
    String base = file.endsWith(".json") ? file.substring(0, file.length() - 5) : file;
    return resultFile.resolveSibling(base + ".timeline.jsonl");
  }

  /**
   * A journal for workload {@code index} of {@code resultFile}, or {@link
   * TimelineRecorder.Journal#NONE} when the result is not a regular file (/dev/null, a pipe): there
   * is nothing beside it to recover into.
   */
  static TimelineRecorder.Journal beside(
      Path resultFile, int index, String name, String cpuMeter, int cores, Consumer<String> log) {
    if (Files.exists(resultFile) && !Files.isRegularFile(resultFile))
      return TimelineRecorder.Journal.NONE;
    return new TimelineJournal(fileFor(resultFile), index, name, cpuMeter, cores, log);
  }

  @Override
  public synchronized void second(
      SeriesSpec spec, Timeline.Second second, Histogram latency, List<Histogram> members) {
    if (failed) return;
    try {
      if (spec != started) {
        // A new staged series: the journal holds the series being measured only (those before it
        // are in the result).
        close();
        started = spec;
        out = OutputFiles.createNew(path); // owner-only; a link at its path refused
        Double rate = spec.load() instanceof LevelLoad.Open open ? open.ratePerSecond() : null;
        write(
            new Header(
                FORMAT,
                workload,
                name,
                spec.stages().toString(),
                spec.concurrency(),
                rate,
                cpuMeter,
                cores,
                second.members().stream().map(Timeline.MemberSecond::label).toList()));
      }
      write(
          new Line(
              second,
              LatencyHistograms.toBase64(latency),
              members.stream().map(LatencyHistograms::toBase64).toList()));
    } catch (IOException e) {
      // The run goes on: its result is saved as usual when the level ends; only a kill before then
      // would lose the seconds.
      failed = true;
      log.accept(
          "cannot write the staged level's seconds to "
              + path
              + " ("
              + e.getMessage()
              + "); the run goes on, but a kill before"
              + " the level ends would lose them");
    }
  }

  private void write(Object value) throws IOException {
    byte[] line = (LINE.writeValueAsString(value) + "\n").getBytes(StandardCharsets.UTF_8);
    out.write(line);
  }

  /** The level is saved in the result: the journal has nothing more to keep. */
  synchronized void levelSaved() throws IOException {
    close();
    started = null;
    Files.deleteIfExists(path);
  }

  @Override
  public synchronized void close() throws IOException {
    if (out != null) out.close();
    out = null;
  }

  /**
   * {@code t} marked interrupted at its last second's end, when that is before the stages' end (a
   * stop just after it loses nothing).
   */
  static Timeline stoppedPartWay(Timeline t) {
    long last = t.seconds().get(t.seconds().size() - 1).toMillis();
    return last < Stages.fromText(t.stages()).total().toMillis() ? t.interruptedAt(last) : t;
  }

  /**
   * {@code result} (read from {@code resultFile}) with the staged level a killed run was measuring,
   * rebuilt from the journal beside it and marked interrupted, and the run's status interrupted;
   * {@code result} unchanged when there is no journal, when it is empty, or when its level is
   * already in the result.
   */
  public static RunResult recover(Path resultFile, RunResult result) throws IOException {
    Path journal = fileFor(resultFile);
    if (!Files.isRegularFile(journal)) return result;
    List<String> lines = Files.readAllLines(journal, StandardCharsets.UTF_8);
    if (lines.isEmpty()) return result;
    Header header;
    try {
      header = RunResultJson.mapper().readValue(lines.get(0), Header.class);
    } catch (IOException torn) {
      return result; // killed while writing its first line: no second was measured
    }
    if (!FORMAT.equals(header.format()))
      throw new IOException(journal + ": not a " + FORMAT + " file (" + header.format() + ")");
    if (header.workload() >= result.workloads().size()) return result;
    WorkloadResult w = result.workloads().get(header.workload());
    if (w.levels().stream().anyMatch(l -> l.timeline() != null)) return result;
    TimelineRecorder recorder = new TimelineRecorder();
    recorder.start(null, Stages.fromText(header.stages()), 0, header.members());
    long started = 0, succeeded = 0, failed = 0, lastMillis = 0;
    double cpuSeconds = 0;
    for (int i = 1; i < lines.size(); i++) {
      Line line;
      try {
        line = RunResultJson.mapper().readValue(lines.get(i), Line.class);
      } catch (IOException torn) {
        break; // the line being written when the JVM was killed
      }
      List<Histogram> members = line.members().stream().map(LatencyHistograms::fromBase64).toList();
      recorder.add(line.second(), LatencyHistograms.fromBase64(line.histogram()), members);
      started += line.second().started();
      succeeded += line.second().succeeded();
      failed += line.second().failed();
      cpuSeconds += line.second().cpuSeconds();
      lastMillis = line.second().toMillis();
    }
    Timeline timeline = recorder.timeline();
    if (timeline.seconds().isEmpty()) return result;
    timeline = timeline.interruptedAt(lastMillis);
    IterationResult iteration =
        iterationOf(timeline, started, succeeded, failed, lastMillis, cpuSeconds, header);
    LevelResult level =
        LevelResult.of(
                header.concurrency(),
                header.targetRate(),
                List.of(iteration),
                header.cpuMeter(),
                header.cores())
            .withTimeline(timeline);
    RunResult recovered = result.withWorkload(header.workload(), w.withLevel(level));
    return result.status() == RunStatus.RUNNING
        ? recovered.withStatus(RunStatus.INTERRUPTED)
        : recovered;
  }

  /**
   * The measured iteration as far as its seconds go: their counts, CPU and summed histograms
   * ({@code started} includes the operations in flight at the last second). The failures' causes
   * are tallied only when an iteration ends, so a killed one's are counted under one cause that
   * says so; an open loop's late and missed starts likewise, so absent.
   */
  private static IterationResult iterationOf(
      Timeline t,
      long started,
      long succeeded,
      long failed,
      long millis,
      double cpuSeconds,
      Header header) {
    List<Histogram> stages =
        t.perStage().stream().map(Timeline.StageSummary::mergedHistogram).toList();
    List<ErrorCount> errors =
        failed == 0
            ? List.of()
            : List.of(
                new ErrorCount(
                    "unknown: the run was killed before the causes of its failures were tallied",
                    failed));
    List<MemberIteration> members = new ArrayList<>();
    for (int m = 0; m < header.members().size(); m++) {
      long mStarted = 0, mSucceeded = 0, mFailed = 0;
      List<Histogram> latency = new ArrayList<>();
      for (Timeline.StageSummary s : t.perStage()) {
        Timeline.MemberStage ms = s.members().get(m);
        mStarted += ms.counts().started();
        mSucceeded += ms.counts().succeeded();
        mFailed += ms.counts().failed();
        latency.add(ms.mergedHistogram());
      }
      members.add(
          new MemberIteration(
              header.members().get(m),
              mStarted,
              mSucceeded,
              mFailed,
              mFailed == 0
                  ? List.of()
                  : List.of(
                      new ErrorCount(
                          "unknown: the run was killed before the causes of its failures were tallied",
                          mFailed)),
              LatencyHistograms.toBase64(LatencyHistograms.merge(latency))));
    }
    return IterationResult.builder()
        .series(1)
        .index(1)
        .durationNanos(millis * 1_000_000L)
        .started(started)
        .succeeded(succeeded)
        .failed(failed)
        .cpuNanos(Math.round(cpuSeconds * 1e9))
        .errors(errors)
        .histogram(LatencyHistograms.toBase64(LatencyHistograms.merge(stages)))
        .members(members)
        .build();
  }
}
