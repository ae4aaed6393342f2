package io.pkibench.workload;

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
        new io.pkibench.workload.http.HttpSigningWorkload.Factory("timestamp")));
  }

  public Optional<WorkloadFactory> find(String name) {
    return factories.stream().filter(f -> f.name().equals(name)).findFirst();
  }

  public List<String> names() {
    return factories.stream().map(WorkloadFactory::name).toList();
  }
}
