package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.plan.MixSpec;
import io.pkibench.results.Counts;
import io.pkibench.results.LevelResult;
import io.pkibench.results.MemberLevel;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.Timeline;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A mix on stages, the first example: each arrival of the ramp draws its member, one result
 * holds both, the report shows both.
 */
@Timeout(120)
class StagedMixCliTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return InThisJvm.run(dir, out, err, args);
  }

  /** Every member's counts add up to the level's, and every stage's to the level's. */
  private static void assertAddsUp(LevelResult level) {
    long started = 0, succeeded = 0, failed = 0;
    for (MemberLevel m : level.members()) {
      started += m.counts().started();
      succeeded += m.counts().succeeded();
      failed += m.counts().failed();
    }
    Counts total = level.counts();
    assertEquals(
        total,
        new Counts(started, succeeded, failed),
        "members add up to the mix: " + level.members());
    Timeline t = level.timeline();
    assertNotNull(t, "a staged mix keeps its time series");
    long stageStarted = 0, stageSucceeded = 0, stageFailed = 0;
    for (Timeline.StageSummary s : t.perStage()) {
      stageStarted += s.counts().started();
      stageSucceeded += s.counts().succeeded();
      stageFailed += s.counts().failed();
    }
    assertEquals(
        total,
        new Counts(stageStarted, stageSucceeded, stageFailed),
        "stages add up to the run: " + t.perStage());
    for (int m = 0; m < level.members().size(); m++) {
      MemberLevel member = level.members().get(m);
      long mStarted = 0, mSucceeded = 0, mFailed = 0, secondsSucceeded = 0, latencies = 0;
      for (Timeline.StageSummary s : t.perStage()) {
        Timeline.MemberStage ms = s.members().get(m);
        assertEquals(member.label(), ms.label());
        mStarted += ms.counts().started();
        mSucceeded += ms.counts().succeeded();
        mFailed += ms.counts().failed();
        // An operation ending as an interval is taken may have its count in one stage and its
        // latency in the next: exact over the level.
        latencies += ms.mergedHistogram().getTotalCount();
      }
      for (Timeline.Second sec : t.seconds()) secondsSucceeded += sec.members().get(m).succeeded();
      assertEquals(
          member.counts(),
          new Counts(mStarted, mSucceeded, mFailed),
          member.label() + "'s stages add up to its level: " + t.perStage());
      assertEquals(
          member.counts().succeeded(),
          secondsSucceeded,
          member.label() + "'s seconds add up to its level");
      assertEquals(
          member.counts().succeeded(),
          latencies,
          member.label() + "'s stage histograms hold every success of its level");
    }
  }

  @Test
  void runMix_onRateStages_membersAndStagesAddUpAndTheReportShowsBoth() throws Exception {
    assertEquals(
        0,
        run(
            "run",
            "--mix",
            "sign=7,verify=3",
            "-p",
            "alg=ecdsa-p256",
            "--stages",
            "1s:150/s,1s:150/s,1s:0/s",
            "--concurrency",
            "4",
            "-o",
            "mix.json"),
        err.toString());
    RunResult r = RunResultJson.read(dir.resolve("mix.json"));
    LevelResult level = r.workloads().get(0).levels().get(0);
    assertEquals(
        List.of("sign", "verify"), level.members().stream().map(MemberLevel::label).toList());
    assertEquals(3, level.timeline().perStage().size());
    assertAddsUp(level);
    assertTrue(level.counts().started() > 100, "about 300 arrivals offered: " + level.counts());
    for (MemberLevel m : level.members())
      assertTrue(m.counts().succeeded() > 0, "each member drawn: " + m);
    assertTrue(
        out.toString().contains("each stage is the mix's total, its members under it"),
        "the terminal says the stages are the mix's total: " + out);
    assertTrue(
        out.toString().matches("(?s).*\\n\\s+sign\\s+\\d+.*\\n\\s+verify\\s+\\d+.*"),
        "each member on its own row under a stage: " + out);

    out.getBuffer().setLength(0);
    assertEquals(0, run("report", "mix.json", "--html", "mix.html"), err.toString());
    String html = Files.readString(dir.resolve("mix.html"));
    assertTrue(html.contains("<h2>Mix by member</h2>"), "the members' section");
    assertTrue(
        html.contains("<table id=\"stages-1\">")
            && html.contains("the mix&#39;s total, its members under it"),
        "the per-stage table, said to be the mix's total");
    assertTrue(
        html.contains("mix: ops/s per member per second")
            && html.contains("mix: p99 per member per second"),
        "the members' time series");
    assertTrue(
        html.contains("mix: latency per second (1s:150/s,1s:150/s,1s:0/s)")
            && html.contains("mix: ops/s per second"),
        "the time series with its stages");
  }

  @Test
  void runScenario_withStagesAndMembers_runsTheMixOnTheStages() throws Exception {
    Files.writeString(
        dir.resolve("staged-mix.yaml"),
        """
        members:
          - {name: digest, label: sha256, weight: 3, params: {alg: sha256}}
          - {name: digest, label: sha512, weight: 1, params: {alg: sha512}}
        stages: 1s:2,1s:2,500ms:1
        seed: 9
        quiet: true
        """);
    assertEquals(
        0, run("run", "--scenario", "staged-mix.yaml", "-o", "scenario.json"), err.toString());
    RunResult r = RunResultJson.read(dir.resolve("scenario.json"));
    var w = r.workloads().get(0);
    assertEquals(9, w.mix().seed(), "seed from the file");
    assertEquals(
        List.of("sha256", "sha512"),
        w.mix().members().stream().map(MixSpec.Member::label).toList());
    LevelResult level = w.levels().get(0);
    assertEquals("1s:2,1s:2,500ms:1", level.timeline().stages(), "stages from the file");
    assertEquals(3, level.timeline().perStage().size());
    assertEquals(2, level.members().size());
    assertAddsUp(level);
    MemberLevel sha256 = level.members().get(0);
    assertEquals(
        0.75, sha256.achievedShare(), 0.1, "weights 3:1 drawn by operation: " + level.members());
  }
}
