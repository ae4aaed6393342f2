package io.pkibench.session;

import io.pkibench.analysis.Analysis;
import io.pkibench.engine.LoadDriver;
import io.pkibench.engine.EngineException;
import io.pkibench.engine.ProgressListener;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.keys.KeySource;
import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.HlogFile;
import io.pkibench.measure.IntervalLog;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.Environment;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.WorkloadResult;
import io.pkibench.workload.Params;
import io.pkibench.workload.WorkloadCatalog;
import io.pkibench.workload.WorkloadContext;
import io.pkibench.workload.WorkloadFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs a plan end to end: opens each workload's keys, drives the engine level by level (in this
 * JVM, or a fresh JVM per series with {@code fork}), and writes the result file after every level,
 * atomically, with interval histograms in {@code FILE.hlog}. A workload that cannot run is recorded
 * with its reason and the run goes on with the next.
 */
public final class RunSession {
  private final Plan plan;
  private final WorkloadCatalog catalog;
  private final KeyOpener keys;
  private final Options options;
  private volatile LoadDriver driver;
  private volatile ForkedSeries forked;
  private volatile boolean interrupted;

  /** Opens the key source a {@code --keys} value names. */
  @FunctionalInterface
  public interface KeyOpener {
    KeySource open(String spec) throws Exception;
  }

  /**
   * How to run: whose CPU to count, where the result goes, the clock, where progress and log lines go,
   * how long a hung operation is waited for, and, when forking, how to make the forked-series runner
   * from the run's interval log (null: every series runs in this JVM), and the analysis options
   * (target rate, utilisation, baseline) of the analysis stored at the end, and the test PKI that
   * certificate-validating workloads trust.
   */
  public record Options(
      CpuMeter cpu, Path resultFile, InstantSource clock, ProgressListener progress, Consumer<String> log,
      Duration hangGrace, Function<IntervalLog, ForkedSeries> fork, Analysis.Options analysis,
      java.util.function.Supplier<io.pkibench.pki.TestPki> pki) {}

  public RunSession(Plan plan, WorkloadCatalog catalog, KeyOpener keys, Options options) {
    this.plan = plan.validated();
    this.catalog = catalog;
    this.keys = keys;
    this.options = options;
  }

  public static Path hlogFileFor(Path resultFile) {
    String name = resultFile.getFileName().toString();
    String base = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
    return resultFile.resolveSibling(base + ".hlog");
  }

  /** Stops after the operations in flight; the interrupted level is dropped, every finished one is kept. */
  public void interrupt() {
    interrupted = true;
    LoadDriver d = driver;
    if (d != null) d.abort();
    ForkedSeries f = forked;
    if (f != null) f.interrupt();
  }

  public RunResult run(Environment environment) throws IOException, InterruptedException {
    Path resultFile = options.resultFile();
    RunResult result = RunResult.start(environment, RunResultJson.mapper().valueToTree(plan));
    RunResultJson.write(result, resultFile);
    try (IntervalLog hlog = new HlogFile(hlogFileFor(resultFile), environment.startedAt(), "pkibench " + environment.commandLine())) {
      driver = new LoadDriver(plan.threads(), options.progress(), hlog, options.clock(), options.hangGrace());
      forked = options.fork() == null ? null : options.fork().apply(hlog);
      for (int w = 0; w < plan.workloads().size() && !interrupted; w++) {
        result = runWorkload(result, w, plan.workloads().get(w));
      }
    }
    result = result.withStatus(interrupted ? "interrupted" : "complete");
    result = result.withAnalysis(RunResultJson.mapper().valueToTree(Analysis.of(result, options.analysis())));
    RunResultJson.write(result, resultFile);
    return result;
  }

  private RunResult runWorkload(RunResult result, int index, WorkloadSpec spec) throws IOException, InterruptedException {
    CpuMeter cpu = options.cpu();
    WorkloadFactory factory = catalog.find(spec.name()).orElseThrow(
        () -> new IllegalArgumentException("unknown workload '" + spec.name() + "'; 'pkibench list' shows them"));
    Params params = Params.resolve(spec.name(), factory.params(), spec.params());
    WorkloadResult entry = new WorkloadResult(spec.name(), params.asMap(), factory.usesKeys() ? spec.keys() : "none", cpu.describe(), List.of(), null);
    result = result.withWorkload(index, entry);
    KeySource source = null;
    try {
      if (factory.usesKeys()) {
        // Opened here even when forking: a bad key source fails once, up front, and names itself.
        source = keys.open(spec.keys());
        entry = new WorkloadResult(spec.name(), params.asMap(), source.describe(), cpu.describe(), List.of(), null);
      }
      WorkloadContext context = new WorkloadContext(source, plan.verify(), options.pki());
      for (LevelLoad load : LevelLoad.of(plan.load())) {
        if (interrupted) break;
        List<IterationResult> iterations = new ArrayList<>();
        for (int series = 1; series <= plan.series() && !interrupted; series++) {
          SeriesSpec seriesSpec = new SeriesSpec(spec.name(), load.workers(), series, plan.series(), plan.warmup(), plan.measure(),
              load.ratePerSecond() == null ? 0 : load.ratePerSecond());
          iterations.addAll(forked == null
              ? SeriesRunner.runHere(factory, context, params, seriesSpec, driver, cpu)
              : forked.run(request(spec, seriesSpec)));
        }
        if (interrupted) break;
        LevelResult level = LevelResult.of(load.workers(), load.ratePerSecond(), iterations, cpu.describe(), cpu.cores());
        entry = entry.withLevel(level);
        result = result.withWorkload(index, entry);
        RunResultJson.write(result, options.resultFile());
        options.log().accept(LevelLine.of(spec.name(), level));
      }
    } catch (EngineException e) {
      // A series cut short by an interrupt (a forked JVM stopped) is the interrupt, not a failure of the workload.
      if (!interrupted) {
        entry = entry.withFailure(e.getMessage());
        options.log().accept(spec.name() + ": stopped: " + e.getMessage());
      }
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      String why = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
      entry = entry.withFailure(why);
      options.log().accept(spec.name() + ": cannot run: " + why);
    } finally {
      if (source != null) source.close();
    }
    result = result.withWorkload(index, entry);
    RunResultJson.write(result, options.resultFile());
    return result;
  }

  /** One level of the load model: how many workers and, in open loop, at what rate. */
  record LevelLoad(int workers, Double ratePerSecond) {
    static List<LevelLoad> of(LoadModel load) {
      return switch (load) {
        case LoadModel.Closed closed -> closed.concurrency().stream().map(n -> new LevelLoad(n, null)).toList();
        case LoadModel.Open open -> open.ratesPerSecond().stream().map(r -> new LevelLoad(open.workers(), r)).toList();
      };
    }
  }

  private SeriesRequest request(WorkloadSpec spec, SeriesSpec series) {
    return new SeriesRequest(spec, series.concurrency(), series.ratePerSecond(), series.series(), series.seriesCount(), series.warmup(), series.measure(),
        plan.threads(), plan.verify(), plan.cpu(), options.hangGrace().toMillis());
  }
}
