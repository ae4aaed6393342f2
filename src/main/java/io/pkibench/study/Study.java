package io.pkibench.study;

import io.pkibench.keys.KeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;

/**
 * A published capacity study rerun on this machine (docs/studies.md): data plus a few hooks, run by
 * the {@link StudyRunner} into one result. Everything the runner needs to validate comes before
 * anything starts: {@link #problems}, then {@link #steps} planned against the services' known URLs.
 */
public interface Study {
  /** Its name, title, unit, published figures and default duration. */
  StudyInfo info();

  /** As typed after {@code pkibench study}. */
  default String name() {
    return info().name();
  }

  /** Every problem with the options, each naming the flag; empty when the study can run. */
  List<String> problems(StudyOptions options);

  /** The services to start, each its own JVM; CPU is summed over their pids. */
  List<ServiceSpec> services(StudyOptions options);

  /** The steps, in order; called before the services start (their URLs are already known). */
  List<Step> steps(StudyOptions options, RunningServices services);

  /** Checks after the run that decide pass or fail. */
  default List<PostCheck> checks(StudyOptions options) {
    return List.of();
  }

  /**
   * Sentences the report must carry about these options (e.g. a quick run measured a cold service).
   */
  default List<String> notes(StudyOptions options) {
    return List.of();
  }

  /**
   * Sentences read from the run's measurements, added to its notes after the steps (e.g. {@code
   * study pix --core-ratio-sweep}'s answer); none by default.
   */
  default List<String> findings(RunResult result, StudyOptions options) {
    return List.of();
  }

  /**
   * When the steps form a table (rows × columns), its layout; called after {@link #steps}. Null for
   * a list of steps.
   */
  default StudyRecord.Grid grid(StudyOptions options) {
    return null;
  }

  /**
   * The layout of {@link #grid} once the steps have run, where what they saw changes it (a cell
   * found not like for like with the baseline's); null: unchanged.
   */
  default StudyRecord.Grid gridAfterSteps(RunResult result, StudyOptions options) {
    return null;
  }

  /**
   * {@code --check-sizing}: each sized step's prediction beside its measurement, from the run's
   * result; none by default.
   */
  default List<StudyRecord.SizingCheck> sizingChecks(RunResult result, StudyOptions options) {
    return List.of();
  }

  /**
   * Writes the study's artifacts into {@code dir} for {@code --save-samples}, each with its
   * independent check.
   */
  default List<Sample> samples(Path dir, TestPki pki, KeySource keys, InstantSource clock)
      throws Exception {
    return List.of();
  }
}
