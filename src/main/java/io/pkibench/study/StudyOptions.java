package io.pkibench.study;

import io.pkibench.plan.Iterations;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The options every study takes: {@code quick} (a smoke run: short probes, a cold service),
 * {@code duration} (measured time per step, the original methodology's), where keys live and the
 * test PKI; a study's own options live in the study itself.
 */
public record StudyOptions(boolean quick, Duration duration, String keys, Path pkiDir, Path pinFile) {

  /**
   * The one quick-mode rule: a quick run takes the study's short iterations as given ({@code quick},
   * e.g. {@code 3x2s}); a full run takes {@code count} iterations of {@code each}.
   */
  public Iterations iterations(String quick, int count, Duration each) {
    return Iterations.parse(quick() ? quick : count + "x" + each.toMillis() + "ms");
  }

  /** {@link #iterations(String, int, Duration)} with iterations of {@code --duration} each. */
  public Iterations iterations(String quick, int count) {
    return iterations(quick, count, duration);
  }
}
