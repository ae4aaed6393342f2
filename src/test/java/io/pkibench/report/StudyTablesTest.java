package io.pkibench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.measure.LatencyHistograms;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunStatus;
import io.pkibench.results.StudyRecord;
import io.pkibench.results.WorkloadResult;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

/**
 * The study table computed from a result alone: here, the client : server split of a workload
 * measured once charging the service's CPU and once the client's JVM.
 */
class StudyTablesTest {
  /**
   * A workload with no key source (keys null) on both sides is still the same workload: its split
   * is printed, on the terminal and in the HTML, instead of the table failing on the missing keys.
   */
  @Test
  void terminal_clientAndServerWithoutKeys_splitPrinted() {
    RunResult result = clientBesideServer(null);
    String table = StudyTables.terminal(result);
    // 1,000 ops/s: the client on 0.5 of a core (500 µs per operation), the server on 0.25 (250 µs)
    assertTrue(
        table.contains(
            "server at 4 threads: 500 µs of client CPU and 250 µs of server CPU per operation,"
                + " client : server = 1 : 0.50"),
        table);
    assertTrue(StudyTables.html(result).contains("client : server = 1 : 0.50"));
  }

  @Test
  void terminal_clientAndServerWithOtherKeys_noSplit() {
    RunResult result = clientBesideServer("software:accp");
    String table = StudyTables.terminal(result);
    assertTrue(!table.contains("client : server"), table);
  }

  /**
   * The ok column counts verified operations: all of them where every answer was checked, "V/S"
   * where one in N was, and the succeeded, as before, where nothing was checked (never a 0 that was
   * not counted).
   */
  @Test
  void ok_verifiedCountedOrSampledOrNotChecked() {
    assertEquals("1000", StudyTableText.ok(level(1000L)));
    assertEquals("100/1000", StudyTableText.ok(level(100L)));
    assertEquals("0/1000", StudyTableText.ok(level(0L)));
    assertEquals("1000", StudyTableText.ok(level(null)), "a result from before counts.verified");
    assertTrue(
        StudyTables.terminal(step(emptyStudy(), "sampled", null, "pid:4242", 0.25, 100L))
            .contains("100/1000"),
        "the table shows it");
  }

  private static LevelResult level(Long verified) {
    return step(emptyStudy(), "one", null, "pid:1", 0.25, verified)
        .workloads()
        .get(0)
        .levels()
        .get(0);
  }

  /** Steps "server" (the service's CPU, keys null) and "client" (the JVM's, {@code clientKeys}). */
  private static RunResult clientBesideServer(String clientKeys) {
    RunResult run = emptyStudy();
    run = step(run, "server", null, "pid:4242", 0.25);
    run = step(run, "client", clientKeys, "jvm", 0.5);
    return run.withStatus(RunStatus.COMPLETE);
  }

  private static RunResult emptyStudy() {
    return RunResult.start(ResultFixtures.environment(), null)
        .withStudy(
            new StudyRecord(
                StudyRecord.SCHEMA,
                "split",
                "a split",
                StudyRecord.Unit.OPS_PER_SECOND,
                null,
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                null));
  }

  /** One step at 4 threads and 1,000 ops/s, its measured side busy {@code cores} cores. */
  private static RunResult step(
      RunResult run, String label, String keys, String meter, double cores) {
    return step(run, label, keys, meter, cores, null);
  }

  /** As above, {@code verified} of its 1,000 operations checked (null: none). */
  private static RunResult step(
      RunResult run, String label, String keys, String meter, double cores, Long verified) {
    Histogram h = LatencyHistograms.newHistogram();
    for (int k = 0; k < 1000; k++) h.recordValue(1_000_000 + k);
    List<IterationResult> iterations =
        List.of(
            IterationResult.builder()
                .series(1)
                .index(1)
                .durationNanos(1_000_000_000L)
                .started(1000)
                .succeeded(1000)
                .failed(0)
                .cpuNanos(Math.round(cores * 1e9))
                .histogram(LatencyHistograms.toBase64(h))
                .verified(verified)
                .build());
    WorkloadResult w =
        WorkloadResult.builder("echo")
            .params(Map.of("size", "128"))
            .keys(keys)
            .cpuMeter(meter)
            .step(new WorkloadResult.Step(label, WorkloadResult.Step.MEASURE))
            .build()
            .withLevel(LevelResult.of(4, null, iterations, meter, 2));
    int index = run.workloads().size();
    return run.withWorkload(index, w)
        .withStudy(
            run.study().withStep(new StudyRecord.StepRecord(label, List.of()).measured(index)));
  }
}
