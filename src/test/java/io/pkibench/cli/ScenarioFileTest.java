package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.plan.MixSpec;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --scenario FILE}: the YAML form of run's options, its mix's members, command-line
 * flags winning, bad files named by line.
 */
@Timeout(120)
class ScenarioFileTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return InThisJvm.run(dir, out, err, args);
  }

  private void write(String name, String yaml) throws Exception {
    Files.writeString(dir.resolve(name), yaml);
  }

  @Test
  void runScenario_membersAndOptions_runAsTheFileSaysWithTheCommandLineWinning() throws Exception {
    write(
        "mix.yaml",
        """
        # two digests and an encryption, as a service might see them
        members:
          - {name: digest, label: sha256, weight: 1, params: {alg: sha256}}
          - {name: digest, label: sha512, weight: 1, params: {alg: sha512}}
          - name: aes-gcm
            weight: 2
        param: {size: 4k}
        concurrency: 2
        warmup: 0x1s
        measure: 1x500ms
        seed: 5
        quiet: true
        out: from-file.json
        """);
    assertEquals(
        0,
        run(
            "run",
            "--scenario",
            "mix.yaml",
            "-p",
            "size=2k",
            "--concurrency",
            "1",
            "-o",
            "mix.json"),
        err.toString());
    assertFalse(
        Files.exists(dir.resolve("from-file.json")),
        "-o on the command line wins over the file's out");
    RunResult result = RunResultJson.read(dir.resolve("mix.json"));
    var mix = result.workloads().get(0).mix();
    assertEquals(5, mix.seed(), "seed from the file");
    assertEquals(
        java.util.List.of("sha256", "sha512", "aes-gcm"),
        mix.members().stream().map(MixSpec.Member::label).toList());
    assertEquals("sha512", mix.members().get(1).params().get("alg"), "a member's own params");
    for (MixSpec.Member m : mix.members())
      assertEquals("2k", m.params().get("size"), "-p size=2k merged over the file's size: " + m);
    var level = result.workloads().get(0).levels().get(0);
    assertEquals(1, level.concurrency(), "--concurrency 1 over the file's 2");
    assertEquals(
        1, level.iterations().size(), "warm-up 0 and one measured iteration, from the file");
    assertEquals(
        500,
        level.iterations().get(0).durationNanos() / 1_000_000,
        100,
        "of 500 ms, from the file");
    assertEquals(3, level.members().size());
  }

  @Test
  void runScenario_unknownKeys_refusedNamingEachWithItsLine() throws Exception {
    write(
        "bad.yaml",
        """
        members:
          - {name: sign, weight: 7}
          - name: verify
            wieght: 3
        concurency: 4
        rates: 400
        """);
    assertEquals(2, run("run", "--scenario", "bad.yaml"));
    String e = err.toString();
    assertTrue(
        e.contains("bad.yaml line 5: unknown key 'concurency'") && e.contains("concurrency"),
        "the key, its line and a suggestion:\n" + e);
    assertTrue(
        e.contains("bad.yaml line 4: members: unknown key 'wieght'") && e.contains("weight"),
        "a member's key too:\n" + e);
  }

  @Test
  void runScenario_badWeightsOrValues_refusedWithTheirLines() throws Exception {
    write(
        "bad.yaml",
        """
        members:
          - {name: sign, weight: 0}
          - {name: verify, weight: lots}
          - {name: noop, weight: -2}
        measure: [1, 2]
        verify: maybe
        """);
    assertEquals(2, run("run", "--scenario", "bad.yaml"));
    String e = err.toString();
    assertTrue(
        e.contains("bad.yaml line 2: members: the weight is 0; a weight must be above 0"), e);
    assertTrue(e.contains("bad.yaml line 3: members: the weight ('lots') is not a number"), e);
    assertTrue(e.contains("bad.yaml line 4: members: the weight is -2"), e);
    assertTrue(e.contains("bad.yaml line 6: verify: takes true or false, not 'maybe'"), e);
    write("bad2.yaml", "rates: 400\nrates: 800\n");
    assertEquals(2, run("run", "--scenario", "bad2.yaml"));
    assertTrue(
        err.toString().contains("bad2.yaml line 2: rates is given twice (first on line 1)"),
        err.toString());
  }

  @Test
  void runScenario_memberParameterClashesWithShared_refusedNamingBoth() throws Exception {
    write(
        "clash.yaml",
        """
        members:
          - {name: sign, weight: 7, params: {alg: rsa2048}}
          - {name: verify, weight: 3}
        param: {alg: ecdsa-p256}
        """);
    assertEquals(2, run("run", "--scenario", "clash.yaml", "-o", "clash.json"));
    assertTrue(
        err.toString()
            .contains(
                "-p alg=ecdsa-p256 clashes with mix member sign's own alg=rsa2048: give it in one place"),
        err.toString());
    assertFalse(Files.exists(dir.resolve("clash.json")));
  }

  @Test
  void runScenario_membersWithPositionalWorkloads_refused() throws Exception {
    write("mix.yaml", "members:\n  - {name: sign, weight: 1}\n");
    assertEquals(2, run("run", "noop", "--scenario", "mix.yaml"));
    assertTrue(
        err.toString()
            .contains(
                "--scenario mix.yaml (its members) and noop: give the workloads either by name or as mix members, not both"),
        err.toString());
  }
}
