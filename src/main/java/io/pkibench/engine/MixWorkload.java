package io.pkibench.engine;

import io.pkibench.measure.LatencyHistograms;
import io.pkibench.workload.api.CountedOutcomes;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Paced;
import io.pkibench.workload.api.Workload;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * Several workloads run as one series: every worker holds an operation of each member, and each
 * operation the engine starts draws which one runs, with probability weight / sum of weights. The
 * draw is a hash of the seed, the iteration and the arrival's slot in the open loop's timetable (so
 * which member arrives when does not depend on which worker serves it), of the seed, the worker and
 * its count of operations in the closed loop: the same seed gives the same draws. The engine
 * records each operation into the series' totals as for any workload and, through {@link
 * MixOperation}, into its member's own counts, histogram and errors: per worker, without a lock or
 * an allocation.
 */
public final class MixWorkload implements Workload, CountedOutcomes {
  private final List<String> labels;
  private final double[] cumulative;
  private final List<Workload> members;
  private final long seed;
  private volatile Series series;

  /**
   * Recorders per member: a mix multiplies the series' histograms by its members, so each member's
   * are fewer than the series' own (16 × about 0.7 MB each at most), shared by the workers past 16,
   * still without a lock.
   */
  static final int MEMBER_STRIPES = 16;

  /**
   * {@code weights[i]} for {@code members.get(i)}, labelled {@code labels.get(i)}; the members are
   * closed with this workload.
   */
  public MixWorkload(List<String> labels, double[] weights, List<Workload> members, long seed) {
    if (labels.size() != weights.length || labels.size() != members.size() || labels.isEmpty()) {
      throw new IllegalArgumentException("a mix needs one label and one weight per member");
    }
    this.labels = List.copyOf(labels);
    this.members = List.copyOf(members);
    this.seed = seed;
    double sum = 0;
    for (double w : weights) {
      if (!(w > 0) || !Double.isFinite(w))
        throw new IllegalArgumentException("a mix weight must be above 0: " + w);
      sum += w;
    }
    cumulative = new double[weights.length];
    double running = 0;
    for (int i = 0; i < weights.length; i++) {
      running += weights[i];
      cumulative[i] = running / sum;
    }
    cumulative[weights.length - 1] = 1.0; // no rounding gap past the last member
  }

  /**
   * The per-member recorders of one series; the engine makes them before its workers create their
   * operations. The controller's side: each member's latencies of the last interval ({@code
   * interval}, reused) and of the iteration so far ({@code iteration}), and the counts at the last
   * interval ({@code [member][started, succeeded, failed]}).
   */
  private record Series(
      LatencyStripes[] latency,
      MixOperation[] operations,
      Histogram[] interval,
      Histogram[] iteration,
      long[][] counted) {}

  /**
   * Called by the engine before a series' workers start: fresh per-member recorders for {@code
   * workers} workers.
   */
  void prepare(int workers) {
    int n = labels.size();
    LatencyStripes[] latency = new LatencyStripes[n];
    Histogram[] interval = new Histogram[n];
    Histogram[] iteration = new Histogram[n];
    for (int m = 0; m < n; m++) {
      latency[m] = new LatencyStripes(workers, MEMBER_STRIPES);
      interval[m] = LatencyHistograms.newHistogram();
      iteration[m] = LatencyHistograms.newHistogram();
    }
    series = new Series(latency, new MixOperation[workers], interval, iteration, new long[n][3]);
  }

