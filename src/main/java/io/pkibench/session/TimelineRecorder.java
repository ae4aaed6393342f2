package io.pkibench.session;

import io.pkibench.engine.IntervalSample;
import io.pkibench.engine.MemberSample;
import io.pkibench.engine.ProgressListener;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.measure.LatencyHistograms;
import io.pkibench.plan.Stages;
import io.pkibench.results.Counts;
import io.pkibench.results.LatencyNanos;
import io.pkibench.results.Timeline;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * Follows the engine's intervals and keeps a staged series' measured one as a time series: each
 * interval's figures as it comes (its histogram is the engine's, valid during the call only, so
 * only its percentiles are kept) and its histogram added into its stage's, so a stage's percentiles
 * come from summed histograms, never from averaged ones; a mix's members likewise, each into its
 * own per-stage histogram. Memory stays one histogram per stage (and per member and stage) and a
 * few numbers per second, however long the stages. Each second is also told to the {@code journal}
 * as it comes, so a run stopped mid-stage keeps the seconds measured.
 */
final class TimelineRecorder implements ProgressListener {
  /**
   * Hears each measured second of a staged series as it is recorded, with its histograms (valid
   * during the call only).
   */
  interface Journal {
    Journal NONE = (spec, second, latency, members) -> {};

    void second(
        SeriesSpec spec, Timeline.Second second, Histogram latency, List<Histogram> members);
  }

  private SeriesSpec spec;
  private Stages stages;
  private long startMillis;
  private final List<Timeline.Second> seconds = new ArrayList<>();
  private Histogram[] histograms;
  private long[][] counts;
  private long[] millis;
  private double[] cpuSeconds;

  /**
   * A mix's members in member order (empty for another workload), and their per-stage histograms
   * and counts ([member][stage]).
   */
  private List<String> members = List.of();

  private Histogram[][] memberHistograms;
  private long[][][] memberCounts;
  private volatile Journal journal = Journal.NONE;

  void journalTo(Journal to) {
    journal = to;
  }

  @Override
  public void interval(IntervalSample sample) {
    Stages of = sample.spec().stages();
    if (of == null || sample.warmup()) return;
    if (sample.spec() != spec)
      start(
          sample.spec(),
          of,
          sample.startMillis(),
          sample.members().stream().map(MemberSample::label).toList());
    long dt = Math.max(1, sample.endMillis() - sample.startMillis());
    Histogram h = sample.latency();
    List<Timeline.MemberSecond> perMember = new ArrayList<>(sample.members().size());
    List<Histogram> memberLatency = new ArrayList<>(sample.members().size());
    for (MemberSample m : sample.members()) {
      perMember.add(
          new Timeline.MemberSecond(
              m.label(),
              m.started(),
              m.succeeded(),
              m.failed(),
              m.succeeded() * 1000.0 / dt,
              p(m.latency(), 50),
              p(m.latency(), 99),
              m.latency().getMaxValue()));
      memberLatency.add(m.latency());
    }
    Timeline.Second second =
        new Timeline.Second(
            sample.startMillis() - startMillis,
            sample.endMillis() - startMillis,
            Math.max(0, sample.stage()),
            sample.started(),
            sample.succeeded(),
            sample.failed(),
            sample.succeeded() * 1000.0 / dt,
            finite(sample.targetPerSecond()),
            finite(sample.targetWorkers()),
            sample.activeWorkers(),
            p(h, 50),
            p(h, 99),
            h.getMaxValue(),
            sample.cpuNanos() / 1e9,
            perMember);
    add(second, h, memberLatency);
    journal.second(spec, second, h, memberLatency);
  }

  /**
   * Starts the time series of {@code of}'s stages at {@code atMillis} (wall clock), for a mix with
   * {@code memberLabels}.
   */
  void start(SeriesSpec series, Stages of, long atMillis, List<String> memberLabels) {
    spec = series;
    stages = of;
    startMillis = atMillis;
    seconds.clear();
    int n = of.stages().size();
    histograms = new Histogram[n];
    for (int i = 0; i < n; i++) histograms[i] = LatencyHistograms.newHistogram();
    counts = new long[n][3];
    millis = new long[n];
    cpuSeconds = new double[n];
    members = List.copyOf(memberLabels);
    memberHistograms = new Histogram[members.size()][n];
    memberCounts = new long[members.size()][n][3];
    for (int m = 0; m < members.size(); m++)
      for (int i = 0; i < n; i++) memberHistograms[m][i] = LatencyHistograms.newHistogram();
  }

