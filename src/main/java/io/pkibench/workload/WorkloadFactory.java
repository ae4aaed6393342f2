package io.pkibench.workload;

import java.util.List;

/** A named workload type as {@code pkibench list} shows it and {@code pkibench run NAME} creates it. */
public interface WorkloadFactory {
  String name();

  String description();

  List<ParamSpec> params();

  /** False for workloads that never touch a key, so {@code --keys} need not be opened for them. */
  default boolean usesKeys() {
    return true;
  }

  Workload create(WorkloadContext context, Params params) throws Exception;
}
