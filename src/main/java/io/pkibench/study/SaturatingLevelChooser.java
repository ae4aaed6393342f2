package io.pkibench.study;

import io.pkibench.results.LevelResult;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The level chooser the saturating studies share (restpki, ssl's IBM table and its server
 * comparison): the first probed level that drives the service to 90% CPU, or the last before one
 * that gains under 5%, or the highest.
 */
final class SaturatingLevelChooser implements Step.LevelChooser {
  /** The service's CPU a level must reach to count as saturating it. */
  static final double TARGET_UTILISATION = 0.9;

  /** A level gaining less throughput than this over the one before is past the knee. */
  static final double MIN_GAIN = 0.05;

  static final SaturatingLevelChooser INSTANCE = new SaturatingLevelChooser();

  private SaturatingLevelChooser() {}

  @Override
  public Choice choose(List<LevelResult> levels) {
    List<LevelResult> sorted =
        levels.stream().sorted(Comparator.comparingInt(LevelResult::concurrency)).toList();
    for (int i = 0; i < sorted.size(); i++) {
      LevelResult l = sorted.get(i);
      if (l.cpu().utilisation() >= TARGET_UTILISATION) {
        return new Choice(
            l.concurrency(),
            String.format(
                Locale.ROOT,
                "the first probed level to drive the service's CPU to %.0f%%",
                l.cpu().utilisation() * 100));
      }
      if (i > 0 && l.throughput().mean() < sorted.get(i - 1).throughput().mean() * (1 + MIN_GAIN)) {
        return new Choice(
            sorted.get(i - 1).concurrency(),
            "the next probed level, " + l.concurrency() + ", gained under 5%");
      }
    }
    return new Choice(
        sorted.get(sorted.size() - 1).concurrency(),
        "the highest probed level; it was still gaining");
  }
}
