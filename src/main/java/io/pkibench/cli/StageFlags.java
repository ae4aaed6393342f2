package io.pkibench.cli;

import io.pkibench.plan.ConcurrencyList;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Stages;
import java.util.List;

/**
 * {@code --stages} beside the other load flags: the stages replace the levels ({@code --rates}, a
 * list of {@code --concurrency}) and the measured iterations ({@code --measure}); with rate stages
 * {@code --concurrency} is the one number of workers serving the timetable (default 64, as with
 * {@code --rate}); worker stages give their own counts. A series' per-second figures do not cross a
 * fork, so {@code --fork} is refused rather than leave the timeline empty.
 */
final class StageFlags {
  /** The workers serving a rate timetable when --concurrency is not given, as with --rate. */
  static final int DEFAULT_POOL = 64;

  private StageFlags() {}

  /** The staged load, or null with every problem added to {@code problems}. */
  static LoadModel.Staged load(
      String stages,
      String concurrency,
      String rates,
      boolean fork,
      boolean measureGiven,
      List<String> problems) {
    int before = problems.size();
    Stages parsed = Stages.parse(stages, problems);
    if (rates != null)
      problems.add(
          "--rates and --stages: the stages replace the levels; give one of them (a rate stage is e.g. 30s:400/s)");
    if (measureGiven)
      problems.add("--measure and --stages: the stages are the measurement; leave --measure out");
    if (fork)
      problems.add(
          "--fork and --stages: a forked series' per-second figures do not cross the fork, and a staged run is its timeline; leave --fork out");
    int workers = parsed == null ? 0 : parsed.maxWorkers();
    if (concurrency != null) {
      if (parsed != null && parsed.kind() == Stages.Kind.WORKERS) {
        problems.add(
            "--concurrency and --stages of workers: the stages give the worker counts; leave --concurrency out");
      } else {
        try {
          List<Integer> given = ConcurrencyList.parse(concurrency);
          if (given.size() != 1)
            problems.add(
                "--concurrency: with --stages of rates give one number of workers serving the timetable, e.g. --concurrency 32");
          else workers = given.get(0);
        } catch (IllegalArgumentException e) {
          problems.add("--concurrency: " + e.getMessage());
        }
      }
    } else if (parsed != null && parsed.kind() == Stages.Kind.RATE) {
      workers = DEFAULT_POOL;
    }
    return problems.size() > before ? null : new LoadModel.Staged(parsed, workers);
  }
}
