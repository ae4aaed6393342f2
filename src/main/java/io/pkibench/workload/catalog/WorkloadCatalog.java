package io.pkibench.workload.catalog;

import io.pkibench.keys.catalog.KeySources;
import io.pkibench.plan.LevelLoad;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.MixSpec;
import io.pkibench.plan.Plan;
import io.pkibench.plan.Stages;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.workload.acme.AcmeWorkloads;
import io.pkibench.workload.ades.AuthWorkload;
import io.pkibench.workload.ades.CadesWorkload;
import io.pkibench.workload.ades.PadesWorkload;
import io.pkibench.workload.ades.TimestampWorkload;
import io.pkibench.workload.ades.XadesWorkload;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.SocketBudget;
import io.pkibench.workload.api.Suggestions;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.apispec.ApiWorkload;
import io.pkibench.workload.dss.DssServerSignWorkload;
import io.pkibench.workload.dss.DssSigningWorkload;
import io.pkibench.workload.dss.DssValidateWorkload;
import io.pkibench.workload.http.HttpSigningWorkload;
import io.pkibench.workload.http.OcspWorkload;
import io.pkibench.workload.http.TspWorkload;
import io.pkibench.workload.openbao.OpenBaoWorkloads;
import io.pkibench.workload.pec.PecSendWorkload;
import io.pkibench.workload.pec.PecWorkloads;
import io.pkibench.workload.primitive.AesGcmWorkload;
import io.pkibench.workload.primitive.CmsWorkload;
import io.pkibench.workload.primitive.DigestWorkload;
import io.pkibench.workload.primitive.KemWorkload;
import io.pkibench.workload.primitive.KeygenWorkload;
import io.pkibench.workload.primitive.NoopWorkload;
import io.pkibench.workload.primitive.SignWorkload;
import io.pkibench.workload.primitive.VerifyWorkload;
import io.pkibench.workload.rsfn.RsfnWorkloads;
import io.pkibench.workload.spi.SpiWorkloads;
import io.pkibench.workload.tls.HandshakeWorkload;
import io.pkibench.workload.tls.HoldWorkload;
import io.pkibench.workload.tls.HttpsWorkload;
import io.pkibench.workload.tls.TlsWorkload;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Every workload pkibench knows, by name. */
public record WorkloadCatalog(List<WorkloadFactory> factories) {

