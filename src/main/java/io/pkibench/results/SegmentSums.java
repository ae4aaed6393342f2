package io.pkibench.results;

import io.pkibench.measure.LatencyHistograms;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * The sums of {@link SegmentMerge}: what the agents measured at one place of the plan, added up as
 * one agent's would read (an iteration; a staged level's timeline). SegmentMerge checks the inputs
 * and walks the plan; this only adds.
 */
final class SegmentSums {
  private SegmentSums() {}

  /** Said in a merged staged workload's notes: what its per-second percentiles are. */
  static final String TIMELINE_NOTE =
      "stages merged: each second's counts, rates and running workers are the agents' added up (their shared"
          + " start lines their seconds up), each stage's latency is read from the agents' summed histograms; a second's p50 and p99 are the"
          + " highest of the agents' (an upper bound: a second's own histograms are in the agents' .hlog files)";

  /**
   * The agents' time series of one staged level as one: each agent followed the plan's stages on
   * the one shared start, so their k-th intervals cover the same time. Counts, rates, running
   * workers and CPU are added (CPU read by several agents on one host, of the host or a service,
   * that host's once); the targets are the plan's, which each agent recorded whole; each stage's
   * latency comes from the summed histograms. A second's percentiles cannot be read from the parts'
   * p50 and p99: the highest of them stands as a bound, and the merged workload says so.
   */
  static Timeline mergeTimelines(List<Timeline> parts, List<String> hosts, boolean ownProcess) {
    Timeline first = parts.get(0);
    List<Timeline.StageSummary> stages = new ArrayList<>();
    for (int i = 0; i < first.perStage().size(); i++) {
      Timeline.StageSummary base = first.perStage().get(i);
      long started = 0, succeeded = 0, failed = 0;
      double achieved = 0;
      Map<String, Double> cpuByHost = new LinkedHashMap<>();
      double cpu = 0;
      Histogram sum = LatencyHistograms.newHistogram(); // summed as decoded, one at a time
      for (int p = 0; p < parts.size(); p++) {
        if (parts.get(p).perStage().size() <= i) continue;
        Timeline.StageSummary s = parts.get(p).perStage().get(i);
        started += s.counts().started();
        succeeded += s.counts().succeeded();
        failed += s.counts().failed();
        achieved += s.achievedPerSecond();
        cpu += s.cpuSeconds();
        cpuByHost.merge(hosts.get(p), s.cpuSeconds(), Math::max);
        sum.add(s.mergedHistogram());
      }
      if (!ownProcess) cpu = cpuByHost.values().stream().mapToDouble(Double::doubleValue).sum();
      stages.add(
          new Timeline.StageSummary(
              base.stage(),
              base.target(),
              base.fromTarget(),
              base.toTarget(),
              base.fromMillis(),
              base.toMillis(),
              new Counts(started, succeeded, failed),
              achieved,
              base.targetPerSecond(),
              base.targetWorkers(),
              LatencyNanos.of(sum),
              cpu,
              cpu > 0 ? succeeded / cpu : null,
              LatencyHistograms.toBase64(sum)));
    }
    List<Timeline.Second> seconds = new ArrayList<>();
    int count = parts.stream().mapToInt(t -> t.seconds().size()).max().orElse(0);
    for (int k = 0; k < count; k++) {
      Timeline.Second base = null;
      long started = 0, succeeded = 0, failed = 0, p50 = 0, p99 = 0, max = 0;
      double ops = 0, cpu = 0;
      int active = 0;
      Map<String, Double> cpuByHost = new LinkedHashMap<>();
      for (int p = 0; p < parts.size(); p++) {
        if (parts.get(p).seconds().size() <= k) continue;
        Timeline.Second s = parts.get(p).seconds().get(k);
        if (base == null) base = s;
        started += s.started();
        succeeded += s.succeeded();
        failed += s.failed();
        ops += s.opsPerSecond();
        active += s.activeWorkers();
        p50 = Math.max(p50, s.p50Nanos());
        p99 = Math.max(p99, s.p99Nanos());
        max = Math.max(max, s.maxNanos());
        cpu += s.cpuSeconds();
        cpuByHost.merge(hosts.get(p), s.cpuSeconds(), Math::max);
      }
      if (!ownProcess) cpu = cpuByHost.values().stream().mapToDouble(Double::doubleValue).sum();
      seconds.add(
          new Timeline.Second(
              base.fromMillis(),
              base.toMillis(),
              base.stage(),
              started,
              succeeded,
              failed,
              ops,
              base.targetPerSecond(),
              base.targetWorkers(),
              active,
              p50,
              p99,
              max,
              cpu));
    }
    return new Timeline(first.stages(), stages, seconds);
  }

  /**
   * The iterations of every agent at one place of the plan, as one: counts, CPU and histograms
   * added; the longest duration. {@code hosts}: each part's host. CPU is added when each agent
   * measured its own process ({@code ownProcess}); a host's or a service's CPU read by several
   * agents on one host is that host's once (the largest reading), added across hosts.
   */
  static IterationResult sum(List<IterationResult> parts, List<String> hosts, boolean ownProcess) {
    IterationResult first = parts.get(0);
    long duration = 0, started = 0, succeeded = 0, failed = 0, cpu = 0;
    Map<String, Long> cpuByHost = new LinkedHashMap<>();
    Long late = null, missed = null, verified = null;
    // Summed as they are decoded, one at a time: the agents' histograms are never all held at once.
    Histogram latency = LatencyHistograms.newHistogram();
    Histogram uncorrected = LatencyHistograms.newHistogram();
    Map<String, Long> errors = new TreeMap<>();
    for (int p = 0; p < parts.size(); p++) {
      IterationResult it = parts.get(p);
      cpuByHost.merge(hosts.get(p), it.cpuNanos(), Math::max);
      duration = Math.max(duration, it.durationNanos());
      started += it.started();
      succeeded += it.succeeded();
      failed += it.failed();
      verified = Counts.sumVerified(verified, it.verified());
      latency.add(LatencyHistograms.fromBase64(it.histogram()));
      if (it.uncorrectedHistogram() != null)
        uncorrected.add(LatencyHistograms.fromBase64(it.uncorrectedHistogram()));
      if (it.lateStarts() != null) late = (late == null ? 0 : late) + it.lateStarts();
      if (it.missedStarts() != null) missed = (missed == null ? 0 : missed) + it.missedStarts();
      for (ErrorCount e : it.errors()) errors.merge(e.cause(), e.count(), Long::sum);
    }
    for (IterationResult it : parts) cpu += it.cpuNanos();
    if (!ownProcess) cpu = cpuByHost.values().stream().mapToLong(Long::longValue).sum();
    return IterationResult.builder()
        .series(first.series())
        .index(first.index())
        .warmup(first.warmup())
        .durationNanos(duration)
        .started(started)
        .succeeded(succeeded)
        .failed(failed)
        .cpuNanos(cpu)
        .errors(ErrorCount.sorted(errors))
        .histogram(LatencyHistograms.toBase64(latency))
        .lateStarts(late)
        .missedStarts(missed)
        .uncorrectedHistogram(
            first.uncorrectedHistogram() == null ? null : LatencyHistograms.toBase64(uncorrected))
        .verified(verified)
        .build();
  }
}
