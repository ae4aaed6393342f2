package io.pkibench.study;

import io.pkibench.plan.Durations;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import java.time.Duration;
import java.util.List;

/**
 * {@code study ca --fault kill-service@T}: a step of its own in which the first CA the study
 * started is SIGKILLed T into the measured seconds and comes back. OpenBao keeps its storage on
 * disk: its server process is killed under {@code serve openbao}, which starts it again on the same
 * storage and unseals it ({@code --restart-after}), and the run's certificates must all still be in
 * its list. Pebble keeps everything in memory and makes a new root each start: {@code serve pebble}
 * is killed with its Pebble and started again, a CA that has forgotten every account and order, so
 * the orders in flight and those under an old account fail, as they must, and are counted so; each
 * worker then registers a new account (on Pebble's accountDoesNotExist) and the new root is fetched
 * again from Pebble's management port (when a chain fails the old one), and orders succeed again.
 */
record CaFault(Duration at, Duration downFor, Duration afterRestart) {
  static final String WORD = "kill-service";

  /** How long the CA stays down: serve openbao's default --restart-after too. */
  static final Duration DOWN_FOR = Duration.ofSeconds(10);

  /** What the step measures after the restart, for the recovery to show. */
  static final Duration AFTER_RESTART = Duration.ofSeconds(20);

  static final Duration WARMUP = Duration.ofSeconds(5);

  /** The workers of the fault step: Pebble's probe stops at 4, and one worker shows no dip. */
  static final int WORKERS = 2;

  /** The fault step's label: its operation's, marked. */
  static final String MARK = " · fault";

  static CaFault parse(String text) {
    if (text == null) return null;
    if (!text.startsWith(WORD + "@"))
      throw new IllegalArgumentException(
          "--fault "
              + text
              + ": the fault is kill-service@TIME: the first CA the study started SIGKILLed TIME into a step of"
              + " its own and started again "
              + DOWN_FOR.toSeconds()
              + " s later, e.g. kill-service@20s");
    Duration at;
    try {
      at = Durations.parse(text.substring(WORD.length() + 1));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("--fault " + text + ": " + e.getMessage());
    }
    if (at.compareTo(Duration.ofSeconds(3)) < 0 || at.compareTo(Duration.ofMinutes(10)) > 0)
      throw new IllegalArgumentException(
          "--fault " + text + ": kill between 3s (to see the rate before) and 10m into the step");
    return new CaFault(at, DOWN_FOR, AFTER_RESTART);
  }

  /** This fault in a step of other lengths (a test's short run). */
  CaFault lasting(Duration down, Duration after) {
    return new CaFault(at, down, after);
  }

  String text() {
    return WORD + "@" + Durations.format(at);
  }

  /**
   * The step: {@code spec} at {@link #WORKERS} workers in one-second iterations (each a second of
   * the timeline), the kill scheduled by its last hook, after {@code before}'s.
   */
  Step step(String label, WorkloadSpec spec, String cpu, String service, List<StepHook> before) {
    long seconds = at.plus(downFor).plus(afterRestart).toSeconds();
    Plan plan =
        Plan.of(List.of(spec))
            .concurrency(List.of(WORKERS))
            .warmup(Iterations.parse("1x" + WARMUP.toSeconds() + "s"))
            .measure(Iterations.parse(seconds + "x1s"))
            .verify(true)
            .cpu(cpu)
            .build();
    Step step = Step.of(label + MARK, plan);
    for (StepHook hook : before) step = step.before(hook);
    boolean openBao = service.equals(CaStudy.OPENBAO);
    return step.before(
        new ServiceKill(
            service,
            WARMUP.plus(at),
            downFor,
            openBao, // serve openbao starts its server again on the same storage
            "SIGKILL "
                + service
                + " about "
                + at.toSeconds()
                + " s into the measured seconds, back "
                + downFor.toSeconds()
                + " s later"
                + (openBao
                    ? " (serve openbao starts its server again on the same storage)"
                    : " (started again: a new Pebble, which remembers nothing)")));
  }
}