  public static WorkloadCatalog builtIn() {
    return new WorkloadCatalog(
        List.of(
            new SignWorkload.Factory(),
            new VerifyWorkload.Factory(),
            new DigestWorkload.Factory(),
            new AesGcmWorkload.Factory(),
            new KeygenWorkload.Factory(),
            new KemWorkload.Factory(),
            new CmsWorkload.Factory(true),
            new CmsWorkload.Factory(false),
            new NoopWorkload.Factory(),
            new TimestampWorkload.Factory(),
            new CadesWorkload.Factory(false),
            new CadesWorkload.Factory(true),
            new PadesWorkload.Factory(false),
            new PadesWorkload.Factory(true),
            new XadesWorkload.Factory(),
            new AuthWorkload.Factory(),
            new HttpSigningWorkload.Factory("cades"),
            new HttpSigningWorkload.Factory("cades-t"),
            new HttpSigningWorkload.Factory("pades"),
            new HttpSigningWorkload.Factory("pades-t"),
            new HttpSigningWorkload.Factory("xades"),
            new HttpSigningWorkload.Factory("cms"),
            new HttpSigningWorkload.Factory("auth"),
            new HttpSigningWorkload.Factory("timestamp"),
            new TspWorkload.Factory(),
            new OcspWorkload.Factory(),
            new DssSigningWorkload.Factory("cades"),
            new DssSigningWorkload.Factory("cades-t"),
            new DssSigningWorkload.Factory("pades"),
            new DssSigningWorkload.Factory("pades-t"),
            new DssSigningWorkload.Factory("xades"),
            new DssValidateWorkload.Factory(),
            new DssServerSignWorkload.Factory(),
            new TlsWorkload.Factory(TlsWorkload.Kind.RR),
            new TlsWorkload.Factory(TlsWorkload.Kind.ACRR),
            new TlsWorkload.Factory(TlsWorkload.Kind.STREAM),
            new HoldWorkload.Factory(),
            new HandshakeWorkload.Factory(),
            new HttpsWorkload.Factory(HttpsWorkload.Kind.RR),
            new HttpsWorkload.Factory(HttpsWorkload.Kind.ACRR),
            new HttpsWorkload.Factory(HttpsWorkload.Kind.STREAM),
            new SpiWorkloads.Sign(),
            new SpiWorkloads.Verify(),
            new SpiWorkloads.Random(),
            new RsfnWorkloads.Pack(),
            new RsfnWorkloads.Unpack(),
            new RsfnWorkloads.Ceiling(),
            new PecWorkloads.Sign(),
            new PecWorkloads.Verify(),
            new PecWorkloads.Ceiling(),
            new OpenBaoWorkloads.Factory(OpenBaoWorkloads.Kind.TRANSIT_SIGN),
            new OpenBaoWorkloads.Factory(OpenBaoWorkloads.Kind.TRANSIT_VERIFY),
            new OpenBaoWorkloads.Factory(OpenBaoWorkloads.Kind.TRANSIT_ENCRYPT),
            new OpenBaoWorkloads.Factory(OpenBaoWorkloads.Kind.TRANSIT_DECRYPT),
            new OpenBaoWorkloads.Factory(OpenBaoWorkloads.Kind.TRANSIT_HMAC),
            new OpenBaoWorkloads.Factory(OpenBaoWorkloads.Kind.PKI_ISSUE),
            new OpenBaoWorkloads.Factory(OpenBaoWorkloads.Kind.PKI_SIGN),
            new AcmeWorkloads.Factory(AcmeWorkloads.Kind.ORDER),
            new AcmeWorkloads.Factory(AcmeWorkloads.Kind.RENEW),
            new AcmeWorkloads.Factory(AcmeWorkloads.Kind.REVOKE),
            new PecSendWorkload(),
            new ApiWorkload.Factory()));
  }

  /**
   * Every problem of {@code plan} at once, each naming the flag and the fix: the plan's own
   * (levels, iterations), unknown workloads (with a suggestion), bad parameters, a service workload
   * without its target, a bad key source. The one check used by {@code run}, {@code study} and the
   * forked child.
   */
  public List<String> problems(Plan plan) {
    List<String> problems = new ArrayList<>(plan.problems());
    for (WorkloadSpec spec : plan.workloads()) problems.addAll(problems(spec));
    if (problems.isEmpty()) problems.addAll(workerProblems(plan));
    return problems.stream().distinct().toList();
  }

  /**
   * What each workload cannot give the plan's largest level (more identities than a directory
   * holds), asked once with that level's workers and named by its flag: found before the run, not
   * when that level starts.
   */
  private List<String> workerProblems(Plan plan) {
    int workers = plan.load().levels().stream().mapToInt(LevelLoad::workers).max().orElse(0);
    String level =
        switch (plan.load()) {
          case LoadModel.Closed closed -> "--concurrency " + workers;
          case LoadModel.Open open -> "--concurrency " + workers + " (the workers serving --rate)";
          case LoadModel.Staged staged ->
              staged.stages().kind() == Stages.Kind.RATE
                  ? "--concurrency " + workers + " (the workers serving --stages)"
                  : "--stages (" + workers + " workers at its highest)";
        };
    List<String> problems = new ArrayList<>();
    for (WorkloadSpec spec : plan.workloads()) {
      factoryOf(spec)
          .ifPresent(
              f ->
                  problems.addAll(
                      f.workerProblems(
                          Params.resolve(spec.name(), f.params(), spec.params()), workers, level)));
      if (spec.keys() != null)
        problems.addAll(KeySources.workerProblems(spec.keys(), workers, level));
    }
    return problems;
  }

