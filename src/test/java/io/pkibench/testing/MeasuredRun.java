package io.pkibench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.engine.IterationOutcome;
import io.pkibench.engine.LoadDriver;
import io.pkibench.engine.ProgressListener;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.IntervalLog;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.ThreadKind;
import io.pkibench.workload.api.Workload;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A workload driven by the real engine for one short measured iteration on one worker, so that a
 * test sees what a run records (started, succeeded, failed, causes) rather than what one call
 * throws: a failing per-operation check must be counted, not end the run.
 */
public record MeasuredRun(
    String workload,
    long started,
    long succeeded,
    long failed,
    Long verified,
    Map<String, Long> errors) {

  /**
   * One worker, no warm-up, one measured iteration of {@code measure}; where fewer than two
   * operations started (CI's loaded machine started one RSFN package in 150 ms), once more for 4×,
   * 16× and then 64× as long, so that "the run went on past a failure" and "every operation
   * succeeded" are judged on a run that had room for more than one: by the count started, not by
   * what fits in a fixed window.
   */
  public static MeasuredRun of(String name, Workload workload, Duration measure) throws Exception {
    return of(name, workload, measure, 2);
  }

  /**
   * As above, until at least {@code atLeastStarted} operations started in one iteration (a test
   * that judges a share of them needs that many, however slow the machine).
   */
  public static MeasuredRun of(
      String name, Workload workload, Duration measure, long atLeastStarted) throws Exception {
    MeasuredRun run = null;
    long last = measure.toMillis() * 64;
    for (long millis = measure.toMillis(); millis <= last; millis *= 4) {
      run = once(name, workload, Duration.ofMillis(millis));
      if (run.started() >= atLeastStarted) break;
    }
    return run;
  }

  /** One measured iteration of {@code measure}, whatever it started. */
  static MeasuredRun once(String name, Workload workload, Duration measure) throws Exception {
    SeriesSpec spec =
        new SeriesSpec(
            name,
            1,
            1,
            1,
            Iterations.parse("0x1s"),
            Iterations.parse("1x" + measure.toMillis() + "ms"));
    List<IterationOutcome> outcomes =
        new LoadDriver(
                ThreadKind.PLATFORM,
                ProgressListener.NONE,
                IntervalLog.NONE,
                InstantSource.system(),
                Duration.ofSeconds(30))
            .runSeries(spec, workload, CpuMeter.of("jvm"));
    long started = 0, succeeded = 0, failed = 0;
    Long verified = null; // null: the workload's operations count no checks
    Map<String, Long> errors = new HashMap<>();
    for (IterationOutcome o : outcomes) {
      if (o.warmup()) continue;
      started += o.started();
      succeeded += o.succeeded();
      failed += o.failed();
      if (o.verified() != null) verified = (verified == null ? 0 : verified) + o.verified();
      o.errors().forEach((cause, n) -> errors.merge(cause, n, Long::sum));
    }
    return new MeasuredRun(name, started, succeeded, failed, verified, Map.copyOf(errors));
  }

  /**
   * For 300 ms, enough for a few signatures of the slowest format on a quiet machine; where fewer
   * than two operations started (a machine loaded twenty-fold started one XAdES signature in 300
   * ms), once more for 1.2 s, 4.8 s and then 19.2 s, so that "the run went on past a failure" is
   * judged on a run that had room to go on.
   */
  public static MeasuredRun of(String name, Workload workload) throws Exception {
    return of(name, workload, Duration.ofMillis(300));
  }

  /** At least one operation ran and every one passed its own check. */
  public MeasuredRun assertEverySucceeded() {
    assertTrue(started > 0, workload + ": no operation started");
    assertEquals(
        started, succeeded, workload + ": every started operation succeeds; errors " + errors);
    assertEquals(0, failed, workload + ": no failure; errors " + errors);
    return this;
  }

  /**
   * Every operation succeeded, and each was counted verified: its answer checked, not merely
   * answered.
   */
  public MeasuredRun assertEveryVerified() {
    assertEverySucceeded();
    assertEquals(
        (Long) succeeded, verified, workload + ": every succeeded operation counted verified");
    return this;
  }

  /**
   * The run went on past the fault (more than one operation started, each counted) and every
   * operation failed with a cause containing {@code message}.
   */
  public MeasuredRun assertEveryFailedWith(String message) {
    assertTrue(
        started > 1, workload + ": the run must go on after a failed check, started " + started);
    assertEquals(0, succeeded, workload + ": no operation passes its check; errors " + errors);
    assertEquals(started, failed, workload + ": every started operation counted as failed");
    // past 100 distinct causes (a CRC or an offset in each message) the engine counts the rest in
    // one bucket
    List<String> named =
        errors.keySet().stream()
            .filter(cause -> !cause.startsWith("(more distinct causes than"))
            .toList();
    assertTrue(
        !named.isEmpty() && named.stream().allMatch(cause -> cause.contains(message)),
        workload + ": every cause names '" + message + "': " + errors);
    return this;
  }
}
