package io.pkibench.workload.primitive;

import io.pkibench.testing.AcceptingProvider;
import io.pkibench.testing.FaultyKeys;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --verify} on {@code verify} and {@code keygen} asks a second provider, not the one
 * measured: a provider that accepts every signature, its own broken ones included, passes its own
 * check and must fail this one.
 */
class IndependentVerdictTest {
  @TempDir static Path tmp;
  static TestKeys fixture;

  @BeforeAll
  static void setUp() {
    fixture = TestKeys.in(tmp);
  }

  static Workload accepting(WorkloadFactory factory, Map<String, String> params) throws Exception {
    return factory.create(
        new WorkloadContext(
            FaultyKeys.through(fixture.keys, new AcceptingProvider()), true, () -> fixture.pki),
        Params.resolve(factory.name(), factory.params(), params));
  }

  @Test
  void verify_providerAcceptingATruncatedSignature_everyOperationCountedFailed() throws Exception {
    try (Workload w =
        accepting(
            new VerifyWorkload.Factory(), Map.of("alg", "ecdsa-p256", "input", "truncated"))) {
      MeasuredRun.of("verify through a provider that accepts anything", w)
          .assertEveryFailedWith(
              "Accepting accepts a truncated ecdsa-p256 signature that BC refuses");
    }
  }

  @Test
  void keygen_providerWhoseSignaturesOnlyItAccepts_everyOperationCountedFailed() throws Exception {
    try (Workload w = accepting(new KeygenWorkload.Factory(), Map.of("alg", "ecdsa-p256"))) {
      MeasuredRun.of("keygen through a provider that accepts anything", w)
          .assertEveryFailedWith(
              "a freshly generated ecdsa-p256 key pair's signature by Accepting does not verify"
                  + " with BC");
    }
  }
}