  /** The problems of one workload as it is asked for; empty when it can be created. */
  public List<String> problems(WorkloadSpec spec) {
    if (spec.mix() != null) return mixProblems(spec);
    List<String> problems = new ArrayList<>();
    WorkloadFactory factory = find(spec.name()).orElse(null);
    if (factory == null) {
      problems.add(
          "unknown workload '"
              + spec.name()
              + "'"
              + Suggestions.didYouMean(spec.name(), names())
              + "; 'pkibench list' shows them all");
      return problems;
    }
    ParamSpec target =
        factory.params().stream()
            .filter(p -> p.name().equals(ParamSpec.TARGET))
            .findFirst()
            .orElse(null);
    // a workload whose target has a default (tls-handshake: in memory) runs without --target
    if (target != null
        && spec.params().getOrDefault(ParamSpec.TARGET, target.defaultValue()).isBlank()) {
      problems.add(
          "--target: "
              + spec.name()
              + " calls a service; give its address: "
              + target.description());
    }
    try {
      problems.addAll(
          factory.problems(
              Params.resolve(spec.name(), factory.params(), spec.params()), spec.keys()));
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    if (factory.usesKeys()) {
      String keyProblem = KeySources.problem(spec.keys());
      if (keyProblem != null) problems.add(keyProblem);
    }
    return problems;
  }

  /**
   * Levels whose workers would hold more connections than {@code budget} allows, each naming the
   * workload, the number needed and the way out (empty: they fit). Workloads run one after another,
   * so the largest level of each counts.
   */
  public List<String> socketProblems(Plan plan, SocketBudget budget) {
    int workers = plan.load().levels().stream().mapToInt(LevelLoad::workers).max().orElse(0);
    List<String> problems = new ArrayList<>();
    for (WorkloadSpec spec : plan.workloads()) {
      factoryOf(spec)
          .ifPresent(
              f -> {
                int each =
                    f.socketsPerWorker(Params.resolve(spec.name(), f.params(), spec.params()));
                if (each > 0) {
                  Params params = Params.resolve(spec.name(), f.params(), spec.params());
                  problems.addAll(
                      budget.problems(
                          "--concurrency " + workers + " of " + spec.name(),
                          (long) each * workers,
                          f.sourceAddresses(params)));
                }
              });
    }
    return problems.stream().distinct().toList();
  }

  /**
   * The problems of a mix: its own (weights, labels), then each member's as a workload of its own,
   * named by its label (unknown names with a suggestion, parameters, a target), and the key source
   * once.
   */
  private List<String> mixProblems(WorkloadSpec spec) {
    List<String> problems = new ArrayList<>(spec.mix().problems("--mix"));
    for (MixSpec.Member m : spec.mix().members()) {
      WorkloadFactory factory = find(m.name()).orElse(null);
      if (factory == null) {
        problems.add(
            "--mix: unknown member '"
                + m.name()
                + "'"
                + Suggestions.didYouMean(m.name(), names())
                + "; 'pkibench list' shows the workloads");
        continue;
      }
      for (String p : problems(new WorkloadSpec(m.name(), m.params(), spec.keys()))) {
        if (p.equals(KeySources.problem(spec.keys()))) continue; // said once for the mix, below
        problems.add("mix member " + m.label() + ": " + p);
      }
    }
    boolean usesKeys =
        spec.mix().members().stream()
            .anyMatch(m -> find(m.name()).map(WorkloadFactory::usesKeys).orElse(false));
    if (usesKeys && KeySources.problem(spec.keys()) != null)
      problems.add(KeySources.problem(spec.keys()));
    return problems;
  }

  /**
   * The factory that makes {@code spec}: a {@link MixFactory} of its members for a mix (empty while
   * one is unknown), else the one named.
   */
  public Optional<WorkloadFactory> factoryOf(WorkloadSpec spec) {
    if (spec.mix() == null) return find(spec.name());
    List<WorkloadFactory> members = new ArrayList<>();
    for (MixSpec.Member m : spec.mix().members()) {
      Optional<WorkloadFactory> f = find(m.name());
      if (f.isEmpty()) return Optional.empty();
      members.add(f.get());
    }
    return Optional.of(new MixFactory(spec.mix(), members));
  }

  public Optional<WorkloadFactory> find(String name) {
    return factories.stream().filter(f -> f.name().equals(name)).findFirst();
  }

  public List<String> names() {
    return factories.stream().map(WorkloadFactory::name).toList();
  }
}
