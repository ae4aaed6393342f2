package io.pkibench.workload.rsfn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.plan.WorkloadSpec;
import io.pkibench.testing.FaultyKeys;
import io.pkibench.testing.MeasuredRun;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * rsfn-pack, rsfn-unpack and rsfn-ceiling in-process with the test PKI's keys, each checking its
 * own output.
 */
class RsfnWorkloadsTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture = TestKeys.in(dir);
  }

  @Test
  void run_eachWorkloadEveryTreatment_everyOperationSucceeds() throws Exception {
    for (var factory : List.of(new RsfnWorkloads.Pack(), new RsfnWorkloads.Unpack())) {
      for (Map<String, String> p :
          List.<Map<String, String>>of(
              Map.of(),
              Map.of("gzip", "true"),
              Map.of("encrypt", "false"),
              Map.of("gzip", "true", "encrypt", "false", "size", "64k"))) {
        try (Workload w = fixture.workload(factory, p)) {
          MeasuredRun.of(factory.name() + " " + p, w, Duration.ofMillis(150))
              .assertEverySucceeded();
        }
      }
    }
    try (Workload w = fixture.workload(new RsfnWorkloads.Ceiling(), Map.of())) {
      MeasuredRun.of("rsfn-ceiling", w, Duration.ofMillis(150)).assertEverySucceeded();
    }
  }

  @Test
  void run_senderSignaturesFlippedByTheProvider_everyOperationRefusedAndCounted() throws Exception {
    // unencrypted, so that the flipped signature is the only fault: C15 is what refuses it
    for (var factory : List.of(new RsfnWorkloads.Pack(), new RsfnWorkloads.Unpack())) {
      try (Workload w =
          factory.create(
              new WorkloadContext(
                  FaultyKeys.flippingEveryOutput(fixture.keys), true, () -> fixture.pki),
              Params.resolve(
                  factory.name(),
                  factory.params(),
                  Map.of("encrypt", "false", "pool", "2").entrySet().stream()
                      .filter(
                          e -> factory.params().stream().anyMatch(p -> p.name().equals(e.getKey())))
                      .collect(
                          java.util.stream.Collectors.toMap(
                              Map.Entry::getKey, Map.Entry::getValue))))) {
        MeasuredRun.of(factory.name() + " with flipped signatures", w, Duration.ofMillis(150))
            .assertEveryFailedWith("C15 does not verify");
      }
    }
  }

  @Test
  void unpack_aPoolPackedForAnotherKey_failsEveryOperationWithItsCode() throws Exception {
    // packed to signer-rsa2048-3 but unpacked as signer-rsa2048-2's: C10 names another CA
    // (intermediate-a, not -b)
    var w = new RsfnWorkloads.Unpack();
    var setupFor3 = fixture.workload(w, Map.of("to", "signer-rsa2048-3", "pool", "2"));
    setupFor3.newOperation(0).execute(); // consistent on its own
    byte[] envelope =
        RsfnWorkloads.Setup.of(
                new WorkloadContext(fixture.keys, true, () -> fixture.pki),
                Params.resolve("rsfn-unpack", w.params(), Map.of("to", "signer-rsa2048-3")))
            .pack();
    var wrong =
        RsfnWorkloads.Setup.of(
            new WorkloadContext(fixture.keys, true, () -> fixture.pki),
            Params.resolve("rsfn-unpack", w.params(), Map.of()));
    var e = assertThrows(IllegalStateException.class, () -> wrong.unpack(envelope, null));
    assertTrue(e.getMessage().contains("C03 0x07"), e.getMessage());
  }

  @Test
  void badParameters_foundBeforeAnythingRuns() {
    var catalog = WorkloadCatalog.builtIn();
    List<String> problems =
        catalog.problems(
            new WorkloadSpec(
                "rsfn-unpack", Map.of("mode", "remote", "size", "0", "pool", "x"), "software"));
    assertEquals(3, problems.size(), problems.toString());
    assertTrue(
        problems.get(0).contains("-p size=0")
            && problems.get(1).contains("-p mode=remote")
            && problems.get(2).contains("-p pool=x"),
        problems.toString());
    assertTrue(
        catalog
            .problems(
                new WorkloadSpec("rsfn-pack", Map.of("mode", "remote"), "remote:127.0.0.1:9443"))
            .isEmpty());
  }
}
