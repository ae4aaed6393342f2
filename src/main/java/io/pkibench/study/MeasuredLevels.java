package io.pkibench.study;

import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import java.util.Comparator;
import java.util.Optional;

/** Where a study's later step finds the level an earlier step was measured at. */
final class MeasuredLevels {
  private MeasuredLevels() {}

  /**
   * The level step {@code label} was measured at, if it was: the one its probe chose, or of a sweep
   * the one of the highest throughput.
   */
  static Optional<Step.LevelChooser.Choice> of(RunResult result, String label) {
    Optional<StudyRecord.StepRecord> step =
        result.study().steps().stream()
            .filter(s -> s.label().equals(label) && s.measuredWorkload() != null)
            .findFirst();
    if (step.isPresent() && step.get().chosenLevel() != null) {
      return Optional.of(
          new Step.LevelChooser.Choice(
              step.get().chosenLevel(), "the level step '" + label + "' was measured at"));
    }
    return step.map(s -> result.workloads().get(s.measuredWorkload()))
        .flatMap(
            w -> w.levels().stream().max(Comparator.comparingDouble(l -> l.throughput().mean())))
        .map(
            l ->
                new Step.LevelChooser.Choice(
                    l.concurrency(), "the peak of the sweep of step '" + label + "'"));
  }
}
