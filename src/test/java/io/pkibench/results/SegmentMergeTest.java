package io.pkibench.results;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.measure.LatencyHistograms;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.Segment;
import io.pkibench.plan.WorkloadSpec;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Agents' results added up exactly, and the files that cannot be merged refused, named. */
class SegmentMergeTest {
  static final JsonNode PLAN =
      RunResultJson.mapper()
          .valueToTree(
              Plan.of(List.of(new WorkloadSpec("sign", Map.of("alg", "ecdsa-p256"), "software")))
                  .load(new LoadModel.Closed(List.of(4, 8)))
                  .warmup(Iterations.parse("1x1s"))
                  .measure(Iterations.parse("2x1s"))
                  .build());

  /**
   * Agent {@code index} of {@code count}: levels of 4 and 8 workers split, each iteration's
   * latencies its own (seeded by the agent).
   */
  static RunResult agent(int index, int count, JsonNode plan, String host) {
    return agent(index, count, plan, host, "jvm");
  }

  static RunResult agent(int index, int count, JsonNode plan, String host, String meter) {
    Segment s = new Segment(index, count);
    WorkloadResult w =
        WorkloadResult.builder("sign")
            .params(Map.of("alg", "ecdsa-p256"))
            .keys("software")
            .cpuMeter("jvm")
            .levels(List.of())
            .build();
    for (int level : new int[] {4, 8}) {
      List<IterationResult> its = new ArrayList<>();
      its.add(iteration(true, 1, index * 100 + level, 50 + index));
      for (int k = 1; k <= 2; k++)
        its.add(iteration(false, k, index * 1000 + level * 10 + k, 100 * index + k));
      w = w.withLevel(LevelResult.of(s.workers(level), null, its, meter, 2));
    }
    Environment env =
        new Environment(
            "0.1.0",
            "abc",
            "jdk",
            "linux",
            "cpu",
            2,
            1L << 30,
            List.of(),
            "pkibench run sign --segment " + s,
            Instant.parse("2026-12-01T10:00:0" + index + "Z"));
    return RunResult.start(env, plan)
        .withWorkload(0, w)
        .withStatus(RunStatus.COMPLETE)
        .withAgent(
            new AgentRecord(
                s,
                host,
                Instant.parse("2026-12-01T10:00:10Z"),
                AgentRecord.Clock.notMeasured("no target", 100),
                0,
                0L));
  }

  static IterationResult iteration(boolean warmup, int index, long succeeded, long seed) {
    Histogram h = LatencyHistograms.newHistogram();
    for (long i = 0; i < succeeded; i++)
      h.recordValue(100_000 + (i * 7919 + seed * 104_729) % 900_000);
    return IterationResult.builder()
        .series(1)
        .index(index)
        .warmup(warmup)
        .durationNanos(1_000_000_000L + seed)
        .started(succeeded + 1)
        .succeeded(succeeded)
        .failed(1)
        .cpuNanos(500_000_000L + seed)
        .errors(List.of(new ErrorCount("java.io.IOException: reset", 1)))
        .histogram(LatencyHistograms.toBase64(h))
        .build();
  }

  static List<SegmentMerge.Input> inputs(RunResult... results) {
    List<SegmentMerge.Input> list = new ArrayList<>();
    for (RunResult r : results)
      list.add(new SegmentMerge.Input(Path.of("seg" + r.agent().segment().index() + ".json"), r));
    return list;
  }

