package io.pkibench.results;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One workload across its levels; {@code failure} says why it stopped early (null when it ran every level). */
public record WorkloadResult(
    String name, Map<String, String> params, String keys, String cpuMeter, List<LevelResult> levels, String failure) {

  public WorkloadResult {
    params = Map.copyOf(params);
    levels = List.copyOf(levels);
  }

  public WorkloadResult withLevel(LevelResult level) {
    List<LevelResult> list = new ArrayList<>(levels);
    list.add(level);
    return new WorkloadResult(name, params, keys, cpuMeter, list, failure);
  }

  public WorkloadResult withFailure(String why) {
    return new WorkloadResult(name, params, keys, cpuMeter, levels, why);
  }
}
