package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.results.Counts;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.Timeline;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --stages} from the command line: what it refuses, what it records, how report and
 * compare show it.
 */
@Timeout(120)
class StagesCliTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    return InThisJvm.run(dir, out, err, args);
  }

  @Test
  void run_badStagesAndClashingFlags_exit2WithEveryProblemBeforeAnythingRuns() {
    assertEquals(
        2,
        run(
            "run",
            "noop",
            "--stages",
            "400/s,10s:-5/s,10s:400/h",
            "--rates",
            "100",
            "--measure",
            "2x1s",
            "--fork",
            "-o",
            "x.json"));
    String e = err.toString();
    for (String said :
        new String[] {
          "'400/s' has no duration",
          "below 0/s",
          "'400/h' is not a target",
          "--rates and --stages",
          "--measure and --stages",
          "--fork and --stages"
        }) {
      assertTrue(e.contains(said), "says " + said + ": " + e);
    }
    assertFalse(Files.exists(dir.resolve("x.json")), "nothing ran");
    assertEquals(2, run("run", "noop", "--stages", "1s:4,1s:8/s"));
    assertTrue(err.toString().contains("mixes rates"), err.toString());
    assertEquals(2, run("run", "noop", "--stages", "1s:4", "--concurrency", "8"));
    assertTrue(err.toString().contains("the stages give the worker counts"), err.toString());
  }

  /**
   * A staged run's progress says the rate the result will hold (issue 50: the progress said 20,842
   * ops/s where the result said 2,079): its rate changes stage by stage, so the last second's rate
   * is not the run's. Here a slow ramp then a spike in the last second: the last status line's
   * ops/s is within 25% of the result's throughput.
   */
  @Test
  void run_stagedProgress_lastFigureIsTheResults() throws Exception {
    assertEquals(
        0,
        run("run", "noop", "--stages", "3s:100/s,1s:3000/s", "--concurrency", "4", "-o", "p.json"),
        err.toString());
    double result =
        RunResultJson.read(dir.resolve("p.json"))
            .workloads()
            .get(0)
            .levels()
            .get(0)
            .throughput()
            .mean();
    Matcher m = Pattern.compile("\\| ([0-9.,]+) ops/s").matcher(err.toString());
    String last = null;
    while (m.find()) last = m.group(1);
    assertTrue(last != null, "a progress line: " + err);
    double shown = Double.parseDouble(last.replace(",", ""));
    assertEquals(result, shown, result * 0.25, "the last progress figure vs the result's: " + err);
  }

  /**
   * The ramp, short: up to 200/s over 1 s, held 2 s, down over 1 s. Every second's starts
   * follow the target, each stage's counts are what its seconds counted, and the stages add up to
   * the level.
   */
  @Test
  void run_rateRamp_timeSeriesFollowsTheTargetAndStagesAddUpToTheRun() throws Exception {
    assertEquals(
        0,
        run(
            "run",
            "noop",
            "--stages",
            "1s:200/s,2s:200/s,1s:0/s",
            "--concurrency",
            "4",
            "-o",
            "staged.json"),
        err.toString());
    RunResult r = RunResultJson.read(dir.resolve("staged.json"));
    assertEquals(RunResult.SCHEMA, r.schema());
    LevelResult level = r.workloads().get(0).levels().get(0);
    assertEquals(1, r.workloads().get(0).levels().size());
    assertEquals(
        150.0, level.openLoop().targetRate(), 1e-9, "the level's target: the stages' mean rate");
    Timeline t = level.timeline();
    assertEquals("1s:200/s,2s:200/s,1s:0/s", t.stages());
    long started = 0, succeeded = 0, failed = 0;
    for (Timeline.StageSummary s : t.perStage()) {
      started += s.counts().started();
      succeeded += s.counts().succeeded();
      failed += s.counts().failed();
      long ofSeconds =
          t.seconds().stream()
              .filter(x -> x.stage() == s.stage())
              .mapToLong(Timeline.Second::started)
              .sum();
      assertEquals(
          s.counts().started(), ofSeconds, "stage " + s.stage() + " is what its seconds counted");
      // an operation ending as an interval is taken may have its count in one interval and its
      // latency in the next
      assertEquals(
          s.counts().succeeded(),
          s.latencyNanos().count(),
          4 + 0.02 * s.counts().succeeded(),
          s.toString());
    }
    assertEquals(
        level.counts(), new Counts(started, succeeded, failed), "the stages add up to the run");
    // Counts, not rates over a window: a loaded machine starts an arrival late, never early, so
    // what started by each second's end is at most what the timetable offered by then (each
    // second's target is the timetable's mean over it), and the whole is made or counted missed.
    long startedBy = 0;
    double offeredBy = 0;
    for (Timeline.Second s : t.seconds()) {
      startedBy += s.started();
      offeredBy += s.targetPerSecond() * (s.toMillis() - s.fromMillis()) / 1000.0;
      assertTrue(
          startedBy <= offeredBy + 3,
          startedBy + " started by " + s.toMillis() + " ms, " + offeredBy + " offered: " + t);
    }
    assertEquals(
        601,
        level.counts().started() + level.openLoop().missedStarts(),
        2,
        "every slot of the 1s:200/s,2s:200/s,1s:0/s timetable made or counted missed");
    assertTrue(
        level.openLoop().missedStarts() <= 30,
        "the workers keep up with the timetable: " + level.openLoop());
    assertEquals(100, t.perStage().get(0).targetPerSecond(), 1e-9);
    assertEquals(200, t.perStage().get(1).targetPerSecond(), 1e-9);
    assertEquals(100, t.perStage().get(2).targetPerSecond(), 1e-9);
  }

  /**
   * Worker stages from the command line, then the report from the file: the terminal's per-stage
   * table, and the HTML's time series (latency on a log axis, ops/s, workers running beside those
   * asked) each with the stages marked.
   */
  @Test
  void report_workerStages_timeSeriesChartsWithStageMarkersAndPerStageTable() throws Exception {
    assertEquals(
        0, run("run", "noop", "--stages", "1s:2,1s:2,1s:1", "-o", "workers.json"), err.toString());
    assertTrue(out.toString().contains("per stage (1s:2,1s:2,1s:1"), out.toString());
    RunResult r = RunResultJson.read(dir.resolve("workers.json"));
    Timeline t = r.workloads().get(0).levels().get(0).timeline();
    assertEquals(2.0, t.seconds().get(1).targetWorkers(), "held at 2: " + t.seconds());
    assertEquals(2, t.seconds().get(1).activeWorkers(), "both running: " + t.seconds());
    out.getBuffer().setLength(0);
    assertEquals(0, run("report", "workers.json", "--html", "workers.html"), err.toString());
    String table = out.toString();
    assertTrue(
        table.contains("→ 2") && table.contains("→ 1") && table.contains("ops/cpu-s"), table);
    String html = Files.readString(dir.resolve("workers.html"));
    for (String id : new String[] {"timeline-latency-1", "timeline-rate-1", "timeline-workers-1"}) {
      int at = html.indexOf("id=\"" + id + "\"");
      assertTrue(at >= 0, id + " drawn");
      String svg = html.substring(at, html.indexOf("</svg>", at));
      for (String marker :
          new String[] {
            "data-marker=\"stage 1 → 2\"",
            "data-marker=\"stage 2 → 2\"",
            "data-marker=\"stage 3 → 1\"",
            "data-marker=\"end\""
          }) {
        assertTrue(svg.contains(marker), id + " marks " + marker);
      }
      assertTrue(
          svg.contains(
              "data-series=\""
                  + (id.contains("latency")
                      ? "p99"
                      : id.contains("workers") ? "running" : "achieved")
                  + "\""),
          svg);
    }
    assertTrue(html.contains("latency (log)"), "latency on a log axis");
    assertTrue(html.contains("id=\"stages-1\""), "the per-stage table");
  }

  /**
   * compare matches stages by index and target: the same stages row by row, a stage whose target
   * moved in one run only.
   */
  @Test
  void compare_stagedRuns_stageByStageMatchedByIndexAndTarget() throws Exception {
    assertEquals(
        0,
        run("run", "noop", "--stages", "1s:100/s,1s:100/s", "--concurrency", "2", "-o", "a.json"),
        err.toString());
    assertEquals(
        0,
        run("run", "noop", "--stages", "1s:100/s,1s:150/s", "--concurrency", "2", "-o", "b.json"),
        err.toString());
    out.getBuffer().setLength(0);
    int code = run("compare", "a.json", "a.json");
    String same = out.toString();
    assertTrue(
        same.contains("noop @none · stage 1 (→ 100/s)")
            && same.contains("noop @none · stage 2 (→ 100/s)"),
        code + same + err);
    assertTrue(same.contains("on the seconds of that stage"), same);
    assertFalse(same.contains("not compared"), same);
    out.getBuffer().setLength(0);
    run("compare", "a.json", "b.json");
    String moved = out.toString();
    assertTrue(moved.contains("noop @none · stage 1 (→ 100/s)"), moved);
    assertTrue(
        moved.contains(
            "not compared: noop @none · stage 2 (→ 100/s): only in the base run (the new run's stages: 1s:100/s,1s:150/s)"),
        moved);
    assertTrue(
        moved.contains("not compared: noop @none · stage 2 (→ 150/s): only in the new run"), moved);
  }
}
