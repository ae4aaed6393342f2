package io.pkibench.results;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.analysis.Analysis;
import io.pkibench.measure.LatencyHistograms;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.ThreadKind;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.testing.GoldenFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seals the pkibench.run/3 format (and reads /1 and /2): the file we write byte for byte, and what
 * we read back from it.
 */
class RunResultJsonTest {
  /**
   * Written by pkibench.run/1, whose files read on: a plain run's /2 file is the same but for the
   * schema.
   */
  static final Path GOLDEN = Path.of("src/test/resources/golden/run-v1.json");

  /** The fixture with a staged level (its timeline): seals what /2 added. */
  static final Path GOLDEN_V2 = Path.of("src/test/resources/golden/run-v2.json");

  /** The staged fixture with a workload whose answers were checked: seals what /3 added. */
  static final Path GOLDEN_V3 = Path.of("src/test/resources/golden/run-v3.json");

  /**
   * Written by the first version of the format, before open-loop levels and the analysis block:
   * must still read back exactly.
   */
  static final Path OLDER = Path.of("src/test/resources/golden/run-v1.0.json");

  static final Path GOLDEN_CSV = Path.of("src/test/resources/golden/levels-v2.csv");

  /**
   * A result built from fixed numbers only, so that its JSON never changes unless the format does.
   */
  static RunResult fixture() {
    Environment env =
        new Environment(
            "0.1.0",
            "abc1234",
            "Eclipse Adoptium 25.0.3+9-LTS",
            "Linux 6.1.0 amd64",
            "AMD EPYC",
            2,
            25_000_000_000L,
            List.of("SUN 25", "AmazonCorrettoCryptoProvider 2.5"),
            "pkibench run sign --concurrency 1,2",
            Instant.parse("2026-11-22T03:00:00Z"));
    Plan plan =
        new Plan(
            List.of(new WorkloadSpec("sign", Map.of("alg", "rsa2048"), "software")),
            new LoadModel.Closed(List.of(1, 2)),
            Iterations.parse("1x1s"),
            Iterations.parse("2x1s"),
            1,
            ThreadKind.PLATFORM,
            false,
            "jvm");
    WorkloadResult w =
        WorkloadResult.builder("sign")
            .params(Map.of("alg", "rsa2048", "size", "1024"))
            .keys("software:accp")
            .cpuMeter("jvm")
            .levels(List.of())
            .build();
    for (int c = 1; c <= 2; c++) {
      List<IterationResult> its =
          List.of(
              iteration(1, true, c, 900, 0),
              iteration(1, false, c, 1000 * c, 0),
              iteration(2, false, c, 1100 * c, c == 2 ? 3 : 0));
      w = w.withLevel(LevelResult.of(c, null, its, "jvm", 2));
    }
    WorkloadResult open =
        WorkloadResult.builder("verify")
            .params(Map.of("alg", "ecdsa-p256", "size", "1024"))
            .keys("software:jdk")
            .cpuMeter("jvm")
            .levels(List.of())
            .build();
    for (int rate : new int[] {500, 1000}) {
      Histogram uncorrected = LatencyHistograms.newHistogram();
      for (long i = 1; i <= rate; i++) uncorrected.recordValue(50_000 + i * 13 % 500);
      IterationResult it = iteration(1, false, 1, rate, 0);
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
              .lateStarts((long) rate / 100)
              .missedStarts((long) rate / 250)
              .uncorrectedHistogram(LatencyHistograms.toBase64(uncorrected))
              .build();
      open = open.withLevel(LevelResult.of(8, (double) rate, List.of(it), "jvm", 2));
    }
    RunResult r =
        RunResult.start(env, RunResultJson.mapper().valueToTree(plan))
            .withWorkload(0, w)
            .withWorkload(1, open)
            .withStatus(RunStatus.COMPLETE);
    return r.withAnalysis(
        RunResultJson.mapper()
            .valueToTree(Analysis.of(r, new Analysis.Options(5000.0, 0.7, null))));
  }

