package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.LevelResult;
import io.pkibench.results.MemberLevel;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --mix}: a real mix of in-process workloads, and every bad input refused before
 * anything runs.
 */
@Timeout(120)
class MixCommandTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return InThisJvm.run(dir, out, err, args);
  }

  @Test
  void runMix_signAndVerify_oneResultWithEachMemberAndTheTotal() throws Exception {
    assertEquals(
        0,
        run(
            "run",
            "--mix",
            "sign=7,verify=3",
            "-p",
            "alg=ecdsa-p256",
            "--rates",
            "300",
            "--concurrency",
            "4",
            "--warmup",
            "0x1s",
            "--measure",
            "2x1s",
            "--seed",
            "7",
            "--pki",
            "pki",
            "-o",
            "mix.json",
            "--quiet"),
        err.toString());
    RunResult result = RunResultJson.read(dir.resolve("mix.json"));
    assertEquals(1, result.workloads().size(), "one workload: the mix");
    var mix = result.workloads().get(0);
    assertEquals("mix", mix.name());
    assertEquals(7, mix.mix().seed());
    assertEquals(
        "ecdsa-p256",
        mix.mix().members().get(1).params().get("alg"),
        "the shared -p reached verify");
    assertEquals(
        "valid", mix.mix().members().get(1).params().get("input"), "with its defaults recorded");
    assertTrue(
        mix.notes().stream().anyMatch(n -> n.contains("cannot be split")),
        "CPU per member said not measurable: " + mix.notes());
    LevelResult level = mix.levels().get(0);
    MemberLevel sign = level.members().get(0), verify = level.members().get(1);
    assertEquals(level.counts().started(), sign.counts().started() + verify.counts().started());
    assertEquals(0, level.counts().failed(), level.errors().toString());
    assertTrue(level.counts().started() > 300, "most of 600 arrivals started: " + level.counts());
    assertTrue(
        Math.abs(sign.achievedShare() - 0.7) < 0.08,
        "sign's share near its 70%: " + sign.achievedShare());
    assertTrue(
        sign.latencyNanos().count() == sign.counts().succeeded()
            && verify.latencyNanos().count() == verify.counts().succeeded());
    String table = out.toString();
    assertTrue(
        table.contains("sign") && table.contains("verify") && table.contains("70.0%"),
        "the table shows the members and asked shares:\n" + table);
  }

  private void refused(String why, String... args) {
    err.getBuffer().setLength(0);
    assertEquals(2, run(args), why);
    assertFalse(Files.exists(dir.resolve("bad.json")), "nothing run");
  }

  @Test
  void runMix_badWeights_refusedNamingEachMember() {
    refused("zero", "run", "--mix", "sign=0,verify=3", "-o", "bad.json");
    assertTrue(
        err.toString().contains("--mix: the weight of sign is 0; a weight must be above 0"),
        err.toString());
    refused("negative", "run", "--mix", "sign=7,verify=-3", "-o", "bad.json");
    assertTrue(err.toString().contains("the weight of verify is -3"), err.toString());
    refused("not numbers", "run", "--mix", "sign=lots,verify=NaN,noop", "-o", "bad.json");
    String e = err.toString();
    assertTrue(
        e.contains("the weight of sign ('lots') is not a number")
            && e.contains("the weight of verify ('NaN') is not a number")
            && e.contains("'noop' is not NAME=WEIGHT"),
        "every bad entry at once:\n" + e);
  }

  @Test
  void runMix_unknownMemberOrUnusedParameterOrTwice_refused() {
    refused("unknown", "run", "--mix", "sgn=7,verify=3", "-o", "bad.json");
    assertTrue(
        err.toString().contains("--mix: unknown member 'sgn'") && err.toString().contains("sign"),
        "with a suggestion: " + err);
    refused(
        "a -p no member takes",
        "run",
        "--mix",
        "sign=7,verify=3",
        "-p",
        "curve=p256",
        "-o",
        "bad.json");
    assertTrue(
        err.toString().contains("-p curve: no member of the mix (sign, verify) takes it"),
        err.toString());
    refused(
        "a member's parameter refused",
        "run",
        "--mix",
        "sign=7,verify=3",
        "-p",
        "input=garbage",
        "-o",
        "bad.json");
    assertTrue(err.toString().contains("mix member verify: -p input=garbage"), err.toString());
    refused("twice", "run", "--mix", "sign=7,sign=3", "-o", "bad.json");
    assertTrue(err.toString().contains("sign is in the mix twice"), err.toString());
  }

  @Test
  void runMix_withPositionalWorkloads_refused() {
    refused("both", "run", "sign", "--mix", "sign=7,verify=3", "-o", "bad.json");
    assertTrue(
        err.toString()
            .contains(
                "--mix and sign: give the workloads either by name or as mix members, not both"),
        err.toString());
    refused("neither", "run", "-o", "bad.json");
    assertTrue(err.toString().contains("no workload given"), err.toString());
  }
}
