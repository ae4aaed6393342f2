package io.pkibench.results;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MixResultTest {

  @Test
  void levelOf_mixIterations_eachMemberOverTheMeasuredOnes() {
    LevelResult level = MixFixtures.mixRun().workloads().get(0).levels().get(0);
    assertEquals(2, level.members().size());
    MemberLevel sign = level.members().get(0), verify = level.members().get(1);
    assertEquals("sign", sign.label());
    assertEquals(new Counts(560, 560, 0), sign.counts(), "the warm-up's 100 are not counted");
    assertEquals(new Counts(240, 220, 20), verify.counts());
    assertEquals(560.0 / 800, sign.achievedShare(), 1e-12);
    assertEquals(240.0 / 800, verify.achievedShare(), 1e-12);
    assertEquals(280, sign.throughput().mean(), 1e-9);
    assertEquals(110, verify.throughput().mean(), 1e-9);
    assertEquals(
        3_000_000, verify.latencyNanos().p50(), 3_000_000 / 500.0, "verify's own histogram");
    assertEquals(1_000_000, sign.latencyNanos().max(), 1_000_000 / 500.0);
    assertEquals(20, verify.errors().get(0).count());
    assertTrue(sign.errors().isEmpty());
    assertEquals(
        level.counts().started(),
        sign.counts().started() + verify.counts().started(),
        "the members split the total");
  }

  @Test
  void write_thenRead_mixRoundTrips(@TempDir Path dir) throws IOException {
    RunResult mix = MixFixtures.mixRun();
    Path file = dir.resolve("mix.json");
    RunResultJson.write(mix, file);
    RunResult back = RunResultJson.read(file);
    assertEquals(mix.workloads().get(0).mix(), back.workloads().get(0).mix());
    assertEquals(
        mix.workloads().get(0).levels().get(0).members(),
        back.workloads().get(0).levels().get(0).members());
    assertEquals(
        mix.workloads().get(0).levels().get(0).iterations(),
        back.workloads().get(0).levels().get(0).iterations());
  }

  @Test
  void toJson_plainRun_hasNoMixFields() {
    String plain =
        RunResultJson.toJson(
            ResultFixtures.closedRun(
                "sign", new int[] {1}, new double[][] {{100}}, new long[] {1_000_000}));
    assertFalse(
        plain.contains("\"members\"") || plain.contains("\"mix\""),
        "fields of a mix are absent from other runs");
    String mix = RunResultJson.toJson(MixFixtures.mixRun());
    assertTrue(
        mix.contains("\"members\"") && mix.contains("\"mix\"") && mix.contains("\"achievedShare\""),
        "and present in a mix's");
  }
}
