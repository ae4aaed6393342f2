package io.pkibench.cli;

import io.pkibench.plan.MixSpec;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.SourceAddresses;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.catalog.MixFactory;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns {@code --mix} (or a scenario's members) and the run's shared flags into the mix's workload:
 * each shared {@code -p} goes to every member that declares it (one no member declares is refused),
 * as do {@code --target} and {@code --source-addresses}; a shared value that differs from one a
 * member was given itself is a clash, refused naming both.
 */
final class MixPlans {
  private MixPlans() {}

  /**
   * The mix's members with the shared parameters given to them; every problem is added to {@code
   * problems}.
   */
  static MixSpec withShared(
      List<MixSpec.Member> members,
      long seed,
      Map<String, String> shared,
      String target,
      String sourceAddresses,
      WorkloadCatalog catalog,
      List<String> problems) {
    List<MixSpec.Member> given = new ArrayList<>();
    Map<String, Boolean> taken = new LinkedHashMap<>();
    for (String k : shared.keySet()) taken.put(k, false);
    for (MixSpec.Member m : members) {
      WorkloadFactory factory = catalog.find(m.name()).orElse(null);
      if (factory == null) {
        given.add(m); // the catalog names it, with a suggestion
        continue;
      }
      Map<String, String> params = new LinkedHashMap<>(m.params());
      for (var e : shared.entrySet()) {
        if (!declares(factory, e.getKey())) continue;
        taken.put(e.getKey(), true);
        String own = m.params().get(e.getKey());
        if (own != null && !own.equals(e.getValue())) {
          problems.add(
              "-p "
                  + e.getKey()
                  + "="
                  + e.getValue()
                  + " clashes with mix member "
                  + m.label()
                  + "'s own "
                  + e.getKey()
                  + "="
                  + own
                  + ": give it in one place (shared, or the member's params)");
        }
        params.putIfAbsent(e.getKey(), e.getValue());
      }
      if (target != null && declares(factory, ParamSpec.TARGET))
        params.putIfAbsent(ParamSpec.TARGET, target);
      if (sourceAddresses != null && declares(factory, SourceAddresses.PARAM))
        params.putIfAbsent(SourceAddresses.PARAM, sourceAddresses);
      given.add(m.withParams(params));
    }
    boolean allKnown = members.stream().allMatch(m -> catalog.find(m.name()).isPresent());
    taken.forEach(
        (k, used) -> {
          if (!used && allKnown) {
            problems.add(
                "-p "
                    + k
                    + ": no member of the mix ("
                    + String.join(", ", members.stream().map(MixSpec.Member::name).toList())
                    + ") takes it; 'pkibench list' shows each workload's parameters");
          }
        });
    return new MixSpec(given, seed);
  }

  private static boolean declares(WorkloadFactory factory, String param) {
    return factory.params().stream().anyMatch(p -> p.name().equals(param));
  }

  /** The mix run once per key source. */
  static List<WorkloadSpec> specs(MixSpec mix, List<String> keySources) {
    return keySources.stream()
        .map(k -> new WorkloadSpec(MixFactory.NAME, Map.of(), k, mix))
        .toList();
  }
}
