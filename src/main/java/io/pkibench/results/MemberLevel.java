package io.pkibench.results;

import io.pkibench.measure.LatencyHistograms;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * One member of a mix at one level, over the measured iterations: its counts, throughput (its own
 * successes per second of each iteration), latency from its merged histograms and errors, and
 * {@code achievedShare}, the fraction of the mix's started operations it drew (beside the asked
 * share its weight gives). No CPU of its own: one process serves every member at once, so the CPU a
 * level measures cannot be split between them.
 */
public record MemberLevel(
    String label,
    double achievedShare,
    Counts counts,
    Throughput throughput,
    LatencyNanos latencyNanos,
    List<ErrorCount> errors) {
  public MemberLevel {
    errors = List.copyOf(errors);
  }

  /**
   * Each member of {@code measured}'s iterations (all of a mix), in the order the iterations list
   * them; empty for other workloads.
   */
  static List<MemberLevel> of(List<IterationResult> measured) {
    Map<String, List<MemberIteration>> byLabel = new LinkedHashMap<>();
    Map<String, double[]> rates = new LinkedHashMap<>();
    long total = 0;
    for (int i = 0; i < measured.size(); i++) {
      IterationResult it = measured.get(i);
      total += it.started();
      for (MemberIteration m : it.members()) {
        byLabel.computeIfAbsent(m.label(), k -> new ArrayList<>()).add(m);
        rates.computeIfAbsent(m.label(), k -> new double[measured.size()])[i] =
            it.durationNanos() == 0 ? 0 : m.succeeded() * 1e9 / it.durationNanos();
      }
    }
    List<MemberLevel> members = new ArrayList<>();
    for (var e : byLabel.entrySet()) {
      long started = 0, succeeded = 0, failed = 0;
      Histogram latency = LatencyHistograms.newHistogram(); // summed as decoded, one at a time
      Map<String, Long> errors = new TreeMap<>();
      for (MemberIteration m : e.getValue()) {
        started += m.started();
        succeeded += m.succeeded();
        failed += m.failed();
        latency.add(LatencyHistograms.fromBase64(m.histogram()));
        for (ErrorCount c : m.errors()) errors.merge(c.cause(), c.count(), Long::sum);
      }
      members.add(
          new MemberLevel(
              e.getKey(),
              total == 0 ? 0 : (double) started / total,
              new Counts(started, succeeded, failed),
              Throughput.of(rates.get(e.getKey())),
              LatencyNanos.of(latency),
              ErrorCount.sorted(errors)));
    }
    return members;
  }
}