  /**
   * Adds one second, its latencies and its members' (in member order), into the series and its
   * stage.
   */
  void add(Timeline.Second second, Histogram latency, List<Histogram> memberLatency) {
    int k = second.stage();
    seconds.add(second);
    histograms[k].add(latency);
    counts[k][0] += second.started();
    counts[k][1] += second.succeeded();
    counts[k][2] += second.failed();
    millis[k] += Math.max(1, second.toMillis() - second.fromMillis());
    cpuSeconds[k] += second.cpuSeconds();
    for (int m = 0; m < members.size() && m < second.members().size(); m++) {
      Timeline.MemberSecond ms = second.members().get(m);
      memberHistograms[m][k].add(memberLatency.get(m));
      memberCounts[m][k][0] += ms.started();
      memberCounts[m][k][1] += ms.succeeded();
      memberCounts[m][k][2] += ms.failed();
    }
  }

  private static long p(Histogram h, double percentile) {
    return h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(percentile);
  }

  /**
   * Successes per second over the stage's own time, as its target is: the last stage's intervals
   * end when the last arrival is taken (a ramp to 0 offers its last one before the end) or run past
   * it with what is in flight. A 0 s stage, which has no time, over its intervals' (none, unless
   * late ticks gave it some).
   */
  private static double achieved(long succeeded, long stageNanos, long intervalMillis) {
    if (stageNanos > 0) return succeeded * 1e9 / stageNanos;
    return intervalMillis == 0 ? 0 : succeeded * 1000.0 / intervalMillis;
  }

  private static Double finite(double v) {
    return Double.isNaN(v) ? null : v;
  }

  /**
   * The time series of the staged series {@code of} measured, or null when none was (it failed
   * before its first interval).
   */
  Timeline take(SeriesSpec of) {
    if (of != spec || of.stages() == null) return null;
    Timeline timeline = timeline();
    spec = null;
    return timeline;
  }

  /**
   * The time series recorded so far (every stage summarised, those not reached with nothing
   * counted).
   */
  Timeline timeline() {
    List<Timeline.StageSummary> perStage = new ArrayList<>();
    for (int i = 0; i < stages.stages().size(); i++) {
      double from = stages.fromTarget(i);
      double to = stages.stages().get(i).target();
      boolean rate = stages.kind() == Stages.Kind.RATE;
      // A 0 s stage (a jump) offers its mean for no time: its target is where it jumps to.
      double mean = stages.stages().get(i).duration().isZero() ? to : (from + to) / 2;
      long stageNanos = stages.stages().get(i).duration().toNanos();
      long succeeded = counts[i][1];
      List<Timeline.MemberStage> perMember = new ArrayList<>(members.size());
      for (int m = 0; m < members.size(); m++) {
        long[] c = memberCounts[m][i];
        perMember.add(
            new Timeline.MemberStage(
                members.get(m),
                new Counts(c[0], c[1], c[2]),
                achieved(c[1], stageNanos, millis[i]),
                LatencyNanos.of(memberHistograms[m][i]),
                LatencyHistograms.toBase64(memberHistograms[m][i])));
      }
      perStage.add(
          new Timeline.StageSummary(
              i,
              stages.formatTarget(to),
              from,
              to,
              stages.startNanos(i) / 1_000_000,
              (stages.startNanos(i) + stageNanos) / 1_000_000,
              new Counts(counts[i][0], succeeded, counts[i][2]),
              achieved(succeeded, stageNanos, millis[i]),
              rate ? mean : null,
              rate ? null : mean,
              LatencyNanos.of(histograms[i]),
              cpuSeconds[i],
              cpuSeconds[i] > 0 ? succeeded / cpuSeconds[i] : null,
              LatencyHistograms.toBase64(histograms[i]),
              perMember));
    }
    return new Timeline(stages.toString(), perStage, seconds);
  }
}
