package io.pkibench.session;

import io.pkibench.engine.EngineException;
import io.pkibench.engine.LoadDriver;
import io.pkibench.engine.ProgressListener;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.keys.KeySource;
import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.IntervalLog;
import io.pkibench.pki.TestPki;
import io.pkibench.results.RunResultJson;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * Runs a series in a fresh JVM ({@code run --fork}, JMH's forks): JIT profile, heap and provider
 * state start afresh each series. The child is this same program ({@code pkibench series}); it gets
 * a request file and answers with its iterations and its interval log, which are copied into the
 * parent's.
 */
public final class ForkedSeries {
  private static final int KEPT_OUTPUT_LINES = 20;
  private final List<String> javaCommand;
  private final List<String> childOptions;
  private final Map<String, String> env;
  private final Path scratchDir;
  private final IntervalLog intervalLog;
  private final Consumer<String> log;
  private volatile Process running;

  /**
   * {@code childOptions}: where the child finds keys (e.g. {@code --pki DIR --pin-file FILE});
   * never a secret itself.
   */
  public ForkedSeries(
      List<String> javaCommand,
      List<String> childOptions,
      Map<String, String> env,
      Path scratchDir,
      IntervalLog intervalLog,
      Consumer<String> log) {
    this.javaCommand = List.copyOf(javaCommand);
    this.childOptions = List.copyOf(childOptions);
    this.env = Map.copyOf(env);
    this.scratchDir = scratchDir;
    this.intervalLog = intervalLog;
    this.log = log;
  }

  /**
   * This JVM's java binary, its options, class path and main class: how to start another one of us.
   */
  public static List<String> thisJvm() {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!arg.startsWith("-agentlib:jdwp")) cmd.add(arg); // a debugger port can be bound only once
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("io.pkibench.cli.Main");
    return cmd;
  }

  /** Stops the child in flight (its series is dropped, as an interrupted level is). */
  public void interrupt() {
    Process p = running;
    if (p != null) p.destroy();
  }

  /**
   * Runs the series in a fresh JVM: its iterations, counted outcomes and key-node calls; a failure
   * it answered is thrown.
   */
  public SeriesRun run(SeriesRequest request)
      throws EngineException, IOException, InterruptedException {
    Files.createDirectories(scratchDir);
    Path requestFile = Files.createTempFile(scratchDir, "series-", ".request.json");
    Path responseFile =
        requestFile.resolveSibling(
            requestFile.getFileName().toString().replace(".request.json", ".response.json"));
    Path childLog =
        requestFile.resolveSibling(
            requestFile.getFileName().toString().replace(".request.json", ".hlog"));
    try {
      Files.writeString(requestFile, RunResultJson.mapper().writeValueAsString(request));
      List<String> cmd = new ArrayList<>(javaCommand);
      cmd.addAll(
          List.of(
              "series",
              "--request",
              requestFile.toString(),
              "--response",
              responseFile.toString(),
              "--hlog",
              childLog.toString()));
      cmd.addAll(childOptions);
      ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
      builder.environment().clear();
      builder.environment().putAll(env);
      Process child = builder.start();
      running = child;
      Deque<String> lastLines = new ArrayDeque<>();
      try (BufferedReader out =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          log.accept("  [fork] " + line);
          if (lastLines.size() == KEPT_OUTPUT_LINES) lastLines.removeFirst();
          lastLines.addLast(line);
        }
      }
      int code = child.waitFor();
      running = null;
      copyIntervals(childLog);
      if (!Files.exists(responseFile)) {
        throw new EngineException(
            "the forked JVM exited with code "
                + code
                + " without an answer; its last output: "
                + String.join(" | ", lastLines),
            null);
      }
      SeriesResponse response =
          RunResultJson.mapper().readValue(responseFile.toFile(), SeriesResponse.class);
      if (!SeriesResponse.SCHEMA.equals(response.schema())) {
        throw new EngineException(
            "the forked JVM answered in format "
                + response.schema()
                + ", expected "
                + SeriesResponse.SCHEMA,
            null);
      }
      if (response.failure() != null) throw new EngineException(response.failure(), null);
      return new SeriesRun(response.iterations(), response.outcomes(), response.keyNodes());
    } finally {
      Files.deleteIfExists(requestFile);
      Files.deleteIfExists(responseFile);
      Files.deleteIfExists(childLog);
    }
  }

  /**
   * The child's side: runs the requested series in this JVM and answers; never throws for a series
   * that cannot run.
   */
  public static SeriesResponse serveHere(
      SeriesRequest request,
      WorkloadCatalog catalog,
      RunSession.KeyOpener keys,
      Supplier<TestPki> pki,
      ProgressListener progress,
      IntervalLog intervalLog,
      InstantSource clock,
      Map<String, String> env)
      throws InterruptedException {
    var spec = request.workload();
    try {
      // The same checks the parent made: a request this version cannot run is answered as such, not
      // half-run.
      List<String> problems = catalog.problems(spec);
      if (!problems.isEmpty())
        return new SeriesResponse(SeriesResponse.SCHEMA, List.of(), String.join("; ", problems));
      var factory = catalog.factoryOf(spec).orElseThrow();
      var params = Params.resolve(spec.name(), factory.params(), spec.params());
      var cpu = CpuMeter.of(request.cpu());
      try (KeySource source = factory.usesKeys() ? keys.open(spec.keys()) : null) {
        var driver =
            new LoadDriver(
                request.threads(),
                progress,
                intervalLog,
                clock,
                Duration.ofMillis(request.hangGraceMillis()));
        var seriesSpec =
            new SeriesSpec(
                spec.name(),
                request.load(),
                request.series(),
                request.seriesCount(),
                request.warmup(),
                request.measure());
        var run =
            SeriesRunner.runHere(
                factory,
                new WorkloadContext(
                    source, request.verify(), pki, clock, env, request.verifyEvery()),
                params,
                seriesSpec,
                driver,
                cpu);
        return new SeriesResponse(
            SeriesResponse.SCHEMA,
            run.iterations(),
            null,
            run.outcomes(),
            source == null ? List.of() : source.nodes());
      }
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      return new SeriesResponse(
          SeriesResponse.SCHEMA, List.of(), e.getMessage() == null ? e.toString() : e.getMessage());
    }
  }

  /**
   * The child's intervals keep their absolute timestamps, so they land in the parent's log at the
   * right time.
   */
  private void copyIntervals(Path childLog) throws IOException {
    if (!Files.exists(childLog)) return;
    HistogramLogReader reader = new HistogramLogReader(childLog.toFile());
    for (EncodableHistogram h = reader.nextIntervalHistogram();
        h != null;
        h = reader.nextIntervalHistogram()) {
      if (h instanceof Histogram histogram) intervalLog.write(histogram.getTag(), histogram);
    }
  }
}
