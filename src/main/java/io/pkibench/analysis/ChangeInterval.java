package io.pkibench.analysis;

import org.apache.commons.math3.distribution.TDistribution;

/**
 * The interval of the change between two sets of per-iteration values, by Welch's two-sample t: the
 * difference of the means with the Welch–Satterthwaite degrees of freedom, as a percent of the base
 * mean.
 *
 * <p>Why Welch: runs measure 3 to 10 iterations a side. Mann–Whitney's smallest attainable
 * two-sided p-value with 3 and 3 is 0.1, so at 95% or more it could never see any change, however
 * large; a bootstrap of 3 to 5 values resamples a handful of distinct values and understates the
 * spread. Each iteration's value is itself a mean or percentile over thousands of operations, close
 * enough to normal for t, and Welch does not assume that both runs are equally noisy (a regression
 * often changes the spread too). The base mean is taken as exact when turning the difference into a
 * percent, which holds while the base's own interval is narrow beside its mean; where it is not,
 * the interval is wide and the verdict says inconclusive.
 */
record ChangeInterval(
    double lowPercent,
    double highPercent,
    double baseMean,
    double baseVariance,
    double newVariance,
    int baseCount,
    int newCount,
    double confidence) {

  /** Null when either side has fewer than two values: one value shows no spread to test against. */
  static ChangeInterval welch(double[] base, double[] current, double confidence) {
    if (base.length < 2 || current.length < 2) return null;
    double bm = mean(base), cm = mean(current);
    double bv = variance(base, bm), cv = variance(current, cm);
    double halfWidth =
        halfWidth(
            bv / base.length, cv / current.length, base.length - 1, current.length - 1, confidence);
    double diff = cm - bm;
    return new ChangeInterval(
        (diff - halfWidth) / bm * 100,
        (diff + halfWidth) / bm * 100,
        bm,
        bv,
        cv,
        base.length,
        current.length,
        confidence);
  }

  /**
   * The fewest iterations a side, more than either side has now, whose interval would be narrower
   * than {@code sizePercent} (so it cannot span both no change and a change of that size), assuming
   * the spread stays as measured; null when no count up to 10,000 would, or the size is 0.
   */
  Integer iterationsToResolve(double sizePercent) {
    if (sizePercent <= 0) return null;
    for (int n = Math.max(baseCount, newCount) + 1; n <= 10_000; n++) {
      double h =
          halfWidth(baseVariance / n, newVariance / n, n - 1, n - 1, confidence)
              / Math.abs(baseMean)
              * 100;
      if (2 * h < sizePercent) return n;
    }
    return null;
  }

  private static double halfWidth(
      double baseSquaredError, double newSquaredError, int baseDf, int newDf, double confidence) {
    double se2 = baseSquaredError + newSquaredError;
    if (se2 == 0) return 0;
    double df =
        se2
            * se2
            / (baseSquaredError * baseSquaredError / baseDf
                + newSquaredError * newSquaredError / newDf);
    double t = new TDistribution(df).inverseCumulativeProbability(1 - (1 - confidence) / 2);
    return t * Math.sqrt(se2);
  }

  private static double mean(double[] values) {
    double sum = 0;
    for (double v : values) sum += v;
    return sum / values.length;
  }

  private static double variance(double[] values, double mean) {
    double squares = 0;
    for (double v : values) squares += (v - mean) * (v - mean);
    return squares / (values.length - 1);
  }
}
