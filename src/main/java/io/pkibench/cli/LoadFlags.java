package io.pkibench.cli;

import io.pkibench.plan.ConcurrencyList;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LoadModel;
import java.util.List;

/**
 * {@code --stages}, {@code --rate} and {@code --concurrency} read into the run's load model, with
 * what stages do to the warm-up and the measurement; every problem added, naming its flag.
 */
final class LoadFlags {
  private LoadFlags() {}

  /** The load, and the warm-up and measurement it leaves; the load is null where a flag was bad. */
  record Read(LoadModel load, Iterations warmup, Iterations measure) {}

  /** Workers of an open-loop run that names none: enough to keep a paced rate without queueing. */
  private static final int OPEN_LOOP_WORKERS = 64;

  static Read read(
      String stages,
      String concurrency,
      String rates,
      boolean fork,
      boolean measureGiven,
      boolean warmupGiven,
      Iterations warmup,
      Iterations measure,
      FlagProblems problems) {
    if (stages != null) {
      LoadModel.Staged staged =
          StageFlags.load(stages, concurrency, rates, fork, measureGiven, problems.sink());
      // No warm-up unless asked for: the first stage is the ramp, as in k6.
      if (!warmupGiven) warmup = new Iterations(0, warmup.each());
      if (staged != null) measure = new Iterations(1, staged.stages().total());
      return new Read(staged, warmup, measure);
    }
    LoadModel load = null;
    try {
      if (rates == null) {
        load =
            new LoadModel.Closed(
                ConcurrencyList.parse(concurrency == null ? "1,2,4" : concurrency));
      } else {
        int workers = OPEN_LOOP_WORKERS;
        if (concurrency != null) {
          List<Integer> given = ConcurrencyList.parse(concurrency);
          if (given.size() != 1)
            throw new IllegalArgumentException(
                "with --rate give one number of workers, e.g. --concurrency 32");
          workers = given.get(0);
        }
        try {
          load = new LoadModel.Open(ConcurrencyList.parseRates(rates), workers);
        } catch (IllegalArgumentException e) {
          problems.add("--rate: " + e.getMessage());
        }
      }
    } catch (IllegalArgumentException e) {
      problems.add("--concurrency: " + e.getMessage());
    }
    return new Read(load, warmup, measure);
  }
}
