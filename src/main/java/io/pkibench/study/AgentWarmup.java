package io.pkibench.study;

import io.pkibench.plan.Iterations;
import io.pkibench.plan.Plan;
import java.time.Duration;

/** The warm-up of a level measured by several agents at once: one they all end together. */
final class AgentWarmup {
  private AgentWarmup() {}

  /**
   * The least warm-up an agent's measured level gets when the step's own would stop when steady: a
   * fresh JVM's client code compiles first.
   */
  static final Duration AGENT_WARMUP = Duration.ofSeconds(5);

  /**
   * {@code plan} with a warm-up every agent ends together: a fixed count (a warm-up until steady
   * stops when each agent sees fit, and their iterations would no longer match), of at least {@link
   * #AGENT_WARMUP} and three iterations, since each agent is a fresh JVM whose client code nothing
   * warmed.
   */
  static Plan fixed(Plan plan) {
    Iterations w = plan.warmup();
    int count =
        (int)
            Math.max(
                Math.max(w.count(), 3),
                (AGENT_WARMUP.toMillis() + w.each().toMillis() - 1) / w.each().toMillis());
    return plan.toBuilder().warmup(w.untilSteady() ? new Iterations(count, w.each()) : w).build();
  }
}
