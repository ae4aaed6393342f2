package io.pkibench.study;

import io.pkibench.plan.Iterations;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What both ssl studies ({@link IbmTlsTable}, {@link TlsServerComparison}) measure alike: a
 * netperf-style transaction, and the step that measures one against a service, its CPU by the
 * service's pid, the level chosen by {@link SaturatingLevelChooser}.
 */
final class TlsTransactions {
  private TlsTransactions() {}

  /** A row of the table: the transaction and the workload parameters that make it. */
  record Transaction(String label, String workload, Map<String, String> params) {}

  /** A step's label: the transaction, then its column and, where one is named, the engine. */
  static String label(Transaction t, String column, String engine) {
    return t.label() + " · " + column + (engine.isEmpty() ? "" : " [" + engine + "]");
  }

  static Step step(StudyOptions options, String label, WorkloadSpec spec, String service) {
    String cpu = "service:" + service;
    long seconds = Math.max(5, options.duration().toSeconds());
    // quick: every column in fifth-of-a-second iterations (warm up to 1 s until steady, measure
    // 0.75 s), so 18 cells take less than 9 took
    Iterations warmup = options.warmup("1x200ms", 1, Duration.ofSeconds(Math.max(3, seconds / 10)));
    if (options.quick())
      warmup =
          new Iterations(
              warmup.count(),
              warmup.each(),
              5); // judging takes 3; 2 more, not 7: 18 cells in quick
    Iterations measure =
        options.iterations("3x250ms", 5, Duration.ofSeconds(Math.max(1, seconds / 5)));
    // No probe when quick: four workers keep a loopback server busy on this 2-core class of
    // machine; a smoke run, not sizing.
    if (options.quick()) return Step.of(label, plan(spec, List.of(4), warmup, measure, cpu));
    Plan probe =
        plan(
            spec,
            List.of(1, 2, 4, 8, 16),
            new Iterations(0, Duration.ofSeconds(2), StudyOptions.QUICK_WARMUP_CAP),
            Iterations.parse("1x2s"),
            cpu);
    return Step.of(label, plan(spec, List.of(1), warmup, measure, cpu))
        .probedBy(probe, SaturatingLevelChooser.INSTANCE);
  }

  private static Plan plan(
      WorkloadSpec spec, List<Integer> levels, Iterations warmup, Iterations measure, String cpu) {
    return Plan.of(List.of(spec))
        .concurrency(levels)
        .warmup(warmup)
        .measure(measure)
        .cpu(cpu)
        .build();
  }
}