  @Test
  void merge_threeAgents_countsAndHistogramsAreTheirSums(@TempDir Path dir) throws Exception {
    List<SegmentMerge.Input> in =
        inputs(agent(1, 3, PLAN, "a"), agent(2, 3, PLAN, "b"), agent(3, 3, PLAN, "b"));
    RunResult merged =
        SegmentMerge.merge(in, false, "pkibench merge seg1.json seg2.json seg3.json -o all.json");
    RunResultJson.write(merged, dir.resolve("all.json"));
    merged =
        RunResultJson.read(dir.resolve("all.json")); // an ordinary result file, read back as any
    assertEquals(RunStatus.COMPLETE, merged.status());
    assertEquals(4, merged.environment().cores(), "hosts a and b, two cores each, b counted once");
    for (int l = 0; l < 2; l++) {
      LevelResult level = merged.workloads().get(0).levels().get(l);
      assertEquals(
          l == 0 ? 4 : 8, level.concurrency(), "the agents' workers add up to the plan's level");
      long started = 0, succeeded = 0, failed = 0;
      double cpu = 0;
      Histogram sum = LatencyHistograms.newHistogram();
      for (SegmentMerge.Input agent : in) {
        LevelResult part = agent.result().workloads().get(0).levels().get(l);
        started += part.counts().started();
        succeeded += part.counts().succeeded();
        failed += part.counts().failed();
        cpu += part.cpu().seconds();
        sum.add(part.mergedHistogram());
      }
      assertEquals(new Counts(started, succeeded, failed), level.counts());
      assertEquals(cpu, level.cpu().seconds(), 1e-9, "client CPU summed");
      assertEquals(
          sum,
          level.mergedHistogram(),
          "the merged histogram is the sum of the agents', bucket for bucket");
      assertEquals(
          LatencyNanos.of(sum), level.latencyNanos(), "percentiles read from the summed histogram");
      assertEquals(List.of(new ErrorCount("java.io.IOException: reset", failed)), level.errors());
      assertEquals(
          3,
          level.iterations().size(),
          "one warm-up and two measured iterations, each the sum of the agents'");
      IterationResult it = level.iterations().get(1);
      long expected =
          in.stream()
              .mapToLong(
                  a ->
                      a.result()
                          .workloads()
                          .get(0)
                          .levels()
                          .get(0)
                          .iterations()
                          .get(1)
                          .durationNanos())
              .max()
              .orElseThrow();
      if (l == 0)
        assertEquals(expected, it.durationNanos(), "the longest of the agents' durations");
    }
    MergeRecord m = merged.merge();
    assertEquals(3, m.agents());
    assertEquals(
        List.of("1/3", "2/3", "3/3"),
        m.sections().stream().map(s -> s.segment().toString()).toList());
    assertEquals(
        List.of(1, 3),
        m.sections().get(1).levels().stream().map(MergeRecord.AgentLevel::concurrency).toList(),
        "each agent's own section kept: agent 2 of 3 ran 1 of 4 workers and 3 of 8");
    assertTrue(m.absent().isEmpty());
    assertTrue(
        merged
            .workloads()
            .get(0)
            .notes()
            .get(0)
            .startsWith("merged from 3 agents, each a segment of the plan"),
        merged.workloads().get(0).notes().toString());
  }

  /**
   * Three agents reading one server's CPU (pid:77), two on host b: b's server counted once, the
   * largest reading; a's added.
   */
  @Test
  void merge_serviceCpuReadByAgentsOnOneHost_countedOncePerHost() throws Exception {
    List<SegmentMerge.Input> in =
        inputs(
            agent(1, 3, PLAN, "a", "pid:77"),
            agent(2, 3, PLAN, "b", "pid:77"),
            agent(3, 3, PLAN, "b", "pid:77"));
    IterationResult merged =
        SegmentMerge.merge(in, false, "m").workloads().get(0).levels().get(0).iterations().get(1);
    List<Long> cpu =
        in.stream()
            .map(i -> i.result().workloads().get(0).levels().get(0).iterations().get(1).cpuNanos())
            .toList();
    assertEquals(cpu.get(0) + Math.max(cpu.get(1), cpu.get(2)), merged.cpuNanos());
  }

