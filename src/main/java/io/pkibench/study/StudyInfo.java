package io.pkibench.study;

import io.pkibench.results.StudyRecord;
import java.time.Duration;

/**
 * What a study is, as its table and report name it: the name typed after {@code pkibench study},
 * one line on the original and what is sized, the unit the original reported throughput in, the
 * original's figures and hardware (set beside ours), and the measured time per step when {@code
 * --duration} is not given.
 */
public record StudyInfo(
    String name,
    String title,
    StudyRecord.Unit unit,
    StudyRecord.Published published,
    Duration defaultDuration) {
  public static final Duration DEFAULT_DURATION = Duration.ofMinutes(5);
}
