package io.pkibench.session;

import io.pkibench.engine.IntervalSample;
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
 * Follows the engine's intervals and keeps a staged series' measured one as a time series: each interval's figures
 * as it comes (its histogram is the engine's, valid during the call only, so only its percentiles are kept) and its
 * histogram added into its stage's, so a stage's percentiles come from summed histograms, never from averaged ones.
 * Memory stays one histogram per stage and a few numbers per second, however long the stages.
 */
final class TimelineRecorder implements ProgressListener {
  private SeriesSpec spec;
  private long startMillis;
  private final List<Timeline.Second> seconds = new ArrayList<>();
  private Histogram[] histograms;
  private long[][] counts;
  private long[] millis;
  private double[] cpuSeconds;

  @Override
  public void interval(IntervalSample sample) {
    Stages stages = sample.spec().stages();
    if (stages == null || sample.warmup()) return;
    if (sample.spec() != spec) start(sample);
    int k = Math.max(0, sample.stage());
    long dt = Math.max(1, sample.endMillis() - sample.startMillis());
    Histogram h = sample.latency();
    seconds.add(new Timeline.Second(sample.startMillis() - startMillis, sample.endMillis() - startMillis, k, sample.started(),
        sample.succeeded(), sample.failed(), sample.succeeded() * 1000.0 / dt, finite(sample.targetPerSecond()),
        finite(sample.targetWorkers()), sample.activeWorkers(), h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(50),
        h.getTotalCount() == 0 ? 0 : h.getValueAtPercentile(99), h.getMaxValue(), sample.cpuNanos() / 1e9));
    histograms[k].add(h);
    counts[k][0] += sample.started();
    counts[k][1] += sample.succeeded();
    counts[k][2] += sample.failed();
    millis[k] += dt;
    cpuSeconds[k] += sample.cpuNanos() / 1e9;
  }

  private void start(IntervalSample first) {
    spec = first.spec();
    startMillis = first.startMillis();
    seconds.clear();
    int n = spec.stages().stages().size();
    histograms = new Histogram[n];
    for (int i = 0; i < n; i++) histograms[i] = LatencyHistograms.newHistogram();
    counts = new long[n][3];
    millis = new long[n];
    cpuSeconds = new double[n];
  }

  /**
   * Successes per second over the stage's own time, as its target is: the last stage's intervals end when the last
   * arrival is taken (a ramp to 0 offers its last one before the end) or run past it with what is in flight. A 0 s
   * stage, which has no time, over its intervals' (none, unless late ticks gave it some).
   */
  private static double achieved(long succeeded, long stageNanos, long intervalMillis) {
    if (stageNanos > 0) return succeeded * 1e9 / stageNanos;
    return intervalMillis == 0 ? 0 : succeeded * 1000.0 / intervalMillis;
  }

  private static Double finite(double v) {
    return Double.isNaN(v) ? null : v;
  }

  /** The time series of the staged series {@code of} measured, or null when none was (it failed before its first interval). */
  Timeline take(SeriesSpec of) {
    if (of != spec || of.stages() == null) return null;
    Stages stages = spec.stages();
    List<Timeline.StageSummary> perStage = new ArrayList<>();
    for (int i = 0; i < stages.stages().size(); i++) {
      double from = stages.fromTarget(i);
      double to = stages.stages().get(i).target();
      boolean rate = stages.kind() == Stages.Kind.RATE;
      // A 0 s stage (a jump) offers its mean for no time: its target is where it jumps to.
      double mean = stages.stages().get(i).duration().isZero() ? to : (from + to) / 2;
      long succeeded = counts[i][1];
      perStage.add(new Timeline.StageSummary(i, stages.formatTarget(to), from, to, stages.startNanos(i) / 1_000_000,
          (stages.startNanos(i) + stages.stages().get(i).duration().toNanos()) / 1_000_000, new Counts(counts[i][0], succeeded, counts[i][2]),
          achieved(succeeded, stages.stages().get(i).duration().toNanos(), millis[i]), rate ? mean : null, rate ? null : mean, LatencyNanos.of(histograms[i]),
          cpuSeconds[i], cpuSeconds[i] > 0 ? succeeded / cpuSeconds[i] : null, LatencyHistograms.toBase64(histograms[i])));
    }
    Timeline timeline = new Timeline(stages.toString(), perStage, seconds);
    spec = null;
    return timeline;
  }
}
