package io.pkibench.session;

import io.pkibench.engine.IterationOutcome;
import io.pkibench.engine.LoadDriver;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.LatencyHistograms;
import io.pkibench.results.ErrorCount;
import io.pkibench.results.IterationResult;
import io.pkibench.results.MemberIteration;
import io.pkibench.workload.api.CountedOutcomes;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs one series in this JVM: a fresh workload (no state carries over between series), driven by
 * the engine.
 */
final class SeriesRunner {
  private SeriesRunner() {}

  static SeriesRun runHere(
      WorkloadFactory factory,
      WorkloadContext context,
      Params params,
      SeriesSpec spec,
      LoadDriver driver,
      CpuMeter cpu)
      throws Exception {
    List<IterationResult> iterations = new ArrayList<>();
    try (Workload workload = factory.create(context, params)) {
      for (IterationOutcome o : driver.runSeries(spec, workload, cpu)) iterations.add(toResult(o));
      return new SeriesRun(
          iterations, workload instanceof CountedOutcomes counted ? counted.outcomes() : Map.of());
    }
  }

  static IterationResult toResult(IterationOutcome o) {
    return IterationResult.builder()
        .series(o.series())
        .index(o.index())
        .warmup(o.warmup())
        .durationNanos(o.durationNanos())
        .started(o.started())
        .succeeded(o.succeeded())
        .failed(o.failed())
        .cpuNanos(o.cpuNanos())
        .errors(ErrorCount.sorted(o.errors()))
        .histogram(LatencyHistograms.toBase64(o.latency()))
        .lateStarts(o.uncorrected() == null ? null : o.lateStarts())
        .missedStarts(o.uncorrected() == null ? null : o.missedStarts())
        .uncorrectedHistogram(
            o.uncorrected() == null ? null : LatencyHistograms.toBase64(o.uncorrected()))
        .members(
            o.members().stream()
                .map(
                    m ->
                        new MemberIteration(
                            m.label(),
                            m.started(),
                            m.succeeded(),
                            m.failed(),
                            ErrorCount.sorted(m.errors()),
                            LatencyHistograms.toBase64(m.latency())))
                .toList())
        .verified(o.verified())
        .build();
  }
}
