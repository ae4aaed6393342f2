package io.pkibench.session;

import io.pkibench.engine.ClosedLoopDriver;
import io.pkibench.engine.EngineException;
import io.pkibench.engine.IterationOutcome;
import io.pkibench.engine.ProgressListener;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.keys.KeySource;
import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.HlogFile;
import io.pkibench.measure.IntervalLog;
import io.pkibench.measure.LatencyHistograms;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.Environment;
import io.pkibench.results.ErrorCount;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.WorkloadResult;
import io.pkibench.workload.Params;
import io.pkibench.workload.Workload;
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

/**
 * Runs a plan end to end: opens each workload's keys, drives the engine level by level, and writes
 * the result file after every level (atomically), with interval histograms in {@code FILE.hlog}.
 * A workload that cannot run is recorded with its reason and the run goes on with the next.
 */
public final class RunSession {
  private final Plan plan;
  private final WorkloadCatalog catalog;
  private final KeyOpener keys;
  private final CpuMeter cpu;
  private final Path resultFile;
  private final InstantSource clock;
  private final ProgressListener progress;
  private final Consumer<String> log;
  private final Duration hangGrace;
  private volatile ClosedLoopDriver driver;
  private volatile boolean interrupted;

  /** Opens the key source a {@code --keys} value names. */
  @FunctionalInterface
  public interface KeyOpener {
    KeySource open(String spec) throws Exception;
  }

  public RunSession(Plan plan, WorkloadCatalog catalog, KeyOpener keys, CpuMeter cpu, Path resultFile,
      InstantSource clock, ProgressListener progress, Consumer<String> log, Duration hangGrace) {
    this.plan = plan.validated();
    this.catalog = catalog;
    this.keys = keys;
    this.cpu = cpu;
    this.resultFile = resultFile;
    this.clock = clock;
    this.progress = progress;
    this.log = log;
    this.hangGrace = hangGrace;
  }

  public static Path hlogFileFor(Path resultFile) {
    String name = resultFile.getFileName().toString();
    String base = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
    return resultFile.resolveSibling(base + ".hlog");
  }

  /** Stops after the operations in flight; the interrupted level is dropped, every finished one is kept. */
  public void interrupt() {
    interrupted = true;
    ClosedLoopDriver d = driver;
    if (d != null) d.abort();
  }

  public RunResult run(Environment environment) throws IOException, InterruptedException {
    RunResult result = RunResult.start(environment, RunResultJson.mapper().valueToTree(plan));
    RunResultJson.write(result, resultFile);
    try (IntervalLog hlog = new HlogFile(hlogFileFor(resultFile), environment.startedAt(), "pkibench " + environment.commandLine())) {
      ClosedLoopDriver d = new ClosedLoopDriver(plan.threads(), progress, hlog, clock, hangGrace);
      driver = d;
      for (int w = 0; w < plan.workloads().size() && !interrupted; w++) {
        result = runWorkload(result, w, plan.workloads().get(w), d);
      }
    }
    result = result.withStatus(interrupted ? "interrupted" : "complete");
    RunResultJson.write(result, resultFile);
    return result;
  }

  private RunResult runWorkload(RunResult result, int index, WorkloadSpec spec, ClosedLoopDriver d)
      throws IOException, InterruptedException {
    WorkloadFactory factory = catalog.find(spec.name()).orElseThrow(
        () -> new IllegalArgumentException("unknown workload '" + spec.name() + "'; 'pkibench list' shows them"));
    Params params = Params.resolve(spec.name(), factory.params(), spec.params());
    WorkloadResult entry = new WorkloadResult(spec.name(), params.asMap(), factory.usesKeys() ? spec.keys() : "none", cpu.describe(), List.of(), null);
    result = result.withWorkload(index, entry);
    KeySource source = null;
    try {
      if (factory.usesKeys()) {
        source = keys.open(spec.keys());
        entry = new WorkloadResult(spec.name(), params.asMap(), source.describe(), cpu.describe(), List.of(), null);
      }
      WorkloadContext context = new WorkloadContext(source, plan.verify());
      List<Integer> levels = switch (plan.load()) {
        case LoadModel.Closed closed -> closed.concurrency();
      };
      for (int concurrency : levels) {
        if (interrupted) break;
        List<IterationResult> iterations = new ArrayList<>();
        for (int series = 1; series <= plan.series() && !interrupted; series++) {
          SeriesSpec seriesSpec = new SeriesSpec(spec.name(), concurrency, series, plan.series(), plan.warmup(), plan.measure());
          // A fresh workload per series, as JMH forks start afresh: no state carries over between series.
          try (Workload workload = factory.create(context, params)) {
            for (IterationOutcome o : d.runSeries(seriesSpec, workload, cpu)) iterations.add(toResult(o));
          }
        }
        if (interrupted) break;
        LevelResult level = LevelResult.of(concurrency, iterations, cpu.describe(), cpu.cores());
        entry = entry.withLevel(level);
        result = result.withWorkload(index, entry);
        RunResultJson.write(result, resultFile);
        log.accept(LevelLine.of(spec.name(), level));
      }
    } catch (EngineException e) {
      entry = entry.withFailure(e.getMessage());
      log.accept(spec.name() + ": stopped: " + e.getMessage());
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      String why = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
      entry = entry.withFailure(why);
      log.accept(spec.name() + ": cannot run: " + why);
    } finally {
      if (source != null) source.close();
    }
    result = result.withWorkload(index, entry);
    RunResultJson.write(result, resultFile);
    return result;
  }

  private static IterationResult toResult(IterationOutcome o) {
    return new IterationResult(o.series(), o.index(), o.warmup(), o.durationNanos(), o.started(), o.succeeded(),
        o.failed(), o.cpuNanos(), ErrorCount.sorted(o.errors()), LatencyHistograms.toBase64(o.latency()));
  }
}
