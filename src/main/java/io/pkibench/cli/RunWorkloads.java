package io.pkibench.cli;

import io.pkibench.keys.catalog.KeySources;
import io.pkibench.plan.MixSpec;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.SourceAddresses;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The workloads {@code run} is asked for, by name or as a mix, each with its parameters and key
 * source: the specs the plan measures, and every problem with them.
 *
 * @param names the WORKLOAD arguments
 * @param mix {@code --mix}, or null
 * @param scenarioMembers the mix a {@code --scenario} file lists, empty without one
 * @param scenario {@code --scenario}, or null
 */
record RunWorkloads(
    List<String> names,
    String mix,
    List<MixSpec.Member> scenarioMembers,
    Path scenario,
    long seed,
    Map<String, String> params,
    String target,
    String sourceAddresses,
    String keys) {

  /**
   * The specs, one per workload (or mix) and key source; each problem added to {@code problems}.
   */
  List<WorkloadSpec> specs(WorkloadCatalog catalog, List<String> problems) {
    List<WorkloadSpec> specs = new ArrayList<>();
    // --mix on the command line wins over a scenario's members, as every flag wins over the file.
    boolean mixing = mix != null || !scenarioMembers.isEmpty();
    if (mixing && !names.isEmpty()) {
      problems.add(
          (mix != null ? "--mix" : "--scenario " + scenario + " (its members)")
              + " and "
              + String.join(" ", names)
              + ": give the workloads either by name or as mix members, not both (e.g. --mix "
              + String.join(",", names.stream().map(w -> w + "=1").toList())
              + ")");
    } else if (!mixing && names.isEmpty()) {
      problems.add(
          "no workload given: name one, e.g. 'pkibench run sign', or give a mix, e.g. --mix sign=7,verify=3");
    }
    if (mixing && names.isEmpty()) {
      try {
        MixSpec members =
            MixPlans.withShared(
                mix != null ? MixSpec.parse("--mix", mix) : scenarioMembers,
                seed,
                params,
                target,
                sourceAddresses,
                catalog,
                problems);
        specs.addAll(MixPlans.specs(members, KeySources.split(keys)));
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
      }
    }
    for (String name : mixing ? List.<String>of() : names) {
      Map<String, String> workloadParams = new LinkedHashMap<>(params);
      boolean remote =
          catalog
              .find(name)
              .map(f -> f.params().stream().anyMatch(p -> p.name().equals(ParamSpec.TARGET)))
              .orElse(false);
      if (remote && target != null) workloadParams.putIfAbsent(ParamSpec.TARGET, target);
      boolean sockets =
          catalog
              .find(name)
              .map(f -> f.params().stream().anyMatch(p -> p.name().equals(SourceAddresses.PARAM)))
              .orElse(false);
      if (sockets && sourceAddresses != null) {
        if (params.containsKey(SourceAddresses.PARAM)
            && !params.get(SourceAddresses.PARAM).equals(sourceAddresses)) {
          problems.add(
              "--source-addresses "
                  + sourceAddresses
                  + " and -p "
                  + SourceAddresses.PARAM
                  + "="
                  + params.get(SourceAddresses.PARAM)
                  + ": give the addresses once");
        }
        workloadParams.put(SourceAddresses.PARAM, sourceAddresses);
      }
      // A workload that uses no key runs once whatever --keys lists.
      boolean usesKeys = catalog.find(name).map(WorkloadFactory::usesKeys).orElse(true);
      List<String> sources =
          usesKeys ? KeySources.split(keys) : List.of(KeySources.split(keys).get(0));
      for (String source : sources) specs.add(new WorkloadSpec(name, workloadParams, source));
    }
    if (sourceAddresses != null && !mixing) {
      boolean any =
          names.stream()
              .anyMatch(
                  n ->
                      catalog
                          .find(n)
                          .map(
                              f ->
                                  f.params().stream()
                                      .anyMatch(p -> p.name().equals(SourceAddresses.PARAM)))
                          .orElse(false));
      if (!any)
        problems.add(
            "--source-addresses "
                + sourceAddresses
                + ": none of "
                + String.join(", ", names)
                + " opens connections"
                + " (tls-rr, tls-acrr, tls-stream, tls-hold and https-* do); leave it out");
    }
    // The catalog's checks of each workload, reported even when the load flags are wrong too.
    // A workload's check of the addresses names its -p; given as --source-addresses, the flag the
    // user typed is named, once.
    for (WorkloadSpec s : specs) {
      for (String problem : catalog.problems(s)) {
        String named =
            sourceAddresses == null
                ? problem
                : problem.replace("-p " + SourceAddresses.PARAM, "--source-addresses");
        if (!problems.contains(named)) problems.add(named);
      }
    }
    return specs;
  }
}
