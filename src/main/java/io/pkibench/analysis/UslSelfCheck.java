package io.pkibench.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A sweep checked against itself: the USL fitted on its lower half, and how far that fit's
 * predictions missed the upper half's measurements. Capacity planners fit on what was measured and
 * distrust the curve past it; this shows the user, on their own data, how far an extrapolation of
 * this service's curve can be trusted. Made where a closed-loop sweep has at least {@link
 * #LEAST_LEVELS} steady levels (the lower half then has the 3 a fit needs).
 */
public record UslSelfCheck(
    double fittedUpTo, int fittedLevels, List<FitReport.HoldoutPoint> held, String text) {
  public static final int LEAST_LEVELS = 6;

  /**
   * The check over {@code steady} (sorted by load), or null with fewer than {@link #LEAST_LEVELS}
   * levels.
   */
  public static UslSelfCheck of(List<LevelPoint> steady) {
    if (steady.size() < LEAST_LEVELS) return null;
    int lower = steady.size() / 2;
    double upto = steady.get(lower - 1).load();
    FitReport.Attempt attempt = FitReport.of("", steady, upto, List.of(), null, 0.95, List.of());
    if (attempt.report() == null) {
      return new UslSelfCheck(
          upto,
          lower,
          List.of(),
          String.format(
              Locale.ROOT,
              "the lower half of the sweep (concurrency ≤ %s) follows no USL curve (%s), so nothing can be said of extrapolating it",
              TrimmedNumber.of(upto, 1),
              attempt.noFit().because()));
    }
    List<FitReport.HoldoutPoint> held = attempt.report().holdout();
    List<String> misses = new ArrayList<>();
    for (FitReport.HoldoutPoint h : held) {
      misses.add(
          String.format(
              Locale.ROOT,
              "at %s %.0f%% %s%s",
              TrimmedNumber.of(h.n(), 1),
              Math.abs(h.miss()) * 100,
              h.miss() >= 0 ? "high" : "low",
              h.farPastFit() ? " (past 2× the fitted range)" : ""));
    }
    double worst = held.stream().mapToDouble(h -> Math.abs(h.miss())).max().orElse(0);
    return new UslSelfCheck(
        upto,
        lower,
        held,
        String.format(
            Locale.ROOT,
            "fitted on concurrency ≤ %s (%d levels), the USL's prediction was %s: extrapolating this curve as far has missed by up to %.0f%%",
            TrimmedNumber.of(upto, 1),
            lower,
            String.join(", ", misses),
            worst * 100));
  }
}
