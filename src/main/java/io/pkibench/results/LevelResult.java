package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.pkibench.measure.LatencyHistograms;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * One level (a concurrency) of one workload: totals and summaries over the measured iterations of
 * every series; {@code iterations} keeps each iteration, warm-up included, with its histogram. A
 * staged level ({@code run --stages}) is one measured iteration through the stages, with its {@code
 * timeline}. A mix's {@code members} give each member's share of the level (absent for any other
 * workload).
 */
public record LevelResult(
    int concurrency,
    Counts counts,
    Throughput throughput,
    LatencyNanos latencyNanos,
    Cpu cpu,
    List<ErrorCount> errors,
    OpenLoop openLoop,
    List<IterationResult> iterations,
    @JsonInclude(JsonInclude.Include.NON_NULL) Timeline timeline,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<MemberLevel> members) {

  public LevelResult(
      int concurrency,
      Counts counts,
      Throughput throughput,
      LatencyNanos latencyNanos,
      Cpu cpu,
      List<ErrorCount> errors,
      OpenLoop openLoop,
      List<IterationResult> iterations) {
    this(
        concurrency,
        counts,
        throughput,
        latencyNanos,
        cpu,
        errors,
        openLoop,
        iterations,
        null,
        List.of());
  }

  /**
   * {@code timeline}: a staged level's time series and per-stage summaries (absent from levels held
   * steady).
   */
  public LevelResult withTimeline(Timeline newTimeline) {
    return new LevelResult(
        concurrency,
        counts,
        throughput,
        latencyNanos,
        cpu,
        errors,
        openLoop,
        iterations,
        newTimeline,
        members);
  }

  /**
   * Open-loop facts of a level: the rate asked for and the rate achieved, starts later than 1 ms
   * after their scheduled time, starts never made within their iteration, and latency from the
   * actual start (what a coordinated-omission-prone tool would have reported) beside the corrected
   * {@code latencyNanos}.
   */
  public record OpenLoop(
      double targetRate,
      double achievedRate,
      long lateStarts,
      long missedStarts,
      LatencyNanos uncorrectedLatencyNanos) {}

  /** What the level varies: the target rate in open loop, the number of workers in closed loop. */
  @JsonIgnore
  public double load() {
    return openLoop == null ? concurrency : openLoop.targetRate();
  }

  public LevelResult {
    errors = List.copyOf(errors);
    iterations = List.copyOf(iterations);
    members = members == null ? List.of() : List.copyOf(members);
  }

  /**
   * Summarises the measured (non-warm-up) iterations; histograms are merged, never averaged. {@code
   * targetRate} null = closed loop.
   */
  public static LevelResult of(
      int concurrency,
      Double targetRate,
      List<IterationResult> iterations,
      String cpuMeter,
      int cores) {
    List<IterationResult> measured = iterations.stream().filter(i -> !i.warmup()).toList();
    long started = 0, succeeded = 0, failed = 0, durationNanos = 0, cpuNanos = 0;
    double[] rates = new double[measured.size()];
    // Summed as they are decoded, one at a time: a level of many iterations never holds all their
    // histograms at once.
    Histogram latency = LatencyHistograms.newHistogram();
    Histogram uncorrected = LatencyHistograms.newHistogram();
    long late = 0, missed = 0;
    Long verified = null; // stays null unless an iteration checked answers
    Map<String, Long> errors = new TreeMap<>();
    for (int i = 0; i < measured.size(); i++) {
      IterationResult it = measured.get(i);
      started += it.started();
      succeeded += it.succeeded();
      failed += it.failed();
      verified = Counts.sumVerified(verified, it.verified());
      durationNanos += it.durationNanos();
      cpuNanos += it.cpuNanos();
      rates[i] = it.opsPerSecond();
      latency.add(LatencyHistograms.fromBase64(it.histogram()));
      if (it.uncorrectedHistogram() != null)
        uncorrected.add(LatencyHistograms.fromBase64(it.uncorrectedHistogram()));
      if (it.lateStarts() != null) late += it.lateStarts();
      if (it.missedStarts() != null) missed += it.missedStarts();
      for (ErrorCount e : it.errors()) errors.merge(e.cause(), e.count(), Long::sum);
    }
    Throughput throughput = Throughput.of(rates);
    OpenLoop open =
        targetRate == null
            ? null
            : new OpenLoop(
                targetRate, throughput.mean(), late, missed, LatencyNanos.of(uncorrected));
    return new LevelResult(
        concurrency,
        new Counts(started, succeeded, failed, verified),
        throughput,
        LatencyNanos.of(latency),
        Cpu.of(cpuNanos, durationNanos, succeeded, cores, cpuMeter),
        ErrorCount.sorted(errors),
        open,
        iterations,
        null,
        MemberLevel.of(measured));
  }

  /** Every successful latency of the measured iterations in one histogram. */
  public Histogram mergedHistogram() {
    Histogram merged = LatencyHistograms.newHistogram();
    for (IterationResult i : iterations)
      if (!i.warmup())
        merged.add(LatencyHistograms.fromBase64(i.histogram())); // one decoded at a time
    return merged;
  }
}