  /**
   * Open loop: two agents at 250/s each (one 500/s timetable interleaved): the merged level offers
   * 500/s, late and missed starts and the uncorrected histograms added.
   */
  @Test
  void merge_openLoopAgents_rateAndUncorrectedLatencyAdded() throws Exception {
    JsonNode plan =
        RunResultJson.mapper()
            .valueToTree(
                Plan.of(List.of(new WorkloadSpec("sign", Map.of(), "software")))
                    .load(new LoadModel.Open(List.of(500.0), 8))
                    .warmup(Iterations.parse("0x1s"))
                    .measure(Iterations.parse("1x1s"))
                    .build());
    List<RunResult> agents = new ArrayList<>();
    for (int i = 1; i <= 2; i++) {
      IterationResult it = iteration(false, 1, 240 + i, i);
      Histogram uncorrected = LatencyHistograms.newHistogram();
      for (int k = 0; k < 240 + i; k++) uncorrected.recordValue(50_000 + k * 10L * i);
      it =
          IterationResult.builder()
              .series(it.series())
              .index(it.index())
              .warmup(it.warmup())
              .durationNanos(it.durationNanos())
              .started(it.started())
              .succeeded(it.succeeded())
              .failed(it.failed())
              .cpuNanos(it.cpuNanos())
              .errors(it.errors())
              .histogram(it.histogram())
              .lateStarts((long) i)
              .missedStarts(10L - i)
              .uncorrectedHistogram(LatencyHistograms.toBase64(uncorrected))
              .build();
      WorkloadResult w =
          WorkloadResult.builder("sign")
              .params(Map.of())
              .keys("software")
              .cpuMeter("jvm")
              .levels(List.of())
              .build()
              .withLevel(LevelResult.of(4, 250.0, List.of(it), "jvm", 2));
      agents.add(
          RunResult.start(ResultFixtures.environment(), plan)
              .withWorkload(0, w)
              .withStatus(RunStatus.COMPLETE)
              .withAgent(
                  new AgentRecord(
                      new Segment(i, 2),
                      "h",
                      null,
                      AgentRecord.Clock.notMeasured("no target", 100),
                      null,
                      null)));
    }
    LevelResult merged =
        SegmentMerge.merge(inputs(agents.get(0), agents.get(1)), false, "m")
            .workloads()
            .get(0)
            .levels()
            .get(0);
    assertEquals(500.0, merged.openLoop().targetRate(), 1e-9);
    assertEquals(8, merged.concurrency());
    assertEquals(1 + 2, merged.openLoop().lateStarts());
    assertEquals(9 + 8, merged.openLoop().missedStarts());
    Histogram uncorrected =
        LatencyHistograms.fromBase64(
            agents
                .get(0)
                .workloads()
                .get(0)
                .levels()
                .get(0)
                .iterations()
                .get(0)
                .uncorrectedHistogram());
    uncorrected.add(
        LatencyHistograms.fromBase64(
            agents
                .get(1)
                .workloads()
                .get(0)
                .levels()
                .get(0)
                .iterations()
                .get(0)
                .uncorrectedHistogram()));
    assertEquals(LatencyNanos.of(uncorrected), merged.openLoop().uncorrectedLatencyNanos());
  }

  /**
   * A warm-up until steady stops when each agent sees fit: iterations that do not match are
   * refused, not paired at random.
   */
  @Test
  void merge_differentIterations_refusedNamingBothFiles() {
    RunResult longer = agent(2, 2, PLAN, "b");
    WorkloadResult w = longer.workloads().get(0);
    List<IterationResult> its = new ArrayList<>(w.levels().get(0).iterations());
    its.add(1, iteration(true, 2, 10, 9));
    List<LevelResult> levels = new ArrayList<>(w.levels());
    levels.set(0, LevelResult.of(w.levels().get(0).concurrency(), null, its, "jvm", 2));
    longer =
        longer.withWorkload(
            0,
            WorkloadResult.builder(w.name())
                .params(w.params())
                .keys(w.keys())
                .cpuMeter(w.cpuMeter())
                .levels(levels)
                .build());
    RunResult other = longer;
    var e =
        assertThrows(
            SegmentMerge.Refused.class,
            () -> SegmentMerge.merge(inputs(agent(1, 2, PLAN, "a"), other), false, "m"));
    assertTrue(
        e.getMessage()
            .contains(
                "seg1.json and seg2.json ran different iterations at level 1 of sign (3 and 4)"),
        e.getMessage());
  }

  @Test
  void merge_differentPlans_refusedNamingBothFilesAndTheField() {
    JsonNode other =
        RunResultJson.mapper()
            .valueToTree(
                Plan.of(List.of(new WorkloadSpec("sign", Map.of("alg", "rsa2048"), "software")))
                    .load(new LoadModel.Closed(List.of(4, 8)))
                    .warmup(Iterations.parse("1x1s"))
                    .measure(Iterations.parse("2x1s"))
                    .build());
    var e =
        assertThrows(
            SegmentMerge.Refused.class,
            () ->
                SegmentMerge.merge(
                    inputs(agent(1, 2, PLAN, "a"), agent(2, 2, other, "b")), false, "m"));
    assertTrue(
        e.getMessage()
            .contains("seg1.json and seg2.json ran different plans (plan.workloads[0].params.alg"),
        e.getMessage());
  }

