package io.pkibench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import io.pkibench.results.WycheproofCheck;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The shoot-out's recommendation: only a key source put to Wycheproof's vectors and not marked,
 * whatever its speed.
 */
class KeySourceShootoutTest {
  /** One sign workload (rsa2048) measured through each of {@code keys}, the first the fastest. */
  static RunResult shootOut(List<String> keys, List<WycheproofCheck> checks) {
    RunResult run =
        ResultFixtures.closedRun(
            "sign", new int[] {1}, new double[][] {{1000, 1000, 1000}}, new long[] {1_000_000});
    WorkloadResult template = run.workloads().get(0);
    for (int i = 0; i < keys.size(); i++) {
      RunResult rate =
          ResultFixtures.closedRun(
              "sign",
              new int[] {1},
              new double[][] {{3000 - 500 * i, 3000 - 500 * i, 3000 - 500 * i}},
              new long[] {1_000_000});
      run =
          run.withWorkload(
              i,
              WorkloadResult.builder(template.name())
                  .params(template.params())
                  .keys(keys.get(i))
                  .cpuMeter(template.cpuMeter())
                  .levels(rate.workloads().get(0).levels())
                  .wycheproof(checks.get(i))
                  .build());
    }
    return run;
  }

  @Test
  void recommended_unmarkedTokenBeatsSoftware_markedTokenAndUncheckedKeyServerNever() {
    WycheproofCheck clean = new WycheproofCheck("SunPKCS11-hsm", List.of("rsa2048"), List.of());
    WycheproofCheck marked =
        new WycheproofCheck(
            "SunPKCS11-hsm",
            List.of("rsa2048"),
            List.of("rsa2048: rejects 1 valid vector (tcId 7)"));

    RunResult checkedToken =
        shootOut(List.of("pkcs11:hsm.cfg", "software:bc"), Arrays.asList(clean, null));
    var rows = KeySourceShootout.rows(checkedToken);
    assertEquals(
        "pkcs11:hsm.cfg",
        KeySourceShootout.recommended(rows).get(rows.get(0).workload()).keys(),
        "a token the run checked clean may be recommended");

    RunResult markedToken =
        shootOut(
            List.of("pkcs11:hsm.cfg", "remote:127.0.0.1:9443", "software:bc"),
            Arrays.asList(marked, null, null));
    rows = KeySourceShootout.rows(markedToken);
    assertEquals(
        "software:bc",
        KeySourceShootout.recommended(rows).get(rows.get(0).workload()).keys(),
        "neither the marked token nor the unchecked key server");
    String text = KeySourceShootout.terminal(markedToken);
    assertTrue(text.contains("pkcs11:hsm.cfg !") && text.contains("remote:127.0.0.1:9443 ?"), text);
    assertTrue(
        text.contains(
            "! pkcs11:hsm.cfg ("
                + rows.get(0).workload()
                + "): Wycheproof rsa2048: rejects 1 valid vector (tcId 7) - not recommended"),
        text);
    assertTrue(
        text.contains(
            "? remote:127.0.0.1:9443 ("
                + rows.get(0).workload()
                + "): not put to Wycheproof's vectors - not recommended"),
        text);

    RunResult uncheckedToken =
        shootOut(List.of("pkcs11:hsm.cfg", "remote:127.0.0.1:9443"), Arrays.asList(null, null));
    text = KeySourceShootout.terminal(uncheckedToken);
    assertTrue(
        text.contains("(a run of 'verify' through the token checks it)")
            && text.contains("none (every key source compared is marked or unchecked)"),
        text);
  }
}
