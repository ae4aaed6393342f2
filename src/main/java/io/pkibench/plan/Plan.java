package io.pkibench.plan;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;

/**
 * What to run, validated and immutable: each workload, at each level of the load model, {@code
 * series} times, each series being {@code warmup} discarded iterations then {@code measure} kept
 * ones. {@code verifySample}: under {@code verify}, one answer in that many is checked ({@code
 * --verify-sample N}); 0 or 1: every one (0, the default, is left out of the plan as written).
 */
public record Plan(
    List<WorkloadSpec> workloads,
    LoadModel load,
    Iterations warmup,
    Iterations measure,
    int series,
    ThreadKind threads,
    boolean verify,
    String cpu,
    @JsonInclude(JsonInclude.Include.NON_DEFAULT) int verifySample) {

  public Plan {
    workloads = List.copyOf(workloads);
  }

  /** Checking every answer under {@code verify}. */
  public Plan(
      List<WorkloadSpec> workloads,
      LoadModel load,
      Iterations warmup,
      Iterations measure,
      int series,
      ThreadKind threads,
      boolean verify,
      String cpu) {
    this(workloads, load, warmup, measure, series, threads, verify, cpu, 0);
  }

  /** One answer in how many each worker checks under {@code verify} (1: every one). */
  public int verifyEvery() {
    return Math.max(1, verifySample);
  }

  /**
   * A plan of {@code workloads}, to be given its load and iterations: one series, platform threads,
   * no per-operation check, this JVM's CPU.
   */
  public static Builder of(List<WorkloadSpec> workloads) {
    return new Builder(workloads);
  }

  /** A copy of this plan to change, e.g. {@code plan.toBuilder().load(...).build()}. */
  public Builder toBuilder() {
    return new Builder(workloads)
        .load(load)
        .warmup(warmup)
        .measure(measure)
        .series(series)
        .threads(threads)
        .verify(verify)
        .verifySample(verifySample)
        .cpu(cpu);
  }

  /**
   * Names each setting, where the constructor takes eight positional ones ({@code 1, PLATFORM,
   * false, "services"}).
   */
  public static final class Builder {
    private final List<WorkloadSpec> workloads;
    private LoadModel load;
    private Iterations warmup;
    private Iterations measure;
    private int series = 1;
    private ThreadKind threads = ThreadKind.PLATFORM;
    private boolean verify;
    private int verifySample;
    private String cpu = "jvm";

    private Builder(List<WorkloadSpec> workloads) {
      this.workloads = workloads;
    }

    public Builder load(LoadModel load) {
      this.load = load;
      return this;
    }

    /** Closed loop at these worker counts. */
    public Builder concurrency(List<Integer> levels) {
      return load(new LoadModel.Closed(levels));
    }

    public Builder warmup(Iterations warmup) {
      this.warmup = warmup;
      return this;
    }

    public Builder measure(Iterations measure) {
      this.measure = measure;
      return this;
    }

    public Builder series(int series) {
      this.series = series;
      return this;
    }

    public Builder threads(ThreadKind threads) {
      this.threads = threads;
      return this;
    }

    /** Each operation checks its own output (signatures verified, payloads compared). */
    public Builder verify(boolean verify) {
      this.verify = verify;
      return this;
    }

    /**
     * Under {@code verify}, check one answer in {@code n} ({@code --verify-sample}; 0: every one).
     */
    public Builder verifySample(int n) {
      this.verifySample = n;
      return this;
    }

    /**
     * Whose CPU is counted: {@code jvm}, {@code host}, {@code services}, {@code client}, {@code
     * pid:N}...
     */
    public Builder cpu(String cpu) {
      this.cpu = cpu;
      return this;
    }

    public Plan build() {
      if (load == null || warmup == null || measure == null)
        throw new IllegalStateException("a plan needs its load, warm-up and measured iterations");
      return new Plan(workloads, load, warmup, measure, series, threads, verify, cpu, verifySample);
    }
  }

  /**
   * Workers a level may have in one process: a million virtual threads running noop peaked at 3.2
   * GB of RSS (100,000 at 0.6 GB, {@code bench/engine-workers}); a workload that holds connections
   * is limited further by the open files and ports it can use, checked before it starts.
   */
  public static final int MAX_WORKERS = 1_000_000;

  /**
   * Platform threads beyond this many are refused with a pointer to {@code --virtual-threads}: each
   * has its own stack, and 22,000 of them were seen to exhaust the machine's memory before the run
   * began.
   */
  public static final int MAX_PLATFORM_WORKERS = 4_096;

  public static final int MAX_ITERATIONS = 100_000;

  static List<String> workerProblems(String flag, int n, ThreadKind threads) {
    if (n < 1)
      return List.of(flag + ": " + n + " is out of range; use 1 to " + MAX_WORKERS + " workers");
    if (n > MAX_WORKERS) {
      return List.of(
          flag
              + ": "
              + n
              + " workers is more than one process runs ("
              + MAX_WORKERS
              + ": a million virtual threads already take about 3 GB); use at most "
              + MAX_WORKERS
              + ", or more processes");
    }
    if (n > MAX_PLATFORM_WORKERS && threads != ThreadKind.VIRTUAL) {
      return List.of(
          flag
              + ": "
              + n
              + " platform threads, one stack each, would take more memory than a run should; above "
              + MAX_PLATFORM_WORKERS
              + " add --virtual-threads");
    }
    return List.of();
  }

  /** Every problem at once, each naming the flag to change; empty when the plan can run. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (workloads.isEmpty()) problems.add("no workload given: name one, e.g. 'pkibench run sign'");
    switch (load) {
      case LoadModel.Closed closed -> {
        if (closed.concurrency().isEmpty())
          problems.add("--concurrency: give at least one level, e.g. 1,2,4");
        for (int n : closed.concurrency())
          problems.addAll(workerProblems("--concurrency", n, threads));
      }
      case LoadModel.Open open -> {
        if (open.ratesPerSecond().isEmpty())
          problems.add("--rates: give at least one rate, e.g. 100,200,400");
        for (double r : open.ratesPerSecond()) {
          if (!(r > 0) || r > 10_000_000)
            problems.add(
                "--rate: " + r + "/s is out of range; use more than 0 and at most 10000000/s");
        }
        problems.addAll(
            workerProblems(
                "--concurrency (with --rate, the workers serving the timetable)",
                open.workers(),
                threads));
      }
      case LoadModel.Staged staged -> problems.addAll(StagedPlan.problems(this, staged));
    }
    if (warmup.count() < 0) problems.add("--warmup: the count cannot be negative");
    if (warmup.upTo() > MAX_ITERATIONS || measure.count() > MAX_ITERATIONS) {
      problems.add(
          "--warmup/--measure: at most "
              + MAX_ITERATIONS
              + " iterations each; lengthen each iteration instead, e.g. 100x1m");
    }
    if (measure.count() < 1) problems.add("--measure: measure at least one iteration, e.g. 5x10s");
    if (measure.untilSteady())
      problems.add(
          "--measure: a fixed number of measured iterations, e.g. 5x10s; only the warm-up runs until steady (2..10x5s)");
    if (measure.each().toMillis() < 100 || (warmup.upTo() > 0 && warmup.each().toMillis() < 100)) {
      problems.add(
          "--warmup/--measure: iterations shorter than 100ms measure mostly noise; use 1s or more");
    }
    if (series < 1) problems.add("--series: run at least one series");
    if (verifySample < 0)
      problems.add(
          "--verify-sample: "
              + verifySample
              + " is below 1; give N to check one answer in N, e.g. --verify-sample 10 (default: every one)");
    else if (verifySample > 1 && !verify)
      problems.add("--verify-sample: checks are off; add --verify, or leave --verify-sample out");
    return problems;
  }

  /** Returns this plan, or throws with every problem listed. */
  public Plan validated() {
    List<String> problems = problems();
    if (!problems.isEmpty()) throw new PlanException(problems);
    return this;
  }
}