  @Test
  void merge_overlappingSegments_refusedNamingBothFiles() {
    List<SegmentMerge.Input> in =
        new ArrayList<>(inputs(agent(1, 2, PLAN, "a"), agent(2, 2, PLAN, "b")));
    in.add(new SegmentMerge.Input(Path.of("again.json"), agent(2, 2, PLAN, "c")));
    var e = assertThrows(SegmentMerge.Refused.class, () -> SegmentMerge.merge(in, false, "m"));
    assertEquals(
        "seg2.json and again.json are both segment 2/2 (overlapping): give each segment's file once",
        e.getMessage());
    var counts =
        assertThrows(
            SegmentMerge.Refused.class,
            () ->
                SegmentMerge.merge(
                    inputs(agent(1, 2, PLAN, "a"), agent(2, 3, PLAN, "b")), false, "m"));
    assertTrue(
        counts.getMessage().contains("seg2.json is segment 2/3 but seg1.json is 1/2"),
        counts.getMessage());
  }

  @Test
  void merge_missingSegment_refusedNamingIt() {
    var e =
        assertThrows(
            SegmentMerge.Refused.class,
            () ->
                SegmentMerge.merge(
                    inputs(agent(1, 3, PLAN, "a"), agent(3, 3, PLAN, "b")), false, "m"));
    assertTrue(
        e.getMessage()
            .startsWith(
                "missing: segment 2/3 (no file given); give every segment's file, or --allow-missing"),
        e.getMessage());
  }

  /**
   * An agent killed after its first level: its second level is missing, named with its file and
   * status.
   */
  @Test
  void merge_agentKilledMidRun_refusedOrWithAllowMissingSaysWhichShareIsAbsent() throws Exception {
    RunResult killed = agent(2, 2, PLAN, "b");
    WorkloadResult w = killed.workloads().get(0);
    killed =
        killed
            .withWorkload(
                0,
                WorkloadResult.builder(w.name())
                    .params(w.params())
                    .keys(w.keys())
                    .cpuMeter(w.cpuMeter())
                    .levels(w.levels().subList(0, 1))
                    .build())
            .withStatus(RunStatus.RUNNING);
    List<SegmentMerge.Input> in = inputs(agent(1, 2, PLAN, "a"), killed);
    var e = assertThrows(SegmentMerge.Refused.class, () -> SegmentMerge.merge(in, false, "m"));
    assertTrue(
        e.getMessage()
            .contains(
                "missing: segment 2/2 (seg2.json) has no level 2 of sign (its status: running)"),
        e.getMessage());
    RunResult partial = SegmentMerge.merge(in, true, "m");
    assertEquals(
        List.of("segment 2/2 (seg2.json) has no level 2 of sign (its status: running)"),
        partial.merge().absent());
    assertTrue(
        partial
            .workloads()
            .get(0)
            .notes()
            .get(0)
            .startsWith("merged from 2 of 2 agents; absent: segment 2/2"),
        partial.workloads().get(0).notes().toString());
    assertEquals(RunStatus.RUNNING, partial.status(), "the worst of the agents'");
    assertEquals(
        4,
        partial.workloads().get(0).levels().get(1).concurrency(),
        "level 2 holds agent 1's share only: 4 of 8 workers");
  }

  @Test
  void merge_notAnAgentsResult_refusedNamingTheFlag() {
    RunResult plain = agent(1, 1, PLAN, "a").withAgent(null);
    var e =
        assertThrows(
            SegmentMerge.Refused.class,
            () ->
                SegmentMerge.merge(
                    List.of(new SegmentMerge.Input(Path.of("plain.json"), plain)), false, "m"));
    assertTrue(
        e.getMessage()
            .startsWith(
                "plain.json is not an agent's result (it has no segment): run each agent with --segment I/N"),
        e.getMessage());
    assertNull(plain.agent());
  }
}
