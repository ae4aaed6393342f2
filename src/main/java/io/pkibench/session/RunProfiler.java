package io.pkibench.session;

import io.pkibench.engine.IterationOutcome;
import io.pkibench.engine.ProgressListener;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.measure.JfrRecorder;
import io.pkibench.measure.JfrSamples;
import io.pkibench.results.CpuProfile;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code --profile}: JDK Flight Recorder on every JVM of a run (this client, a {@code --cpu pid:N} JVM through jcmd,
 * the services a study starts with the recording switched on from their first instruction), the spans of each
 * workload's measured iterations noted as the engine reports them, and at the end, per workload and side, the top
 * frames by self time and a flame graph (drawn by async-profiler's JFR converter, see {@link FlameGraphs}). Everything
 * is kept beside the result: {@code RESULT.SIDE.jfr}, {@code RESULT.profile.json}, {@code RESULT.SIDE.N.html}.
 */
public final class RunProfiler {
  static final int TOP_FRAMES = 15;
  private static final Pattern SERVICE_JFR = Pattern.compile("\\.service-(\\d+)\\.jfr$");
  private final Path resultFile;
  private final List<JfrRecorder> recorders;
  private final InstantSource wallClock;
  private final Consumer<String> log;
  private final Map<String, List<JfrSamples.Window>> windows = new LinkedHashMap<>();
  private final List<CpuProfile.Recording> problems = new ArrayList<>();
  private final List<JfrRecorder> started = new ArrayList<>();

  /**
   * {@code wallClock} must be the system's: the recordings stamp their samples with it, and the workloads' spans are
   * matched against those stamps.
   */
  public RunProfiler(Path resultFile, List<JfrRecorder> recorders, InstantSource wallClock, Consumer<String> log) {
    this.resultFile = resultFile.toAbsolutePath();
    this.recorders = List.copyOf(recorders);
    this.wallClock = wallClock;
    this.log = log;
  }

  /**
   * The JVM option that makes a service started by a study record itself from its start, writing
   * {@code RESULT.service-PID.jfr} when it stops (each restart a new pid, a new file).
   */
  public static String serviceJvmOption(Path resultFile) {
    Path abs = resultFile.toAbsolutePath();
    return "-XX:StartFlightRecording=name=pkibench-profile,settings=profile,dumponexit=true,filename="
        + abs.resolveSibling(CpuProfile.stem(abs) + ".service-%p.jfr");
  }

  /** Starts every recording; one that cannot start is noted (the report says why) and the run goes on without it. */
  public void start() throws IOException {
    // A service's recording of an earlier run into the same result file would be read as this run's.
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(resultFile.getParent(), CpuProfile.stem(resultFile) + ".service-*.jfr")) {
      for (Path old : dir) Files.delete(old);
    }
    for (JfrRecorder r : recorders) {
      try {
        r.start();
        started.add(r);
      } catch (IOException | RuntimeException e) {
        problems.add(new CpuProfile.Recording(r.side(), null, "not recorded: " + e.getMessage()));
        log.accept("--profile: " + r.side() + " not recorded: " + e.getMessage());
      }
    }
  }

  /** Stops every recording, keeping nothing: the run failed before it could be read. */
  public void abandon() {
    for (JfrRecorder r : started) {
      try {
        r.stopInto(resultFile.resolveSibling(CpuProfile.stem(resultFile) + "." + slug(r.side()) + ".jfr"));
      } catch (IOException | RuntimeException e) {
        log.accept("--profile: " + r.side() + ": " + e.getMessage());
      }
    }
    started.clear();
  }

  /** {@code inner}, also noting the span of every measured iteration under its workload's tag. */
  public ProgressListener watching(ProgressListener inner) {
    ProgressListener spans = new ProgressListener() {
      @Override
      public void iterationFinished(SeriesSpec spec, IterationOutcome outcome) {
        if (!outcome.warmup()) {
          Instant end = wallClock.instant();
          synchronized (windows) {
            windows.computeIfAbsent(spec.workload(), k -> new ArrayList<>()).add(new JfrSamples.Window(end.minus(Duration.ofNanos(outcome.durationNanos())), end));
          }
        }
      }
    };
    return ProgressListener.all(List.of(spans, inner));
  }

  /**
   * Stops the recordings into their files, picks up the services' (written as they stopped), reads each for each
   * workload's measured spans, draws the flame graphs if it can, and writes {@code RESULT.profile.json}.
   */
  public CpuProfile finish() throws IOException {
    String stem = CpuProfile.stem(resultFile);
    List<CpuProfile.Recording> recordings = new ArrayList<>();
    Map<String, Path> files = new LinkedHashMap<>();
    for (JfrRecorder r : started) {
      Path jfr = resultFile.resolveSibling(stem + "." + slug(r.side()) + ".jfr");
      try {
        r.stopInto(jfr);
        recordings.add(new CpuProfile.Recording(r.side(), jfr.getFileName().toString(), null));
        files.put(r.side(), jfr);
      } catch (IOException | RuntimeException e) {
        recordings.add(new CpuProfile.Recording(r.side(), null, "not recorded: " + e.getMessage()));
        log.accept("--profile: " + r.side() + " not recorded: " + e.getMessage());
      }
    }
    recordings.addAll(problems);
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(resultFile.getParent(), stem + ".service-*.jfr")) {
      for (Path jfr : dir) {
        Matcher m = SERVICE_JFR.matcher(jfr.getFileName().toString());
        if (!m.find()) continue;
        String side = "service pid " + m.group(1);
        recordings.add(new CpuProfile.Recording(side, jfr.getFileName().toString(), null));
        files.put(side, jfr);
      }
    }
    List<CpuProfile.Workload> workloads = new ArrayList<>();
    Map<String, List<JfrSamples.Window>> spans;
    synchronized (windows) {
      spans = new LinkedHashMap<>(windows);
    }
    int n = 0;
    for (var w : spans.entrySet()) {
      n++;
      List<JfrSamples.Window> ws = w.getValue();
      Instant from = ws.stream().map(JfrSamples.Window::from).min(Instant::compareTo).orElseThrow();
      Instant to = ws.stream().map(JfrSamples.Window::to).max(Instant::compareTo).orElseThrow();
      List<CpuProfile.Side> sides = new ArrayList<>();
      for (var f : files.entrySet()) {
        JfrSamples.Summary s = JfrSamples.topFrames(f.getValue(), ws, TOP_FRAMES);
        String flame = draw(f.getValue(), from, to, w.getKey() + " · " + f.getKey(), stem + "." + slug(f.getKey()) + "." + n + ".html");
        sides.add(new CpuProfile.Side(f.getKey(), s.samples(),
            s.top().stream().map(t -> new CpuProfile.Frame(t.frame(), t.samples())).toList(), flame));
      }
      workloads.add(new CpuProfile.Workload(w.getKey(), from, to, sides));
    }
    CpuProfile profile = new CpuProfile(CpuProfile.FORMAT, FlameGraphs.RENDERER, null, recordings, workloads);
    CpuProfile.write(profile, CpuProfile.fileFor(resultFile));
    return profile;
  }

  /** A flame graph of {@code jfr}'s CPU samples between {@code from} and {@code to}; its file name, or null (said) when it could not be drawn. */
  private String draw(Path jfr, Instant from, Instant to, String title, String name) {
    try {
      FlameGraphs.draw(jfr, from, to, title, resultFile.resolveSibling(name));
      return name;
    } catch (IOException | RuntimeException e) {
      log.accept("--profile: no flame graph of " + jfr.getFileName() + ": " + e);
      return null;
    }
  }

  /** "client (this JVM)" → "client", "service pid 4242" → "pid-4242" (a service started by a study: "service-4242"). */
  static String slug(String side) {
    if (side.startsWith("client")) return "client";
    return side.replaceAll("[^A-Za-z0-9]+", "-").replaceAll("^-|-$", "").replace("service-pid-", "pid-");
  }
}
