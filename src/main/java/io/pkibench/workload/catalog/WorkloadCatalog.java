package io.pkibench.workload.catalog;

import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Suggestions;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.primitive.AesGcmWorkload;
import io.pkibench.workload.primitive.DigestWorkload;
import io.pkibench.workload.primitive.KeygenWorkload;
import io.pkibench.workload.primitive.NoopWorkload;
import io.pkibench.workload.primitive.SignWorkload;
import io.pkibench.workload.primitive.VerifyWorkload;
import java.util.List;
import java.util.Optional;

/** Every workload pkibench knows, by name. */
public record WorkloadCatalog(List<WorkloadFactory> factories) {

  public static WorkloadCatalog builtIn() {
    return new WorkloadCatalog(List.of(
        new SignWorkload.Factory(),
        new VerifyWorkload.Factory(),
        new DigestWorkload.Factory(),
        new AesGcmWorkload.Factory(),
        new KeygenWorkload.Factory(),
        new NoopWorkload.Factory(),
        new io.pkibench.workload.ades.TimestampWorkload.Factory(),
        new io.pkibench.workload.ades.CadesWorkload.Factory(false),
        new io.pkibench.workload.ades.CadesWorkload.Factory(true),
        new io.pkibench.workload.ades.PadesWorkload.Factory(false),
        new io.pkibench.workload.ades.PadesWorkload.Factory(true),
        new io.pkibench.workload.ades.XadesWorkload.Factory(),
        new io.pkibench.workload.ades.AuthWorkload.Factory(),
        new io.pkibench.workload.http.HttpSigningWorkload.Factory("cades"),
        new io.pkibench.workload.http.HttpSigningWorkload.Factory("cades-t"),
        new io.pkibench.workload.http.HttpSigningWorkload.Factory("pades"),
        new io.pkibench.workload.http.HttpSigningWorkload.Factory("pades-t"),
        new io.pkibench.workload.http.HttpSigningWorkload.Factory("xades"),
        new io.pkibench.workload.http.HttpSigningWorkload.Factory("auth"),
        new io.pkibench.workload.http.HttpSigningWorkload.Factory("timestamp"),
        new io.pkibench.workload.tls.TlsWorkload.Factory(io.pkibench.workload.tls.TlsWorkload.Kind.RR),
        new io.pkibench.workload.tls.TlsWorkload.Factory(io.pkibench.workload.tls.TlsWorkload.Kind.ACRR),
        new io.pkibench.workload.tls.TlsWorkload.Factory(io.pkibench.workload.tls.TlsWorkload.Kind.STREAM),
        new io.pkibench.workload.tls.HandshakeWorkload.Factory(),
        new io.pkibench.workload.spi.SpiWorkloads.Sign(), new io.pkibench.workload.spi.SpiWorkloads.Verify(),
        new io.pkibench.workload.spi.SpiWorkloads.Random(),
        new io.pkibench.workload.rsfn.RsfnWorkloads.Pack(), new io.pkibench.workload.rsfn.RsfnWorkloads.Unpack(),
        new io.pkibench.workload.rsfn.RsfnWorkloads.Ceiling(), new io.pkibench.workload.pec.PecWorkloads.Sign(),
        new io.pkibench.workload.pec.PecWorkloads.Verify(), new io.pkibench.workload.pec.PecWorkloads.Ceiling(),
        new io.pkibench.workload.pec.PecSendWorkload()));
  }

  /**
   * Every problem of {@code plan} at once, each naming the flag and the fix: the plan's own (levels,
   * iterations), unknown workloads (with a suggestion), bad parameters, a service workload without its
   * target, a bad key source. The one check used by {@code run}, {@code study} and the forked child.
   */
  public List<String> problems(io.pkibench.plan.Plan plan) {
    List<String> problems = new java.util.ArrayList<>(plan.problems());
    for (io.pkibench.plan.WorkloadSpec spec : plan.workloads()) problems.addAll(problems(spec));
    return problems.stream().distinct().toList();
  }

  /** The problems of one workload as it is asked for; empty when it can be created. */
  public List<String> problems(io.pkibench.plan.WorkloadSpec spec) {
    List<String> problems = new java.util.ArrayList<>();
    WorkloadFactory factory = find(spec.name()).orElse(null);
    if (factory == null) {
      problems.add("unknown workload '" + spec.name() + "'" + Suggestions.didYouMean(spec.name(), names()) + "; 'pkibench list' shows them all");
      return problems;
    }
    ParamSpec target = factory.params().stream().filter(p -> p.name().equals(ParamSpec.TARGET)).findFirst().orElse(null);
    if (target != null && spec.params().getOrDefault(ParamSpec.TARGET, "").isBlank()) {
      problems.add("--target: " + spec.name() + " calls a service; give its address: " + target.description());
    }
    try {
      problems.addAll(factory.problems(Params.resolve(spec.name(), factory.params(), spec.params()), spec.keys()));
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    if (factory.usesKeys()) {
      String keyProblem = io.pkibench.keys.catalog.KeySources.problem(spec.keys());
      if (keyProblem != null) problems.add(keyProblem);
    }
    return problems;
  }

  public Optional<WorkloadFactory> find(String name) {
    return factories.stream().filter(f -> f.name().equals(name)).findFirst();
  }

  public List<String> names() {
    return factories.stream().map(WorkloadFactory::name).toList();
  }
}
