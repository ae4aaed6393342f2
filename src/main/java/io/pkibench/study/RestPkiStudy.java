package io.pkibench.study;

import io.pkibench.workload.api.ParamSpec;
import io.pkibench.keys.KeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.LevelResult;
import io.pkibench.results.StudyRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Study 1 of STUDIES.md: the signing service sized by transaction type, each type run alone. The
 * service runs as its own JVM and its CPU is measured by pid. For each type a probe sweep finds the
 * thread count that drives the service's CPU to 90% or stops gaining throughput; then that thread
 * count is measured for the study's duration. With {@code restartPerType} the service is restarted
 * before each type, as the original restarted between tests.
 */
public final class RestPkiStudy implements Study {
  /** The share of the service's cores a probe seeks: the original's "CPU near 100%" condition, short of the last 10%. */
  static final double TARGET_UTILISATION = 0.9;

  /**
   * Why the original's figures are not a yardstick for ours: its stress tool sent every document over a slow client
   * link (the study names it), where ours runs on loopback, so ours over it would measure the link, not the service.
   */
  static final String LINK_BOUND = "the original was link-bound: its stress tool sent the 137 KB document over a 50 Mbps down / 6 Mbps up"
      + " client link (the study names it; CAdES averaged 12.9 s per operation at 40 threads), where ours runs on loopback";

  /**
   * The original's unit: operations per minute with the service's 2 cores near 100%. Ours in it: operations per
   * service CPU-second × 60 × 2, i.e. what our service would do with 2 cores busy, scaled linearly from the CPU it used.
   */
  static final StudyRecord.Unit SEED_UNIT = new StudyRecord.Unit("ops/min at 100% of 2 service cores", 120, StudyRecord.Unit.PER_SERVICE_CPU_SECOND);

  private static final StudyInfo INFO = new StudyInfo("restpki",
      "a two-phase signing service sized by transaction type, each alone (after Lacuna Rest PKI 1.13.2)",
      StudyRecord.Unit.OPS_PER_MINUTE,
      new StudyRecord.Published("Lacuna Rest PKI 1.13.2 stress test (STUDIES.md, study 1)",
          "the service on a 2-core VM (E5-2660 at 2.2 GHz); the stress tool on another machine over a slow client link; one certificate, CRLs fetched once",
          List.of(new StudyRecord.Figure("Authentication", 750, "40 threads, CPU near 100%", LINK_BOUND),
              new StudyRecord.Figure("CAdES", 183, "40 threads, CPU near 100%", LINK_BOUND),
              new StudyRecord.Figure("PAdES", 170, "20 threads, CPU near 100%", LINK_BOUND)),
          SEED_UNIT, new StudyRecord.Condition("the service's CPU near 100%", TARGET_UTILISATION), List.of()),
      StudyInfo.DEFAULT_DURATION);

  @Override
  public StudyInfo info() {
    return INFO;
  }

  /** A transaction type: the original's name for it and the workload that drives it. */
  public record Type(String label, String workload) {}

  public static final List<Type> TYPES = List.of(
      new Type("Authentication", "http:auth"), new Type("CAdES", "http:cades"), new Type("CAdES-T", "http:cades-t"),
      new Type("PAdES", "http:pades"), new Type("PAdES-T", "http:pades-t"), new Type("Timestamp", "http:timestamp"));
  static final double MIN_GAIN = 0.05;
  static final String SIGNER = "signer";

  private final boolean restartPerType;

  public RestPkiStudy(boolean restartPerType) {
    this.restartPerType = restartPerType;
  }

  @Override
  public List<String> problems(StudyOptions options) {
    List<String> problems = new ArrayList<>();
    if (options.duration().compareTo(Duration.ofSeconds(5)) < 0) problems.add("--duration: measure each type at least 5s, e.g. --duration 1m");
    return problems;
  }

  @Override
  public List<ServiceSpec> services(StudyOptions options) {
    List<String> args = new ArrayList<>(List.of("signer", "--pki", options.pkiDir().toString(), "--keys", options.keys()));
    if (options.pinFile() != null) args.addAll(List.of("--pin-file", options.pinFile().toString()));
    return List.of(new ServiceSpec(SIGNER, args, "https"));
  }

