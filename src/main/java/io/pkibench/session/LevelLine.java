package io.pkibench.session;

import io.pkibench.results.LevelResult;
import io.pkibench.text.Units;
import java.util.Locale;

/** The one line printed when a level is saved. */
final class LevelLine {
  private LevelLine() {}

  static String of(String workload, LevelResult l) {
    String level =
        l.openLoop() == null
            ? "c=" + l.concurrency()
            : String.format(
                Locale.ROOT,
                "rate=%.1f/s (%d late, %d missed starts)",
                l.openLoop().targetRate(),
                l.openLoop().lateStarts(),
                l.openLoop().missedStarts());
    return String.format(
        Locale.ROOT,
        "%s %s saved: %s ops/s%s, p99 %s, %d failed",
        workload,
        level,
        Units.rate(l.throughput().mean()),
        l.throughput().ci999() == null
            ? ""
            : l.throughput().intervalWiderThanMean()
                ? " (99.9% interval wider than the value: "
                    + l.throughput().samples()
                    + " iterations are too few to bound it)"
                : String.format(Locale.ROOT, " ± %.1f", l.throughput().ci999()),
        Units.nanos(l.latencyNanos().p99()),
        l.counts().failed());
  }
}
