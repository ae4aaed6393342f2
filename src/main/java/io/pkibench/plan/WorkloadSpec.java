package io.pkibench.plan;

import java.util.Map;
import java.util.TreeMap;

/** A workload by name with its parameters ({@code -p k=v}) and where its keys live ({@code --keys}). */
public record WorkloadSpec(String name, Map<String, String> params, String keys) {
  public WorkloadSpec {
    params = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(params));
  }
}