  @Override
  public List<Step> steps(StudyOptions options, RunningServices services) {
    List<Integer> probeLevels = options.quick() ? List.of(2, 8, 32) : List.of(1, 2, 4, 8, 16, 32, 64);
    Iterations probeEach = Iterations.parse(options.quick() ? "1x1s" : "1x5s");
    // --duration is the measured time per type, in five iterations, as the original's runs; quick keeps
    // three, so that a service still warming up can be told apart from noise.
    long seconds = Math.max(5, options.duration().toSeconds());
    Iterations warmup = options.warmup("1x1s", 1, Duration.ofSeconds(Math.max(5, seconds / 10)));
    Iterations measure = options.iterations("3x3s", 5, Duration.ofSeconds(Math.max(1, seconds / 5)));
    List<Step> steps = new ArrayList<>();
    for (Type type : TYPES) {
      // CAdES signs the same 137 KB PDF as PAdES: the original signed one document throughout.
      Map<String, String> params = type.workload().startsWith("http:cades")
          ? Map.of(ParamSpec.TARGET, services.url(SIGNER), "document", "pdf") : Map.of(ParamSpec.TARGET, services.url(SIGNER));
      WorkloadSpec spec = new WorkloadSpec(type.workload(), params, options.keys());
      // Each probed level warms until steady too: a probe of a cold service reads the JIT's progress as the level's
      // (2 threads at 0.9 ops/s, then 32 "still gaining"), and chooses by it.
      Plan probe = plan(spec, probeLevels, new Iterations(0, probeEach.each(), StudyOptions.QUICK_WARMUP_CAP), probeEach);
      Step step = Step.of(type.label(), plan(spec, List.of(1), warmup, measure)).probedBy(probe, RestPkiStudy::choose);
      if (restartPerType && !steps.isEmpty()) step = step.before(StepHook.restartServices());
      steps.add(step);
    }
    return steps;
  }

  private static Plan plan(WorkloadSpec spec, List<Integer> levels, Iterations warmup, Iterations measure) {
    return Plan.of(List.of(spec)).concurrency(levels).warmup(warmup).measure(measure).cpu("services").build();
  }

  @Override
  public List<String> notes(StudyOptions options) {
    // A JVM service compiles for tens of seconds under load; --quick measures it before that ends.
    return options.quick()
        ? List.of("quick: each type warmed 1 s at a time until the service's CPU per operation held (at most 6 s: a type that never steadied is flagged); its JIT may still gain over minutes. For sizing figures: --duration 5m")
        : List.of();
  }

  /** The first probed level that drives the service to 90% CPU, or the last before one that gains under 5%, or the highest. */
  static Step.LevelChooser.Choice choose(List<LevelResult> levels) {
    List<LevelResult> sorted = levels.stream().sorted(Comparator.comparingInt(LevelResult::concurrency)).toList();
    for (int i = 0; i < sorted.size(); i++) {
      LevelResult l = sorted.get(i);
      if (l.cpu().utilisation() >= TARGET_UTILISATION) {
        return new Step.LevelChooser.Choice(l.concurrency(), String.format(java.util.Locale.ROOT, "the first probed level to drive the service's CPU to %.0f%%",
            l.cpu().utilisation() * 100));
      }
      if (i > 0 && l.throughput().mean() < sorted.get(i - 1).throughput().mean() * (1 + MIN_GAIN)) {
        return new Step.LevelChooser.Choice(sorted.get(i - 1).concurrency(), "the next probed level, " + l.concurrency() + ", gained under 5%");
      }
    }
    return new Step.LevelChooser.Choice(sorted.get(sorted.size() - 1).concurrency(), "the highest probed level; it was still gaining");
  }

  @Override
  public List<Sample> samples(Path dir, TestPki pki, KeySource keys, InstantSource clock) throws Exception {
    return StudySamples.write(dir, pki, keys, clock);
  }
}
