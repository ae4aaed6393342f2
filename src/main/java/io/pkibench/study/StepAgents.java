package io.pkibench.study;

import io.pkibench.plan.Plan;
import io.pkibench.results.RunResult;
import java.io.IOException;

/**
 * {@code study --agents N --local}: a step's measured level run by several load-generating
 * processes against the one set of services the study started, their results merged. The probe
 * stays in the study's own process; only the level it chose is split, each agent a segment of it on
 * one shared start, so the merged iterations cover the same intervals.
 */
public interface StepAgents {
  /** How many agents a measured level is split over. */
  int count();

  /**
   * Runs {@code plan} (one workload, one level) as {@code agents} agents, each reading {@code
   * serviceCpu} (a {@code pid:N+M} meter, the services' processes) over its own iterations, and
   * returns their merged result. {@code name}: a file-safe name for the step, for the agents' files
   * beside the study's result.
   *
   * @throws Failed when the agents left no merged result: the step is not measured, the study goes
   *     on
   */
  RunResult measure(String name, Plan plan, int agents, String serviceCpu)
      throws IOException, InterruptedException;

  /** The agents of a step left nothing to merge; the message says why and where their logs are. */
  final class Failed extends IOException {
    public Failed(String message) {
      super(message);
    }
  }
}