  /**
   * Each member's figures since the last call (or the iteration's start), in member order; called
   * by the engine's controller at each interval while the workers run. The latencies move from the
   * members' recorders (swapped, as the series' own are) into the iteration's, so {@link #drain}
   * still has them all; the counts are the workers' own, read opaque, ends before starts as the
   * series' are (an operation ending between the reads is in flight here).
   */
  List<MemberSample> sample() {
    Series s = series;
    List<MemberSample> samples = new ArrayList<>(labels.size());
    for (int m = 0; m < labels.size(); m++) {
      long started = 0, succeeded = 0, failed = 0;
      for (MixOperation op : s.operations()) {
        if (op == null) continue;
        succeeded += MixOperation.countNow(op.succeeded, m);
        failed += MixOperation.countNow(op.failed, m);
      }
      for (MixOperation op : s.operations())
        if (op != null) started += MixOperation.countNow(op.started, m);
      Histogram interval = s.interval()[m];
      interval.reset();
      s.latency()[m].drainInto(interval);
      s.iteration()[m].add(interval);
      long[] last = s.counted()[m];
      samples.add(
          new MemberSample(
              labels.get(m), started - last[0], succeeded - last[1], failed - last[2], interval));
      last[0] = started;
      last[1] = succeeded;
      last[2] = failed;
    }
    return samples;
  }

  @Override
  public Operation newOperation(int worker) throws Exception {
    Series s = series;
    if (s == null)
      throw new IllegalStateException(
          "a mix runs in the engine, which prepares its recorders first");
    Operation[] ops = new Operation[members.size()];
    for (int m = 0; m < ops.length; m++) {
      ops[m] = members.get(m).newOperation(worker);
      if (ops[m] instanceof Paced) {
        // A paced operation waits for times of its own, which a draw per operation would ignore.
        throw new IllegalArgumentException(
            labels.get(m)
                + " sets the times of its own operations and cannot be a mix member; run it alone");
      }
    }
    var recorders = new org.HdrHistogram.ValueRecorder[ops.length];
    for (int m = 0; m < ops.length; m++) recorders[m] = s.latency()[m].forWorker(worker);
    MixOperation op =
        new MixOperation(ops, cumulative, recorders, MixOperation.workerSeed(seed, worker), seed);
    s.operations()[worker] = op;
    return op;
  }

  /**
   * Each member's outcome of the iteration just ended, in member order, and zeroes the counts for
   * the next; called by the engine's controller while every worker waits at the gate.
   */
  List<MemberOutcome> drain() {
    Series s = series;
    List<MemberOutcome> outcomes = new ArrayList<>(labels.size());
    for (int m = 0; m < labels.size(); m++) {
      long started = 0, succeeded = 0, failed = 0;
      Map<String, Long> errors = new HashMap<>();
      for (MixOperation op : s.operations()) {
        if (op == null) continue;
        started += op.started[m];
        succeeded += op.succeeded[m];
        failed += op.failed[m];
        op.errors[m].drainInto(errors);
      }
      // What the intervals took already, and anything recorded since the last of them.
      Histogram latency = s.iteration()[m];
      s.latency()[m].drainInto(latency);
      s.iteration()[m] = LatencyHistograms.newHistogram();
      Arrays.fill(s.counted()[m], 0);
      outcomes.add(new MemberOutcome(labels.get(m), started, succeeded, failed, latency, errors));
    }
    for (MixOperation op : s.operations()) if (op != null) op.resetCounts();
    return outcomes;
  }

  /** The members' own counted answers, each prefixed with its label. */
  @Override
  public Map<String, Long> outcomes() {
    Map<String, Long> all = new TreeMap<>();
    for (int m = 0; m < members.size(); m++) {
      if (members.get(m) instanceof CountedOutcomes counted) {
        String label = labels.get(m);
        counted.outcomes().forEach((k, n) -> all.merge(label + ": " + k, n, Long::sum));
      }
    }
    return all;
  }

  /**
   * Closes every member, even when one fails to; the first failure is thrown with the others
   * suppressed.
   */
  @Override
  public void close() throws Exception {
    Exception first = null;
    for (Workload w : members) {
      try {
        w.close();
      } catch (Exception e) {
        if (first == null) first = e;
        else first.addSuppressed(e);
      }
    }
    if (first != null) throw first;
  }
}
