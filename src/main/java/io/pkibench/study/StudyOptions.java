package io.pkibench.study;

import io.pkibench.plan.Iterations;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The options every study takes: {@code quick} (a smoke run: short probes, a cold service), {@code
 * duration} (measured time per step, the original methodology's), where keys live and the test PKI,
 * and how the cores are split between services and client; a study's own options live in the study
 * itself.
 */
public record StudyOptions(
    boolean quick,
    Duration duration,
    String keys,
    Path pkiDir,
    Path pinFile,
    CpuSplit cpus,
    Duration quickIterationCap) {

  public StudyOptions {
    if (cpus == null) cpus = CpuSplit.shared();
    if (quickIterationCap != null
        && (quickIterationCap.isNegative() || quickIterationCap.isZero())) {
      throw new IllegalArgumentException(
          "a quick iteration lasts more than 0 s, not " + quickIterationCap);
    }
  }

  /** The study's own quick iterations. */
  public StudyOptions(
      boolean quick, Duration duration, String keys, Path pkiDir, Path pinFile, CpuSplit cpus) {
    this(quick, duration, keys, pkiDir, pinFile, cpus, null);
  }

  /** Services and client sharing every core. */
  public StudyOptions(boolean quick, Duration duration, String keys, Path pkiDir, Path pinFile) {
    this(quick, duration, keys, pkiDir, pinFile, CpuSplit.shared());
  }

  /**
   * The one quick-mode rule: a quick run takes the study's short iterations as given ({@code
   * quick}, e.g. {@code 3x2s}); a full run takes {@code count} iterations of {@code each}.
   */
  public Iterations iterations(String quick, int count, Duration each) {
    if (!quick()) return Iterations.parse(count + "x" + each.toMillis() + "ms");
    Iterations asked = Iterations.parse(quick);
    if (quickIterationCap == null || asked.each().compareTo(quickIterationCap) <= 0) return asked;
    return new Iterations(asked.count(), quickIterationCap, asked.upTo());
  }

  /**
   * This quick run with no iteration longer than {@code each}: the same steps, levels and checks in
   * less time. The test suite runs the studies so (every step still proves it runs and is checked);
   * a study's own quick iterations are what {@code --quick} gives a user, whose figures are already
   * rough, so no flag offers this.
   */
  public StudyOptions withQuickIterationsOfAtMost(Duration each) {
    return new StudyOptions(quick, duration, keys, pkiDir, pinFile, cpus, each);
  }

  /** {@link #iterations(String, int, Duration)} with iterations of {@code --duration} each. */
  public Iterations iterations(String quick, int count) {
    return iterations(quick, count, duration);
  }

  /**
   * A study's warm-up, run until the cost per operation stops moving ({@link
   * Iterations#untilSteady()}), after every restart and in quick runs too: a JVM service measured
   * while it compiles gives the JIT's figures, not its own. Quick: {@code quick}'s iterations, at
   * least as given, up to {@link #QUICK_WARMUP_CAP}; full: {@code count} of {@code each}, up to
   * twice as many (at least {@link #QUICK_WARMUP_CAP}).
   */
  public Iterations warmup(String quick, int count, Duration each) {
    Iterations fixed = iterations(quick, count, each);
    int cap =
        quick()
            ? Math.max(fixed.count(), QUICK_WARMUP_CAP)
            : Math.max(2 * fixed.count(), QUICK_WARMUP_CAP);
    return new Iterations(fixed.count(), fixed.each(), cap);
  }

  /** {@link #warmup(String, int, Duration)} with iterations of {@code --duration} each. */
  public Iterations warmup(String quick, int count) {
    return warmup(quick, count, duration);
  }

  /**
   * The most warm-up iterations a quick run gives one level (of half a second each there: 4 s): the
   * three it takes to judge, and five more.
   */
  public static final int QUICK_WARMUP_CAP = 8;
}
