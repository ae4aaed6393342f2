package io.pkibench.session;

import io.pkibench.engine.IterationOutcome;
import io.pkibench.engine.ProgressListener;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.files.OutputFiles;
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
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code --profile}: JDK Flight Recorder on every JVM of a run (this client, a {@code --cpu pid:N}
 * JVM through jcmd, the services a study starts with the recording switched on from their first
 * instruction), the spans of each workload's measured iterations noted as the engine reports them,
 * and at the end, per workload and side, the top frames by self time and a flame graph (drawn by
 * async-profiler's JFR converter, see {@link FlameGraphs}). Everything is kept beside the result:
 * {@code RESULT.SIDE.jfr}, {@code RESULT.profile.json}, {@code RESULT.SIDE.N.html}, each owner-only
 * and never written through a link at its path ({@link OutputFiles}). No recording holds the JVMs'
 * environment, system properties or arguments ({@link JfrRecorder#SECRET_BEARING_EVENTS}): a PIN is
 * often kept there.
 */
public final class RunProfiler {
  static final int TOP_FRAMES = 15;
  private static final Pattern SERVICE_JFR = Pattern.compile("^service-(\\d+)\\.jfr$");
  private final Path resultFile;
  private final List<JfrRecorder> recorders;
  private final InstantSource wallClock;
  private final Consumer<String> log;
  private final Map<String, List<JfrSamples.Window>> windows = new LinkedHashMap<>();
  private final List<CpuProfile.Recording> problems = new ArrayList<>();
  private final List<JfrRecorder> started = new ArrayList<>();

  /**
   * Where the services write their recordings as they exit (mode 0700, made on first need), copied
   * beside the result at the end.
   */
  private Path servicesDir;

  /**
   * {@code wallClock} must be the system's: the recordings stamp their samples with it, and the
   * workloads' spans are matched against those stamps.
   */
  public RunProfiler(
      Path resultFile, List<JfrRecorder> recorders, InstantSource wallClock, Consumer<String> log) {
    this.resultFile = resultFile.toAbsolutePath();
    this.recorders = List.copyOf(recorders);
    this.wallClock = wallClock;
    this.log = log;
  }

  /**
   * The JVM options that make a service started by a study record itself from its start, without
   * the events that copy its environment, properties and arguments, writing {@code service-PID.jfr}
   * when it stops (each restart a new pid, a new file) into a directory of this run's that only its
   * user can enter (the recording's working files too: by default they sit world-readable in the
   * temporary directory); {@link #finish} puts them beside the result as {@code
   * RESULT.service-PID.jfr}.
   */
  public synchronized List<String> serviceJvmOptions() throws IOException {
    if (servicesDir == null) {
      servicesDir =
          Files.createTempDirectory(
              resultFile.getParent(), "." + CpuProfile.stem(resultFile) + ".recordings-");
    }
    return List.of(
        "-XX:FlightRecorderOptions=repository=" + servicesDir.resolve("repository"),
        "-XX:StartFlightRecording=name=pkibench-profile,settings=profile,"
            + String.join(",", JfrRecorder.secretBearingEventsOff())
            + ",dumponexit=true,filename="
            + servicesDir.resolve("service-%p.jfr"));
  }

  /**
   * Starts every recording; one that cannot start is noted (the report says why) and the run goes
   * on without it.
   */
  public void start() throws IOException {
    // A service's recording of an earlier run into the same result file would be read as this
    // run's.
    try (DirectoryStream<Path> dir =
        Files.newDirectoryStream(
            resultFile.getParent(), CpuProfile.stem(resultFile) + ".service-*.jfr")) {
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
        stop(
            r,
            resultFile.resolveSibling(CpuProfile.stem(resultFile) + "." + slug(r.side()) + ".jfr"));
      } catch (IOException | RuntimeException e) {
        log.accept("--profile: " + r.side() + ": " + e.getMessage());
      }
    }
    started.clear();
  }

  /**
   * Stops {@code r} into a new owner-only file beside {@code jfr}, then renames it to {@code jfr}
   * (a link there replaced, not followed).
   */
  private static void stop(JfrRecorder r, Path jfr) throws IOException {
    Path reserved = OutputFiles.reserveBeside(jfr);
    try {
      r.stopInto(reserved);
      OutputFiles.moveInto(reserved, jfr);
    } finally {
      Files.deleteIfExists(reserved);
    }
  }

  /** {@code inner}, also noting the span of every measured iteration under its workload's tag. */
  public ProgressListener watching(ProgressListener inner) {
    ProgressListener spans =
        new ProgressListener() {
          @Override
          public void iterationFinished(SeriesSpec spec, IterationOutcome outcome) {
            if (!outcome.warmup()) {
              Instant end = wallClock.instant();
              synchronized (windows) {
                windows
                    .computeIfAbsent(spec.workload(), k -> new ArrayList<>())
                    .add(
                        new JfrSamples.Window(
                            end.minus(Duration.ofNanos(outcome.durationNanos())), end));
              }
            }
          }
        };
    return ProgressListener.all(List.of(spans, inner));
  }

  /**
   * Stops the recordings into their files, picks up the services' (written as they stopped), reads
   * each for each workload's measured spans, draws the flame graphs if it can, and writes {@code
   * RESULT.profile.json}.
   */
  public CpuProfile finish() throws IOException {
    String stem = CpuProfile.stem(resultFile);
    List<CpuProfile.Recording> recordings = new ArrayList<>();
    Map<String, Path> files = new LinkedHashMap<>();
    for (JfrRecorder r : started) {
      Path jfr = resultFile.resolveSibling(stem + "." + slug(r.side()) + ".jfr");
      try {
        stop(r, jfr);
        recordings.add(new CpuProfile.Recording(r.side(), jfr.getFileName().toString(), null));
        files.put(r.side(), jfr);
      } catch (IOException | RuntimeException e) {
        recordings.add(new CpuProfile.Recording(r.side(), null, "not recorded: " + e.getMessage()));
        log.accept("--profile: " + r.side() + " not recorded: " + e.getMessage());
      }
    }
    recordings.addAll(problems);
    for (Path written : servicesRecordings()) {
      Matcher m = SERVICE_JFR.matcher(written.getFileName().toString());
      if (!m.find()) continue;
      String side = "service pid " + m.group(1);
      Path jfr = resultFile.resolveSibling(stem + ".service-" + m.group(1) + ".jfr");
      try {
        OutputFiles.replace(
            jfr,
            out ->
                Files.copy(
                    written,
                    out)); // created owner-only beside the result, whatever mode the service gave
        // its own
        recordings.add(new CpuProfile.Recording(side, jfr.getFileName().toString(), null));
        files.put(side, jfr);
      } catch (IOException e) {
        recordings.add(new CpuProfile.Recording(side, null, "not kept: " + e.getMessage()));
        log.accept("--profile: " + side + " not kept: " + e.getMessage());
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
        String flame =
            draw(
                f.getValue(),
                from,
                to,
                w.getKey() + " · " + f.getKey(),
                stem + "." + slug(f.getKey()) + "." + n + ".html");
        sides.add(
            new CpuProfile.Side(
                f.getKey(),
                s.samples(),
                s.top().stream().map(t -> new CpuProfile.Frame(t.frame(), t.samples())).toList(),
                flame));
      }
      workloads.add(new CpuProfile.Workload(w.getKey(), from, to, sides));
    }
    CpuProfile profile =
        new CpuProfile(CpuProfile.FORMAT, FlameGraphs.RENDERER, null, recordings, workloads);
    CpuProfile.write(profile, CpuProfile.fileFor(resultFile));
    removeServicesDir();
    return profile;
  }

  /** The recordings the services wrote as they stopped, in the order of their names. */
  private List<Path> servicesRecordings() throws IOException {
    List<Path> written = new ArrayList<>();
    if (servicesDir == null) return written;
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(servicesDir, "service-*.jfr")) {
      for (Path jfr : dir)
        if (SERVICE_JFR.matcher(jfr.getFileName().toString()).find()) written.add(jfr);
    }
    written.sort(null);
    return written;
  }

  /**
   * The services' directory, once their recordings are beside the result (their JFR repositories
   * within it, left by a killed JVM, too).
   */
  private void removeServicesDir() throws IOException {
    if (servicesDir == null) return;
    try (var all = Files.walk(servicesDir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
  }

  /**
   * A flame graph of {@code jfr}'s CPU samples between {@code from} and {@code to}; its file name,
   * or null (said) when it could not be drawn.
   */
  private String draw(Path jfr, Instant from, Instant to, String title, String name) {
    try {
      Path graph = resultFile.resolveSibling(name);
      Path reserved =
          OutputFiles.reserveBeside(
              graph); // the converter writes a path it is given: one nobody could have put a link
      // at
      try {
        FlameGraphs.draw(jfr, from, to, title, reserved);
        OutputFiles.moveInto(reserved, graph);
      } finally {
        Files.deleteIfExists(reserved);
      }
      return name;
    } catch (IOException | RuntimeException e) {
      log.accept("--profile: no flame graph of " + jfr.getFileName() + ": " + e);
      return null;
    }
  }

  /**
   * "client (this JVM)" → "client", "service pid 4242" → "pid-4242" (a service started by a study:
   * "service-4242").
   */
  static String slug(String side) {
    if (side.startsWith("client")) return "client";
    return side.replaceAll("[^A-Za-z0-9]+", "-")
        .replaceAll("^-|-$", "")
        .replace("service-pid-", "pid-");
  }
}