  private static IterationResult iteration(
      int index, boolean warmup, int c, long succeeded, long failed) {
    Histogram h = LatencyHistograms.newHistogram();
    for (long i = 1; i <= succeeded; i++) h.recordValue(300_000 + (i * 7919 % 1000) * 1000L * c);
    List<ErrorCount> errors =
        failed == 0
            ? List.of()
            : List.of(new ErrorCount("java.io.IOException: connection reset", failed));
    return IterationResult.builder()
        .series(1)
        .index(index)
        .warmup(warmup)
        .durationNanos(1_000_000_000L)
        .started(succeeded + failed)
        .succeeded(succeeded)
        .failed(failed)
        .cpuNanos(600_000_000L * c)
        .errors(errors)
        .histogram(LatencyHistograms.toBase64(h))
        .build();
  }

  /**
   * {@code --out /dev/null} as root once turned the machine's /dev/null into a regular file: the
   * save renamed its temporary file over it. A FIFO stands in for the device here; it must stay one
   * and its reader get the whole result.
   */
  @Test
  void write_overAFifo_writesThroughAndLeavesItAFifo(@TempDir Path dir) throws Exception {
    Path fifo = dir.resolve("out.fifo");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
    assertEquals(0, mkfifo.waitFor(), "mkfifo");
    var read =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () -> {
              try {
                return Files.readString(fifo);
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    RunResultJson.write(fixture(), fifo);
    assertEquals(
        RunResultJson.toJson(fixture()),
        read.get(30, java.util.concurrent.TimeUnit.SECONDS),
        "the reader got the whole result");
    assertTrue(
        Files.exists(fifo) && !Files.isRegularFile(fifo),
        "still a FIFO, not a file renamed over it");
    try (var left = Files.list(dir)) {
      assertEquals(List.of(fifo), left.toList(), "no temporary file left beside it");
    }
  }

  /**
   * {@link #fixture()} with a third workload run through stages: its one level carries the
   * timeline.
   */
  static RunResult stagedFixture() {
    RunResult r = fixture();
    IterationResult it = iteration(1, false, 1, 600, 2);
    LevelResult level = LevelResult.of(8, 150.0, List.of(it), "jvm", 2);
    List<Timeline.Second> seconds =
        List.of(
            new Timeline.Second(
                0, 1000, 0, 100, 100, 0, 100.0, 100.0, null, 8, 310_000, 1_290_000, 1_300_000,
                0.05),
            new Timeline.Second(
                1000, 2000, 1, 201, 200, 1, 200.0, 200.0, null, 8, 320_000, 1_250_000, 1_400_000,
                0.1),
            new Timeline.Second(
                2000, 3000, 1, 200, 199, 1, 199.0, 200.0, null, 8, 330_000, 1_280_000, 1_310_000,
                0.1),
            new Timeline.Second(
                3000, 4002, 2, 101, 101, 0, 100.8, 99.8, null, 8, 300_000, 1_200_000, 1_250_000,
                0.05));
    List<Timeline.StageSummary> perStage = new java.util.ArrayList<>();
    long[][] counts = {{100, 100, 0}, {401, 399, 2}, {101, 101, 0}};
    long[][] times = {{0, 1000}, {1000, 3000}, {3000, 4000}};
    double[][] targets = {{0, 200}, {200, 200}, {200, 0}};
    for (int k = 0; k < 3; k++) {
      Histogram h = LatencyHistograms.newHistogram();
      for (long i = 1; i <= counts[k][1]; i++) h.recordValue(300_000 + (i * 7919 % 1000) * 1000L);
      double seconds0 = (k == 2 ? 1002 : times[k][1] - times[k][0]) / 1000.0;
      perStage.add(
          new Timeline.StageSummary(
              k,
              (long) targets[k][1] + "/s",
              targets[k][0],
              targets[k][1],
              times[k][0],
              times[k][1],
              new Counts(counts[k][0], counts[k][1], counts[k][2]),
              counts[k][1] / seconds0,
              (targets[k][0] + targets[k][1]) / 2,
              null,
              LatencyNanos.of(h),
              0.05 * (times[k][1] - times[k][0]) / 1000,
              counts[k][1] / (0.05 * (times[k][1] - times[k][0]) / 1000),
              LatencyHistograms.toBase64(h)));
    }
    level = level.withTimeline(new Timeline("1s:200/s,2s:200/s,1s:0/s", perStage, seconds));
    WorkloadResult staged =
        WorkloadResult.builder("noop")
            .params(Map.of())
            .keys("none")
            .cpuMeter("jvm")
            .levels(List.of())
            .build()
            .withLevel(level);
    return r.withWorkload(2, staged);
  }

  /**
   * The staged fixture and a workload of three levels: every answer checked, one in ten checked
   * (warm-up's checks not counted), one failed check among them.
   */
  static RunResult verifiedFixture() {
    WorkloadResult checked =
        WorkloadResult.builder("http:cades")
            .params(Map.of("document", "pdf"))
            .keys("software")
            .cpuMeter("services")
            .levels(List.of())
            .build();
    long[][] perLevel = {{40, 0, 40}, {50, 1, 5}};
    for (int c = 1; c <= 2; c++) {
      long succeeded = perLevel[c - 1][0], failed = perLevel[c - 1][1];
      long verified = perLevel[c - 1][2];
      List<IterationResult> its =
          List.of(
              withVerified(iteration(1, true, c, 20, 0), 20L),
              withVerified(iteration(1, false, c, succeeded, failed), verified));
      checked = checked.withLevel(LevelResult.of(c, null, its, "services", 2));
    }
    return stagedFixture().withWorkload(3, checked);
  }

  private static IterationResult withVerified(IterationResult it, Long verified) {
    return IterationResult.builder()
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
        .lateStarts(it.lateStarts())
        .missedStarts(it.missedStarts())
        .uncorrectedHistogram(it.uncorrectedHistogram())
        .members(it.members())
        .verified(verified)
        .build();
  }

  @Test
  void toJson_verifiedFixture_matchesGoldenV3() throws IOException {
    GoldenFiles.assertMatches(
        GOLDEN_V3,
        RunResultJson.toJson(verifiedFixture()),
        "the result format changed: bump the schema version or restore it");
  }

  @Test
  void read_goldenV3_givesVerifiedCountsOfMeasuredIterationsOnly() throws IOException {
    RunResult r = RunResultJson.read(GOLDEN_V3);
    assertEquals("pkibench.run/3", r.schema());
    assertEquals(RunResultJson.toJson(verifiedFixture()), RunResultJson.toJson(r));
    List<LevelResult> levels = r.workloads().get(3).levels();
    assertEquals(new Counts(40, 40, 0, 40L), levels.get(0).counts());
    assertEquals(new Counts(51, 50, 1, 5L), levels.get(1).counts());
    assertEquals(
        null,
        r.workloads().get(0).levels().get(0).counts().verified(),
        "a workload that checked nothing has no verified count, not 0");
  }

  @Test
  void read_goldenV2_countsNothingAsVerified() throws IOException {
    RunResult r = RunResultJson.read(GOLDEN_V2);
    for (WorkloadResult w : r.workloads())
      for (LevelResult level : w.levels()) {
        assertEquals(null, level.counts().verified(), w.name() + ": /2 checked nothing");
        for (IterationResult it : level.iterations()) assertEquals(null, it.verified());
      }
    assertTrue(
        !RunResultJson.toJson(r).contains("\"verified\""),
        "a result without checks writes no verified count");
  }

  /**
   * New fields are optional: a run without stages writes what /1 wrote, the schema string aside.
   */
  @Test
  void toJson_fixtureWithoutStages_theV1FileButForTheSchema() throws IOException {
    String v1 = Files.readString(GOLDEN);
    assertTrue(v1.contains("\"schema\" : \"pkibench.run/1\""), "the v1 golden file is a /1 file");
    assertEquals(
        v1.replace("\"schema\" : \"pkibench.run/1\"", "\"schema\" : \"" + RunResult.SCHEMA + "\""),
        RunResultJson.toJson(fixture()));
  }

  @Test
  void read_goldenV2_givesExactValues() throws IOException {
    RunResult r = RunResultJson.read(GOLDEN_V2);
    assertEquals("pkibench.run/2", r.schema());
    assertEquals(
        RunResultJson.toJson(stagedFixture()),
        RunResultJson.toJson(r).replace("pkibench.run/2", RunResult.SCHEMA),
        "what we read is what we wrote");
    Timeline t = r.workloads().get(2).levels().get(0).timeline();
    assertEquals("1s:200/s,2s:200/s,1s:0/s", t.stages());
    assertEquals(4, t.seconds().size());
    assertEquals(new Counts(401, 399, 2), t.perStage().get(1).counts());
    assertEquals("stage 2 (→ 200/s)", t.perStage().get(1).label());
    assertEquals(399, t.perStage().get(1).mergedHistogram().getTotalCount());
    assertEquals(
        t.perStage().get(1).latencyNanos().p99(),
        t.perStage().get(1).mergedHistogram().getValueAtPercentile(99));
    assertEquals(99.8, t.seconds().get(3).targetPerSecond());
    assertEquals(null, t.seconds().get(3).targetWorkers());
    assertEquals(
        null, r.workloads().get(0).levels().get(0).timeline(), "a level held steady has none");
  }

  @Test
  void toCsv_fixture_matchesGoldenFile() throws IOException {
    GoldenFiles.assertMatches(
        GOLDEN_CSV,
        RunResultCsv.toCsv(fixture()),
        "the CSV format changed: bump its version or restore it");
  }

  @Test
  void read_goldenV1_givesExactValues() throws IOException {
    RunResult r = RunResultJson.read(GOLDEN);
    assertEquals("pkibench.run/1", r.schema());
    // JsonNode trees compare int and long nodes as different, so what we read is compared as
    // written text.
    assertEquals(
        RunResultJson.toJson(fixture()),
        RunResultJson.toJson(r).replace("pkibench.run/1", RunResult.SCHEMA),
        "what we read is what we wrote");
    LevelResult open = r.workloads().get(1).levels().get(1);
    assertEquals(1000.0, open.openLoop().targetRate());
    assertEquals(1000.0, open.openLoop().achievedRate(), 1e-9);
    assertEquals(10, open.openLoop().lateStarts());
    assertEquals(4, open.openLoop().missedStarts());
    assertEquals(1000, open.openLoop().uncorrectedLatencyNanos().count());
    assertEquals(1000.0, open.load());
    assertEquals(
        "pkibench.analysis/2",
        r.analysis().get("schema").asText(),
        "the analysis block follows the analysis writer: it is recomputed from the levels");
    assertTrue(
        r.analysis()
            .get("workloads")
            .get(0)
            .get("verdict")
            .get("text")
            .asText()
            .startsWith("throughput"));
  }

  @Test
  void read_olderV1_0WithoutAnalysisOrOpenLoop_givesExactValues() throws IOException {
    RunResult r = RunResultJson.read(OLDER);
    assertEquals("pkibench.run/1", r.schema());
    assertEquals(RunStatus.COMPLETE, r.status());
    assertEquals(Instant.parse("2026-11-22T03:00:00Z"), r.environment().startedAt());
    LevelResult two = r.workloads().get(0).levels().get(1);
    assertEquals(2, two.concurrency());
    assertEquals(new Counts(4203, 4200, 3), two.counts());
    assertEquals(2100.0, two.throughput().mean(), 1e-9);
    assertEquals(List.of(new ErrorCount("java.io.IOException: connection reset", 3)), two.errors());
    assertEquals(4200, two.latencyNanos().count());
    assertEquals(two.latencyNanos().p99(), two.mergedHistogram().getValueAtPercentile(99));
    assertEquals(3, two.iterations().size());
    assertEquals(2.4, two.cpu().seconds(), 1e-9);
    assertEquals(null, two.openLoop());
    assertEquals(null, r.analysis());
    assertEquals(null, two.iterations().get(1).uncorrectedHistogram());
  }

  @Test
  void write_thenRead_roundTrips(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("run.json");
    RunResultJson.write(fixture(), file);
    assertEquals(RunResultJson.toJson(fixture()), RunResultJson.toJson(RunResultJson.read(file)));
    try (var left = Files.list(dir)) {
      assertEquals(List.of(file), left.toList(), "no temporary file is left behind");
    }
  }

  @Test
  void read_otherSchemaOrNotJson_namesTheProblem(@TempDir Path dir) throws IOException {
    Path other = Files.writeString(dir.resolve("other.json"), "{\"schema\":\"jmh\"}");
    var e = assertThrows(IOException.class, () -> RunResultJson.read(other));
    assertTrue(
        e.getMessage().contains("pkibench.run/1, pkibench.run/2 and pkibench.run/3"),
        e.getMessage());
    Path broken = Files.writeString(dir.resolve("broken.json"), "{\"schema\":");
    e = assertThrows(IOException.class, () -> RunResultJson.read(broken));
    assertTrue(e.getMessage().contains("not valid JSON"), e.getMessage());
  }

  /**
   * A damaged file (a level's figures nulled, a schema line alone, a count that is text) is named
   * as damaged, where, never a NullPointerException.
   */
  @Test
  void read_damaged_namesWhatIsMissingOrWrong(@TempDir Path dir) throws IOException {
    String good = RunResultJson.toJson(fixture());
    var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
    var tree = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(good);
    ((com.fasterxml.jackson.databind.node.ObjectNode)
            tree.get("workloads").get(0).get("levels").get(0))
        .putNull("throughput");
    Path nulled = Files.writeString(dir.resolve("nulled.json"), tree.toString());
    var e = assertThrows(IOException.class, () -> RunResultJson.read(nulled));
    assertTrue(
        e.getMessage().contains("is damaged: workloads[0].levels[0].throughput is missing"),
        e.getMessage());

    Path schemaOnly =
        Files.writeString(dir.resolve("schema-only.json"), "{\"schema\":\"pkibench.run/1\"}");
    e = assertThrows(IOException.class, () -> RunResultJson.read(schemaOnly));
    assertTrue(
        e.getMessage().contains("environment is missing, status is missing, workloads is missing"),
        e.getMessage());

    tree = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(good);
    ((com.fasterxml.jackson.databind.node.ObjectNode)
            tree.get("workloads").get(0).get("levels").get(0).get("counts"))
        .put("started", "many");
    Path wrongType = Files.writeString(dir.resolve("wrong.json"), tree.toString());
    e = assertThrows(IOException.class, () -> RunResultJson.read(wrongType));
    assertTrue(
        e.getMessage()
            .contains(
                "is damaged at workloads[0].levels[0].counts.started: a value has the wrong type"),
        e.getMessage());

    // Found by bench/decoder-fuzz: a histogram that does not decode, and a workload whose levels
    // mix open and closed
    // loop, each broke a report later (IllegalArgumentException, NullPointerException); now the
    // file is damaged, said where.
    tree = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(good);
    ((com.fasterxml.jackson.databind.node.ObjectNode)
            tree.get("workloads").get(0).get("levels").get(0).get("iterations").get(0))
        .put("histogram", "HISTF]]]]");
    Path badHistogram = Files.writeString(dir.resolve("histogram.json"), tree.toString());
    e = assertThrows(IOException.class, () -> RunResultJson.read(badHistogram));
    assertTrue(
        e.getMessage()
            .contains(
                badHistogram
                    + " is damaged: workloads[0].levels[0].iterations[0].histogram is not a latency histogram"),
        e.getMessage());

    tree =
        (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(Files.readString(GOLDEN));
    for (var workload : tree.get("workloads")) {
      var levels = workload.get("levels");
      if (levels.size() > 1 && levels.get(0).get("openLoop").isObject())
        ((com.fasterxml.jackson.databind.node.ObjectNode) levels.get(1)).putNull("openLoop");
    }
    Path mixed = Files.writeString(dir.resolve("mixed.json"), tree.toString());
    e = assertThrows(IOException.class, () -> RunResultJson.read(mixed));
    assertTrue(e.getMessage().contains("levels mix open- and closed-loop levels"), e.getMessage());
  }

  /**
   * Two defects the reader once let through (issue 34's mutation run): a workload without a name,
   * an open-loop histogram that does not decode.
   */
  @Test
  void read_namelessWorkloadOrDamagedUncorrectedHistogram_isDamagedSaidWhere(@TempDir Path dir)
      throws IOException {
    var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
    String good = RunResultJson.toJson(fixture());
    RunResultJson.read(
        Files.writeString(dir.resolve("good.json"), good)); // the untouched file reads

    var tree = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(good);
    ((com.fasterxml.jackson.databind.node.ObjectNode) tree.get("workloads").get(1)).remove("name");
    Path nameless = Files.writeString(dir.resolve("nameless.json"), tree.toString());
    var e = assertThrows(IOException.class, () -> RunResultJson.read(nameless));
    assertTrue(
        e.getMessage().contains(nameless + " is damaged: workloads[1].name is missing"),
        e.getMessage());

    tree = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(good);
    ((com.fasterxml.jackson.databind.node.ObjectNode)
            tree.get("workloads").get(1).get("levels").get(0).get("iterations").get(0))
        .put("uncorrectedHistogram", "HISTF]]]]");
    Path badUncorrected = Files.writeString(dir.resolve("uncorrected.json"), tree.toString());
    e = assertThrows(IOException.class, () -> RunResultJson.read(badUncorrected));
    assertTrue(
        e.getMessage()
            .contains(
                badUncorrected
                    + " is damaged: workloads[1].levels[0].iterations[0].uncorrectedHistogram is not a latency histogram"),
        e.getMessage());
  }

  /**
   * The structural check's other branches (mutation survivors): workloads or levels present but not
   * lists, or absent; an open-loop level without its uncorrected latencies; an iteration without a
   * histogram; a level without iterations. Each is damaged, said where.
   */
  @Test
  void read_listsThatAreNotListsMissingLevelsOrHistograms_damagedSaidWhere(@TempDir Path dir)
      throws IOException {
    var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
    String good = RunResultJson.toJson(fixture());
    java.util.function.Function<
            java.util.function.Consumer<com.fasterxml.jackson.databind.node.ObjectNode>, String>
        damage =
            change -> {
              try {
                var tree = (com.fasterxml.jackson.databind.node.ObjectNode) mapper.readTree(good);
                change.accept(tree);
                Path file = Files.writeString(dir.resolve("damaged.json"), tree.toString());
                return assertThrows(IOException.class, () -> RunResultJson.read(file)).getMessage();
              } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            };
    assertTrue(
        damage.apply(t -> t.putObject("workloads")).contains("is damaged: workloads is missing"));
    assertTrue(
        damage
            .apply(
                t ->
                    ((com.fasterxml.jackson.databind.node.ObjectNode) t.get("workloads").get(0))
                        .put("levels", 3))
            .contains("is damaged: workloads[0].levels is missing"));
    assertTrue(
        damage
            .apply(
                t ->
                    ((com.fasterxml.jackson.databind.node.ObjectNode) t.get("workloads").get(0))
                        .remove("levels"))
            .contains("is damaged: workloads[0].levels is missing"));
    assertTrue(
        damage
            .apply(
                t ->
                    ((com.fasterxml.jackson.databind.node.ObjectNode)
                            t.get("workloads").get(1).get("levels").get(0).get("openLoop"))
                        .putNull("uncorrectedLatencyNanos"))
            .contains(
                "is damaged: workloads[1].levels[0].openLoop.uncorrectedLatencyNanos is missing"));
    assertTrue(
        damage
            .apply(
                t ->
                    ((com.fasterxml.jackson.databind.node.ObjectNode)
                            t.get("workloads").get(0).get("levels").get(0).get("iterations").get(0))
                        .putNull("histogram"))
            .contains(
                "is damaged: workloads[0].levels[0].iterations[0].histogram is not a latency histogram"));
    assertTrue(
        damage
            .apply(
                t ->
                    ((com.fasterxml.jackson.databind.node.ObjectNode)
                            t.get("workloads").get(0).get("levels").get(0))
                        .remove("iterations"))
            .contains("is damaged at workloads[0].levels[0]: a value has the wrong type"),
        "a level without its iterations");
  }

  /** A result saved into directories that do not exist yet makes them, and reads back. */
  @Test
  void write_intoDirectoriesNotYetMade_makesThemAndReadsBack(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("runs/2026/run.json");
    RunResultJson.write(fixture(), file);
    assertEquals(RunResultJson.toJson(fixture()), Files.readString(file));
  }

  /**
   * Saving over an earlier result replaces the file rather than rewriting it in place: a reader
   * that opened the old one (here a second link to it) still sees the old result whole, never a
   * mix.
   */
  @Test
  void write_overAnEarlierResult_replacesTheFileSoAnOpenReaderKeepsTheOld(@TempDir Path dir)
      throws IOException {
    Path file = dir.resolve("run.json");
    Files.writeString(file, "{\"schema\": \"the earlier result\"}");
    Path reader = Files.createLink(dir.resolve("held-by-a-reader"), file);
    RunResultJson.write(fixture(), file);
    assertEquals(RunResultJson.toJson(fixture()), Files.readString(file));
    assertEquals(
        "{\"schema\": \"the earlier result\"}",
        Files.readString(reader),
        "the old file was replaced, not overwritten");
  }

  /**
   * A save that fails where no file was before (a name too long for the temporary file beside it)
   * says nothing was saved, and leaves nothing.
   */
  @Test
  void write_failingWhereNoFileWas_saysNothingWasSaved(@TempDir Path dir) throws IOException {
    Path file =
        dir.resolve(
            "r".repeat(250)
                + ".json"); // a legal name; ".{name}{random}.tmp" beside it is past the 255-byte
    // limit
    var e = assertThrows(IOException.class, () -> RunResultJson.write(fixture(), file));
    assertTrue(
        e.getMessage().startsWith("cannot save the result to " + file + " (")
            && e.getMessage().endsWith("); nothing was saved"),
        e.getMessage());
    try (var left = Files.list(dir)) {
      assertEquals(List.of(), left.toList(), "nothing is left behind");
    }
  }

  /**
   * A save that cannot replace the file (here a directory stands in its place) says so, keeps what
   * was there, and leaves no temporary file.
   */
  @Test
  void write_overSomethingItCannotReplace_saysTheOldOneIsKept(@TempDir Path dir)
      throws IOException {
    Path file = Files.createDirectories(dir.resolve("run.json"));
    Files.writeString(file.resolve("kept"), "x");
    var e = assertThrows(IOException.class, () -> RunResultJson.write(fixture(), file));
    assertTrue(
        e.getMessage().startsWith("cannot save the result to " + file + " (")
            && e.getMessage().endsWith("); the file keeps what was saved before"),
        e.getMessage());
    try (var left = Files.list(dir)) {
      assertEquals(List.of(file), left.toList(), "no temporary file is left behind");
    }
  }

  /**
   * Past five problems the message names the first five and counts the rest, so that a wrecked file
   * gives a readable line.
   */
  @Test
  void read_sixProblems_namesFiveAndCountsTheRest(@TempDir Path dir) throws IOException {
    var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
    var tree =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            mapper.readTree(RunResultJson.toJson(fixture()));
    tree.remove("environment");
    tree.remove("status");
    var level =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            tree.get("workloads").get(0).get("levels").get(0);
    for (String field : List.of("counts", "throughput", "latencyNanos", "cpu"))
      level.putNull(field);
    Path wrecked = Files.writeString(dir.resolve("wrecked.json"), tree.toString());
    var e = assertThrows(IOException.class, () -> RunResultJson.read(wrecked));
    assertTrue(
        e.getMessage()
            .contains(
                wrecked
                    + " is damaged: environment is missing, status is missing, workloads[0].levels[0].counts is missing, "
                    + "workloads[0].levels[0].throughput is missing, workloads[0].levels[0].latencyNanos is missing and 1 more;"),
        e.getMessage());
  }

  /**
   * An empty file and a JSON object without a schema are each "not a pkibench result", never a
   * NullPointerException.
   */
  @Test
  void read_emptyFileOrNoSchema_notAResult(@TempDir Path dir) throws IOException {
    for (String content : List.of("", "{}", "[]", "{\"schema\":null}")) {
      Path file = Files.writeString(dir.resolve("nothing.json"), content);
      var e = assertThrows(IOException.class, () -> RunResultJson.read(file), "'" + content + "'");
      assertEquals(
          file
              + " is not a pkibench result (schema null); this version reads pkibench.run/1, pkibench.run/2 and pkibench.run/3",
          e.getMessage(),
          "'" + content + "'");
    }
  }

  /**
   * Exactly five problems are all named, with nothing counted after them; a wrong type inside a
   * list is named by its index.
   */
  @Test
  void read_fiveProblems_allNamedNoneCounted_wrongTypeInAListSaidByIndex(@TempDir Path dir)
      throws IOException {
    var mapper = new com.fasterxml.jackson.databind.ObjectMapper();
    var tree =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            mapper.readTree(RunResultJson.toJson(fixture()));
    tree.remove("environment");
    var level =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            tree.get("workloads").get(0).get("levels").get(0);
    for (String field : List.of("counts", "throughput", "latencyNanos", "cpu"))
      level.putNull(field);
    Path five = Files.writeString(dir.resolve("five.json"), tree.toString());
    var e = assertThrows(IOException.class, () -> RunResultJson.read(five));
    assertEquals(
        five
            + " is damaged: environment is missing, workloads[0].levels[0].counts is missing, workloads[0].levels[0].throughput is missing, "
            + "workloads[0].levels[0].latencyNanos is missing, workloads[0].levels[0].cpu is missing; rerun, or restore the file 'pkibench run --out' wrote",
        e.getMessage());

    var typed =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            mapper.readTree(RunResultJson.toJson(fixture()));
    ((com.fasterxml.jackson.databind.node.ObjectNode)
            typed.get("workloads").get(0).get("levels").get(0).get("iterations").get(0))
        .put("warmup", "maybe");
    Path wrongType = Files.writeString(dir.resolve("typed.json"), typed.toString());
    e = assertThrows(IOException.class, () -> RunResultJson.read(wrongType));
    assertTrue(
        e.getMessage()
            .startsWith(
                wrongType
                    + " is damaged at workloads[0].levels[0].iterations[0].warmup: a value has the wrong type"),
        e.getMessage());

    var nulled =
        (com.fasterxml.jackson.databind.node.ObjectNode)
            mapper.readTree(RunResultJson.toJson(fixture()));
    ((com.fasterxml.jackson.databind.node.ObjectNode)
            nulled.get("workloads").get(0).get("levels").get(0).get("iterations").get(0))
        .putNull("histogram");
    Path noHistogram = Files.writeString(dir.resolve("no-histogram.json"), nulled.toString());
    e = assertThrows(IOException.class, () -> RunResultJson.read(noHistogram));
    assertTrue(
        e.getMessage()
            .startsWith(
                noHistogram
                    + " is damaged: workloads[0].levels[0].iterations[0].histogram is not a latency histogram"),
        e.getMessage());
  }
}
