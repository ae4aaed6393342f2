package io.pkibench.results;

import io.pkibench.measure.LatencyHistograms;
import io.pkibench.plan.MixSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** A result of a two-member mix built from fixed numbers, for result, report and format tests. */
public final class MixFixtures {
  private MixFixtures() {}

  public static final MixSpec MIX =
      new MixSpec(
          List.of(
              new MixSpec.Member("sign", "sign", 7, Map.of("alg", "ecdsa-p256")),
              new MixSpec.Member("verify", "verify", 3, Map.of("alg", "ecdsa-p256"))),
          1);

  /**
   * An open-loop mix at 400/s, two measured 1-second iterations: sign 280 (all 1 ms) and verify 110
   * ok + 10 failed (all 3 ms) in each; a warm-up iteration before them with other numbers.
   */
  public static RunResult mixRun() {
    List<IterationResult> its = new ArrayList<>();
    its.add(iteration(0, true, 100, 0, 50, 0));
    its.add(iteration(1, false, 280, 0, 110, 10));
    its.add(iteration(2, false, 280, 0, 110, 10));
    WorkloadResult w =
        WorkloadResult.builder("mix")
            .params(Map.of())
            .keys("software:accp")
            .cpuMeter("jvm")
            .levels(List.of())
            .build()
            .withMix(MIX)
            .withLevel(LevelResult.of(8, 400.0, its, "jvm", 2));
    return RunResult.start(ResultFixtures.environment(), null)
        .withWorkload(0, w)
        .withStatus(RunStatus.COMPLETE);
  }

  private static IterationResult iteration(
      int index, boolean warmup, long signOk, long signFailed, long verifyOk, long verifyFailed) {
    Histogram sign = constant(signOk, 1_000_000);
    Histogram verify = constant(verifyOk, 3_000_000);
    Histogram total = LatencyHistograms.merge(List.of(sign, verify));
    List<ErrorCount> verifyErrors =
        verifyFailed == 0
            ? List.of()
            : List.of(new ErrorCount("java.io.IOException: bad signature", verifyFailed));
    long ok = signOk + verifyOk, failed = signFailed + verifyFailed;
    return IterationResult.builder()
        .series(1)
        .index(index)
        .warmup(warmup)
        .durationNanos(1_000_000_000L)
        .started(ok + failed)
        .succeeded(ok)
        .failed(failed)
        .cpuNanos(500_000_000L)
        .errors(verifyErrors)
        .histogram(LatencyHistograms.toBase64(total))
        .lateStarts(0L)
        .missedStarts(0L)
        .uncorrectedHistogram(LatencyHistograms.toBase64(total))
        .members(
            List.of(
                new MemberIteration(
                    "sign",
                    signOk + signFailed,
                    signOk,
                    signFailed,
                    List.of(),
                    LatencyHistograms.toBase64(sign)),
                new MemberIteration(
                    "verify",
                    verifyOk + verifyFailed,
                    verifyOk,
                    verifyFailed,
                    verifyErrors,
                    LatencyHistograms.toBase64(verify))))
        .build();
  }

  private static Histogram constant(long count, long nanos) {
    Histogram h = LatencyHistograms.newHistogram();
    if (count > 0) h.recordValueWithCount(nanos, count);
    return h;
  }
}
