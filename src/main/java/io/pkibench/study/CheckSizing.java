package io.pkibench.study;

import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.results.WorkloadResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * {@code --check-sizing}: the sizing answer checked on this machine. After a study's steps, each
 * sized step is measured again with the services' CPU limited to {@link #LIMIT_CORES} by the
 * kernel's cpu controller, and its capacity at {@link #CHECK_CORES} predicted from that ({@link
 * StudyRecord.SizingCheck#FORMULA}); then measured under a limit of {@code CHECK_CORES}, at the
 * same level, to see how far the prediction missed.
 */
public final class CheckSizing {
  public static final double LIMIT_CORES = 0.5;
  public static final double CHECK_CORES = 1.0;

  private final List<Path> cgroupRoots;

  /**
   * {@code cgroupRoots}: where the services' group may be made, the first that takes one ({@link
   * CpuQuota#DEFAULT_ROOTS}).
   */
  public CheckSizing(List<Path> cgroupRoots) {
    this.cgroupRoots = List.copyOf(cgroupRoots);
  }

  /** Why the services' CPU cannot be limited here (checked before anything starts), or empty. */
  public Optional<String> problem() {
    return CpuQuota.problem(cgroupRoots).map(why -> "--check-sizing: " + why);
  }

  static String limitedLabel(String step) {
    return step + " @ " + cores(LIMIT_CORES) + " core";
  }

  static String checkLabel(String step) {
    return step + " @ " + cores(CHECK_CORES) + " core";
  }

  /**
   * The two steps that check {@code sized}: its plan under each limit, at the level {@code sized}
   * was measured at (of a sweep, its peak's), forked as it was.
   */
  List<Step> steps(Step sized) {
    return List.of(
        limited(sized, limitedLabel(sized.label()), LIMIT_CORES),
        limited(sized, checkLabel(sized.label()), CHECK_CORES));
  }

  private Step limited(Step sized, String label, double cores) {
    Step step = Step.of(label, sized.plan()).before(limit(cores)).atLevelOf(sized.label());
    return sized.forked() ? step.inForksWith(sized.forkJvmOptions()) : step;
  }

  private StepHook limit(double cores) {
    return new StepHook() {
      @Override
      public String describe() {
        return "limit the services' CPU to " + cores(cores) + " core (cgroup cpu quota)";
      }

      @Override
      public void run(RunningServices services) throws Exception {
        services.limitCpu(cgroupRoots, cores);
      }
    };
  }

  /** The note the result carries: what was done, and the formula. */
  static String note() {
    return "check-sizing: each sized step measured again with the services' CPU limited together by a cgroup cpu quota, first to "
        + cores(LIMIT_CORES)
        + " core, then to "
        + cores(CHECK_CORES)
        + " core, at the level it was sized at (of a sweep, its peak's); "
        + StudyRecord.SizingCheck.FORMULA
        + " (L = "
        + cores(LIMIT_CORES)
        + ", C = "
        + cores(CHECK_CORES)
        + ")";
  }

  /** Each of {@code sizedSteps} checked from {@code result}'s measurements of its two steps. */
  static List<StudyRecord.SizingCheck> of(RunResult result, List<String> sizedSteps) {
    List<StudyRecord.SizingCheck> checks = new ArrayList<>();
    for (String step : sizedSteps) checks.add(of(result, step));
    return checks;
  }

  private static StudyRecord.SizingCheck of(RunResult result, String step) {
    Optional<LevelResult> limited = measured(result, limitedLabel(step));
    Optional<LevelResult> checked = measured(result, checkLabel(step));
    Double perCpu = limited.map(l -> l.cpu().opsPerCpuSecond()).orElse(null);
    Double predicted = perCpu == null ? null : perCpu * CHECK_CORES;
    Double measured = checked.map(l -> l.throughput().mean()).orElse(null);
    Double miss =
        predicted == null || measured == null || measured == 0 ? null : predicted / measured - 1;
    String why =
        limited.isEmpty()
            ? "'" + limitedLabel(step) + "' was not measured"
            : perCpu == null
                ? "no service CPU was measured at " + cores(LIMIT_CORES) + " core"
                : checked.isEmpty()
                    ? "'" + checkLabel(step) + "' was not measured"
                    : measured == 0 ? "nothing succeeded at " + cores(CHECK_CORES) + " core" : null;
    return new StudyRecord.SizingCheck(
        step,
        LIMIT_CORES,
        CHECK_CORES,
        limitedLabel(step),
        checkLabel(step),
        limited.or(() -> checked).map(LevelResult::concurrency).orElse(null),
        perCpu,
        limited.map(CheckSizing::serviceCores).orElse(null),
        predicted,
        measured,
        checked.map(CheckSizing::serviceCores).orElse(null),
        miss,
        why);
  }

  /** The measured level of the step labelled {@code label}, if it was measured. */
  private static Optional<LevelResult> measured(RunResult result, String label) {
    if (result.study() == null) return Optional.empty();
    return result.study().steps().stream()
        .filter(s -> s.label().equals(label) && s.measuredWorkload() != null)
        .findFirst()
        .map(s -> result.workloads().get(s.measuredWorkload()))
        .map(WorkloadResult::levels)
        .filter(l -> !l.isEmpty())
        .map(l -> l.get(0));
  }

  /**
   * The service's CPU over the measured iterations in cores: CPU-seconds over wall seconds,
   * whatever cores it was given.
   */
  static Double serviceCores(LevelResult level) {
    long cpuNanos = 0, wallNanos = 0;
    for (IterationResult i : level.iterations()) {
      if (i.warmup()) continue;
      cpuNanos += i.cpuNanos();
      wallNanos += i.durationNanos();
    }
    return wallNanos == 0 ? null : (double) cpuNanos / wallNanos;
  }

  private static String cores(double cores) {
    return cores == Math.rint(cores)
        ? Long.toString((long) cores)
        : String.format(Locale.ROOT, "%.1f", cores);
  }
}
