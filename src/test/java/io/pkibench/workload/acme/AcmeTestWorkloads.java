package io.pkibench.workload.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.pkibench.pki.TestPki;
import io.pkibench.server.pebble.PebbleServer;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * An acme: workload as {@code run} makes it, against {@code directory} (Pebble's, or a proxy's in
 * front of it), trusting {@code pebble}'s issuer, with a pool of four CSR keys: the acme tests' one
 * way to make one.
 */
final class AcmeTestWorkloads {
  private AcmeTestWorkloads() {}

  static Workload create(
      AcmeWorkloads.Kind kind,
      PebbleServer pebble,
      TestPki pki,
      String directory,
      Map<String, String> params)
      throws Exception {
    AcmeWorkloads.Factory factory = new AcmeWorkloads.Factory(kind);
    Map<String, String> given = new HashMap<>(params);
    given.put(ParamSpec.TARGET, directory);
    given.put("issuer-trust", pebble.issuerRootUrl());
    given.put("key-pool", "4");
    Params resolved = Params.resolve(factory.name(), factory.params(), given);
    assertEquals(List.of(), factory.problems(resolved, null));
    return factory.create(
        new WorkloadContext(null, true, () -> pki, InstantSource.system()), resolved);
  }
}
