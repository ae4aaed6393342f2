package io.pkibench.study;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pkibench.engine.ProgressListener;
import io.pkibench.measure.CpuMeter;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.ThreadKind;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.Environment;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.WorkloadResult;
import io.pkibench.session.ForkedSeries;
import io.pkibench.session.RunSession;
import io.pkibench.workload.WorkloadCatalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Study 1 of STUDIES.md: the signing service sized by transaction type, each type run alone. The
 * service runs as its own JVM and its CPU is measured by pid. For each type a short probe sweep finds
 * the thread count that drives the service's CPU to 90% or stops gaining throughput; then that thread
 * count is measured for the study's duration. The result (one workload entry per type) is written
 * after every type.
 */
public final class RestPkiStudy {
  public static final List<String> TYPES = List.of("http:auth", "http:cades", "http:cades-t", "http:pades", "http:pades-t", "http:timestamp");
  static final double TARGET_UTILISATION = 0.9;
  static final double MIN_GAIN = 0.05;

  /** {@code quick}: probes of 1 s and 9 s measured per type; otherwise probes of 5 s and {@code duration} measured. */
  public record Options(boolean quick, Duration duration, Path out, Path pkiDir, String keys, Path pinFile) {}

  /** One type as the study reports it: the threads it chose, and the measured level. */
  public record TypeResult(String type, int threads, LevelResult level) {}

  private final Options options;
  private final Map<String, String> env;
  private final InstantSource clock;
  private final ProgressListener progress;
  private final Consumer<String> log;
  private final RunSession.KeyOpener keys;

  public RestPkiStudy(Options options, Map<String, String> env, InstantSource clock, ProgressListener progress, Consumer<String> log,
      RunSession.KeyOpener keys) {
    this.options = options;
    this.env = env;
    this.clock = clock;
    this.progress = progress;
    this.log = log;
    this.keys = keys;
  }

  public RunResult run(Environment environment) throws Exception {
    TestPki pki = TestPki.openOrInit(options.pkiDir(), clock, log);
    ObjectNode plan = RunResultJson.mapper().createObjectNode();
    plan.put("study", "restpki");
    plan.put("quick", options.quick());
    plan.put("duration", options.duration().toString());
    plan.putPOJO("types", TYPES);
    RunResult study = RunResult.start(environment, plan);
    RunResultJson.write(study, options.out());
    List<String> serve = new ArrayList<>(List.of("serve", "signer", "--port", "0", "--pki", options.pkiDir().toString(), "--keys", options.keys()));
    if (options.pinFile() != null) serve.addAll(List.of("--pin-file", options.pinFile().toString()));
    try (ServiceProcess signer = ServiceProcess.start(ForkedSeries.thisJvm(), serve, env)) {
      log.accept("signing service " + signer.url() + " (pid " + signer.pid() + "); its CPU is what is sized");
      for (String type : TYPES) {
        int threads = probe(type, signer, pki);
        log.accept(type + ": " + threads + " threads");
        WorkloadResult measured = measure(type, threads, signer, pki);
        panel(measured).lines().forEach(log);
        study = study.withWorkload(study.workloads().size(), measured);
        RunResultJson.write(study, options.out());
      }
    }
    study = study.withStatus("complete");
    RunResultJson.write(study, options.out());
    return study;
  }

  /** Sweeps thread counts briefly; picks the first that drives the service to 90% CPU or gains under 5% over the last. */
  private int probe(String type, ServiceProcess signer, TestPki pki) throws Exception {
    List<Integer> levels = options.quick() ? List.of(2, 8, 32) : List.of(1, 2, 4, 8, 16, 32, 64);
    Iterations each = Iterations.parse(options.quick() ? "1x1s" : "1x5s");
    WorkloadResult probed = session(type, levels, Iterations.parse("0x1s"), each, signer, pki, "probe");
    if (probed.levels().isEmpty()) throw new IOException(type + ": the probe measured nothing: " + probed.failure());
    return choose(probed.levels());
  }

  /** The stress tool's panel for one transaction type, shown when its measurement ends. */
  static String panel(WorkloadResult w) {
    if (w.levels().isEmpty()) return "[" + w.name() + "] not measured: " + w.failure();
    LevelResult l = w.levels().get(0);
    String steadiness = io.pkibench.analysis.Steadiness.warning(l).map(text -> "│ " + text + System.lineSeparator()).orElse("");
    return String.format(java.util.Locale.ROOT,
        "┌─ %s%n│ threads %d   operations %d   successes %d   errors %d%n│ average %.2f ms   max %.2f ms   p99 %.2f ms%n"
            + "│ %.0f ops/min   %s ops per service CPU-second   service CPU %.0f%%%n%s└─%n",
        w.name(), l.concurrency(), l.counts().started(), l.counts().succeeded(), l.counts().failed(),
        l.latencyNanos().mean() / 1e6, l.latencyNanos().max() / 1e6, l.latencyNanos().p99() / 1e6, l.throughput().mean() * 60,
        l.cpu().opsPerCpuSecond() == null ? "-" : String.format(java.util.Locale.ROOT, "%.0f", l.cpu().opsPerCpuSecond()),
        l.cpu().utilisation() * 100, steadiness);
  }

  static int choose(List<LevelResult> levels) {
    List<LevelResult> sorted = levels.stream().sorted(Comparator.comparingInt(LevelResult::concurrency)).toList();
    for (int i = 0; i < sorted.size(); i++) {
      LevelResult l = sorted.get(i);
      if (l.cpu().utilisation() >= TARGET_UTILISATION) return l.concurrency();
      if (i > 0 && l.throughput().mean() < sorted.get(i - 1).throughput().mean() * (1 + MIN_GAIN)) return sorted.get(i - 1).concurrency();
    }
    return sorted.get(sorted.size() - 1).concurrency();
  }

  private WorkloadResult measure(String type, int threads, ServiceProcess signer, TestPki pki) throws Exception {
    Iterations warmup, measure;
    if (options.quick()) {
      warmup = Iterations.parse("1x2s");
      measure = Iterations.parse("3x3s"); // three, so that a service still warming up can be told apart from noise
    } else {
      long seconds = Math.max(5, options.duration().toSeconds());
      warmup = Iterations.parse("1x" + Math.max(5, seconds / 10) + "s");
      measure = Iterations.parse("5x" + Math.max(1, seconds / 5) + "s");
    }
    return session(type, List.of(threads), warmup, measure, signer, pki, "measure");
  }

  private WorkloadResult session(String type, List<Integer> levels, Iterations warmup, Iterations measure, ServiceProcess signer,
      TestPki pki, String phase) throws Exception {
    Plan plan = new Plan(List.of(new WorkloadSpec(type, Map.of("target", signer.url()), options.keys())), new LoadModel.Closed(levels),
        warmup, measure, 1, ThreadKind.PLATFORM, false, "pid:" + signer.pid());
    Path scratch = Files.createTempFile(options.out().toAbsolutePath().getParent(), ".restpki-" + phase + "-", ".json");
    try {
      RunSession session = new RunSession(plan, WorkloadCatalog.builtIn(), keys, new RunSession.Options(CpuMeter.of("pid:" + signer.pid()),
          scratch, clock, progress, log, Duration.ofSeconds(60), null, io.pkibench.analysis.Analysis.Options.DEFAULT, () -> pki));
      RunResult result = session.run(new Environment("", "", "", "", "", 0, 0, List.of(), "", clock.instant()));
      return result.workloads().get(0);
    } finally {
      Files.deleteIfExists(scratch);
      Files.deleteIfExists(RunSession.hlogFileFor(scratch));
    }
  }
}
