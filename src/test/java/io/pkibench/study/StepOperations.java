package io.pkibench.study;

import io.pkibench.keys.KeySource;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.Plan;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A study step's workload run in this thread as one of its workers runs it, with the step's own
 * verify and sample settings, counting what was done, what was checked and what failed: how the
 * studies' verified-count tests see a planted fault without measuring anything.
 */
final class StepOperations {
  private StepOperations() {}

  record Counts(int ok, int verified, int failed) {}

  record Tally(int ok, int verified, int failed, List<String> errors) {
    Counts counts() {
      return new Counts(ok, verified, failed);
    }
  }

  /** {@code operations} of {@code plan}'s first workload, its keys from {@code keys}. */
  static Tally run(Plan plan, KeySource keys, Supplier<TestPki> pki, int operations)
      throws Exception {
    var spec = plan.workloads().get(0);
    WorkloadFactory factory = WorkloadCatalog.builtIn().find(spec.name()).orElseThrow();
    var context =
        new WorkloadContext(
            keys,
            plan.verify(),
            pki,
            InstantSource.system(),
            Map.of(),
            Math.max(1, plan.verifySample()));
    Operation op =
        factory
            .create(context, Params.resolve(factory.name(), factory.params(), spec.params()))
            .newOperation(0);
    int ok = 0, verified = 0, failed = 0;
    List<String> errors = new ArrayList<>();
    for (int i = 0; i < operations; i++) {
      try {
        boolean checked = false;
        if (op instanceof CheckedOperation c) checked = c.executeChecked();
        else op.execute();
        ok++;
        if (checked) verified++;
      } catch (Exception e) {
        failed++;
        errors.add(String.valueOf(e.getMessage()));
      }
    }
    return new Tally(ok, verified, failed, errors);
  }
}
