package io.pkibench.metrics;

import io.pkibench.engine.IntervalSample;
import io.pkibench.plan.LevelLoad;
import java.util.ArrayList;
import java.util.List;

/**
 * The labels one series of live figures carries besides the run id: the workload (its interval tag,
 * which names the key source in a shoot-out), the level ({@code c8} workers, {@code r400} per
 * second), warm-up or measure, and the stage and mix member where a run has them. Each takes a
 * handful of values per run: nothing unbounded, nothing secret.
 */
public record SeriesKey(String workload, String level, String phase, String stage, String member) {

  static SeriesKey of(IntervalSample s) {
    String level =
        switch (s.spec().load()) {
          case LevelLoad.Closed c -> "c" + c.workers();
          case LevelLoad.Open o ->
              "r"
                  + (o.ratePerSecond() == Math.rint(o.ratePerSecond())
                      ? Long.toString((long) o.ratePerSecond())
                      : Double.toString(o.ratePerSecond()));
        };
    // A stage is numbered from 1, as the report and the result's perStage name it; absent on levels
    // held steady.
    String stage = s.stage() >= 0 ? Integer.toString(s.stage() + 1) : null;
    return new SeriesKey(
        s.spec().workload(), level, s.warmup() ? "warmup" : "measure", stage, null);
  }

  /** The same series for one member of a mix (its label, as the result names it). */
  SeriesKey withMember(String label) {
    return new SeriesKey(workload, level, phase, stage, label);
  }

  /** Name, value, name, value…: the key's labels that have a value. */
  public List<String> labels() {
    List<String> labels =
        new ArrayList<>(List.of("workload", workload, "level", level, "phase", phase));
    if (stage != null) labels.addAll(List.of("stage", stage));
    if (member != null) labels.addAll(List.of("member", member));
    return labels;
  }
}
