package io.pkibench.workload.api;

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

  /**
   * Problems of these parameters with this key source that a parameter's list of allowed values cannot
   * say (a size out of range, a mode that needs another source), each naming the flag: found before
   * anything runs rather than when the workload is created.
   */
  default List<String> problems(Params params, String keys) {
    return List.of();
  }

  Workload create(WorkloadContext context, Params params) throws Exception;
}
