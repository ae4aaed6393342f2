package io.pkibench.plan;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A workload by name with its parameters ({@code -p k=v}) and where its keys live ({@code --keys});
 * {@code mix} is set (and absent from plain plans) when the workload is a traffic mix of several,
 * whose members carry their own parameters.
 */
public record WorkloadSpec(
    String name,
    Map<String, String> params,
    String keys,
    @JsonInclude(JsonInclude.Include.NON_NULL) MixSpec mix) {
  public WorkloadSpec {
    params = Collections.unmodifiableSortedMap(new TreeMap<>(params));
  }

  public WorkloadSpec(String name, Map<String, String> params, String keys) {
    this(name, params, keys, null);
  }
}
