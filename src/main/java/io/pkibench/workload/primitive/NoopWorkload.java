package io.pkibench.workload.primitive;

import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.util.List;

/** Does nothing, so that what it measures is the engine's own cost per operation. */
public final class NoopWorkload implements Workload {

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return "noop";
    }

    @Override
    public String description() {
      return "an empty operation: the engine's own cost per operation";
    }

    @Override
    public List<ParamSpec> params() {
      return List.of();
    }

    @Override
    public boolean usesKeys() {
      return false;
    }

    @Override
    public Workload create(WorkloadContext context, Params params) {
      return new NoopWorkload();
    }
  }

  @Override
  public Operation newOperation(int worker) {
    return () -> {};
  }
}
