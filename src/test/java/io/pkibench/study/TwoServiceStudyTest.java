package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.analysis.Analysis;
import io.pkibench.engine.ProgressListener;
import io.pkibench.measure.CpuAffinity;
import io.pkibench.measure.CpuSet;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.Plan;
import io.pkibench.plan.PlanException;
import io.pkibench.plan.ThreadKind;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.report.HtmlReport;
import io.pkibench.report.StudyTables;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.StudyRecord;
import io.pkibench.results.WorkloadResult;
import io.pkibench.session.ForkedSeries;
import io.pkibench.session.ResultFile;
import io.pkibench.testing.TestKeys;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.nist.NISTObjectIdentifiers;
import org.bouncycastle.tsp.TimeStampRequestGenerator;
import org.bouncycastle.tsp.TimeStampResponse;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every part of the study SPI through a small study: two services (two TSA JVMs), CPU summed over
 * their pids, both restarted before each level of the first step, a probe that chooses the second
 * step's level, and post-run checks that ask each service for a real RFC 3161 token.
 */
@org.junit.jupiter.api.Timeout(
    value = 10,
    unit = TimeUnit.MINUTES) // a study talks to its service JVMs: a hang fails, said as one
class TwoServiceStudyTest {
  @TempDir static Path dir;
  static TestKeys fixture;

  @BeforeAll
  static void pki() {
    fixture =
        TestKeys.in(
            dir); // made before the services start, so that two JVMs never race to create it
  }

  /**
   * The test study; {@code failingCheck} adds a check that fails, {@code badWorkload} a step the
   * catalog refuses.
   */
  record TwoTsaStudy(boolean failingCheck, boolean badWorkload) implements Study {
    @Override
    public StudyInfo info() {
      return new StudyInfo(
          "two-tsa",
          "two time-stamping services, restarted per level",
          StudyRecord.Unit.OPS_PER_MINUTE,
          new StudyRecord.Published(
              "a made-up original",
              "a made-up machine",
              List.of(new StudyRecord.Figure("chosen", 600, "4 threads"))),
          StudyInfo.DEFAULT_DURATION);
    }

    @Override
    public List<String> problems(StudyOptions options) {
      return options.quick() ? List.of() : List.of("--quick: this test study only runs quick");
    }

    @Override
    public List<ServiceSpec> services(StudyOptions options) {
      return List.of(
          new ServiceSpec("tsa-a", List.of("tsa", "--pki", options.pkiDir().toString()), "http"),
          new ServiceSpec("tsa-b", List.of("tsa", "--pki", options.pkiDir().toString()), "http"));
    }

    @Override
    public List<Step> steps(StudyOptions options, RunningServices services) {
      Plan restarted = plan(badWorkload ? "nop" : "noop", List.of(1, 2));
      Step first =
          Step.of("restarted per level", restarted).beforeEachLevel(StepHook.restartServices());
      Step second =
          Step.of("chosen", plan("noop", List.of(1)))
              .probedBy(
                  plan("noop", List.of(1, 4)),
                  probed ->
                      new Step.LevelChooser.Choice(
                          probed.get(probed.size() - 1).concurrency(), "the highest probed level"));
      return List.of(first, second);
    }

    @Override
    public List<PostCheck> checks(StudyOptions options) {
      List<PostCheck> checks =
          new ArrayList<>(
              List.of(
                  new PostCheck() {
                    @Override
                    public String name() {
                      return "each service grants a time-stamp";
                    }

                    @Override
                    public Outcome check(RunResult result, RunningServices services)
                        throws Exception {
                      for (String name : services.names()) {
                        int status = timestampStatus(services.url(name) + "/tsa");
                        if (status != 0) return Outcome.fail(name + " answered status " + status);
                      }
                      return Outcome.pass("both granted a token after the run");
                    }
                  }));
      if (failingCheck)
        checks.add(
            new PostCheck() {
              @Override
              public String name() {
                return "a check that fails";
              }

              @Override
              public Outcome check(RunResult result, RunningServices services) {
                return Outcome.fail("1 message lost");
              }
            });
      return checks;
    }

    private static Plan plan(String workload, List<Integer> levels) {
      return new Plan(
          List.of(new WorkloadSpec(workload, Map.of(), "software")),
          new LoadModel.Closed(levels),
          Iterations.parse("0x1s"),
          Iterations.parse("2x300ms"),
          1,
          ThreadKind.PLATFORM,
          false,
          "services");
    }
  }

  /** No services, two one-level steps; a hook before the second presses Ctrl-C. */
  record InterruptedStudy(StudyRunner[] runner) implements Study {
    @Override
    public StudyInfo info() {
      return new StudyInfo(
          "interrupted",
          "Ctrl-C between two steps",
          StudyRecord.Unit.OPS_PER_SECOND,
          null,
          StudyInfo.DEFAULT_DURATION);
    }

    @Override
    public List<String> problems(StudyOptions options) {
      return List.of();
    }

    @Override
    public List<ServiceSpec> services(StudyOptions options) {
      return List.of();
    }

    @Override
    public List<Step> steps(StudyOptions options, RunningServices services) {
      Plan one =
          new Plan(
              List.of(new WorkloadSpec("noop", Map.of(), "software")),
              new LoadModel.Closed(List.of(1)),
              Iterations.parse("0x1s"),
              Iterations.parse("1x200ms"),
              1,
              ThreadKind.PLATFORM,
              false,
              "services");
      StepHook ctrlC =
          new StepHook() {
            @Override
            public String describe() {
              return "press Ctrl-C";
            }

            @Override
            public void run(RunningServices s) {
              runner[0].interrupt();
            }
          };
      return List.of(Step.of("first", one), Step.of("second", one).before(ctrlC));
    }
  }

  static int timestampStatus(String url) throws Exception {
    TimeStampRequestGenerator g = new TimeStampRequestGenerator();
    g.setCertReq(true);
    var request =
        g.generate(
            NISTObjectIdentifiers.id_sha256,
            MessageDigest.getInstance("SHA-256").digest(new byte[] {1}),
            BigInteger.TWO);
    try (HttpClient http = HttpClient.newHttpClient()) {
      HttpResponse<byte[]> r =
          http.send(
              HttpRequest.newBuilder(URI.create(url))
                  .header("Content-Type", "application/timestamp-query")
                  .POST(HttpRequest.BodyPublishers.ofByteArray(request.getEncoded()))
                  .build(),
              HttpResponse.BodyHandlers.ofByteArray());
      TimeStampResponse response = new TimeStampResponse(r.body());
      response.validate(request);
      return response.getStatus();
    }
  }

  static StudyRunner runner(Path out, List<String> log) {
    return new StudyRunner(
        WorkloadCatalog.builtIn(),
        new StudyRunner.Options(
            out,
            InstantSource.system(),
            ProgressListener.NONE,
            log::add,
            Map.of("PATH", System.getenv("PATH")),
            ForkedSeries.thisJvm(),
            spec -> fixture.keys,
            () -> fixture.pki,
            Duration.ofSeconds(30)));
  }

  static StudyOptions quick() {
    return new StudyOptions(true, Duration.ofSeconds(5), "software", dir.resolve("pki"), null);
  }

  /**
   * One run of the two-service study (six service JVM starts: half a minute of the suite) serves
   * the two tests that read it: every part of the study, and its second check failing.
   */
  private static RunResult shared;

  private static final List<String> sharedLog = Collections.synchronizedList(new ArrayList<>());

  private static final Path SHARED_OUT = Path.of("two.json");

  private static synchronized RunResult twoTsaStudyWithAFailingCheck() throws Exception {
    if (shared == null)
      shared =
          runner(dir.resolve(SHARED_OUT), sharedLog)
              .run(
                  new TwoTsaStudy(true, false),
                  quick(),
                  fixture.environment("pkibench study two-tsa"));
    return shared;
  }

  @Test
  void run_everyPartOfTheSpi_oneResultWithStepsProbesServicesAndChecks() throws Exception {
    Path out = dir.resolve(SHARED_OUT);
    List<String> log = sharedLog;
    RunResult result = twoTsaStudyWithAFailingCheck();

    assertEquals(RunStatus.COMPLETE, result.status(), String.join("\n", log));
    assertTrue(
        RunResultJson.toJson(result).equals(RunResultJson.toJson(RunResultJson.read(out))),
        "the file on disk is the result returned");
    List<WorkloadResult> w = result.workloads();
    assertEquals(
        List.of("restarted per level/measure", "chosen/probe", "chosen/measure"),
        w.stream().map(e -> e.step().label() + "/" + e.step().role()).toList());
    assertEquals(2, w.get(0).levels().size());
    assertTrue(w.get(1).probe(), "the probe is kept, flagged");
    assertEquals(List.of(1, 4), w.get(1).levels().stream().map(l -> l.concurrency()).toList());
    assertEquals(
        4, w.get(2).levels().get(0).concurrency(), "the measured level is the one the probe chose");
    assertTrue(
        w.get(0).cpuMeter().matches("pid:\\d+\\+\\d+"),
        "CPU summed over both services' pids: " + w.get(0).cpuMeter());

    StudyRecord study = result.study();
    assertEquals(StudyRecord.SCHEMA, study.schema());
    for (StudyRecord.ServiceRecord s : study.services()) {
      assertEquals(
          3,
          s.pids().size(),
          s.name() + ": started once, then restarted before each of the two levels: " + s.pids());
      assertEquals(3, s.pids().stream().distinct().count(), "each restart is a new process");
      assertTrue(
          s.command().containsAll(List.of("--port", Integer.toString(s.port()))),
          "kept its port across restarts");
    }
    assertNotEquals(study.services().get(0).port(), study.services().get(1).port());
    StudyRecord.StepRecord chosen = study.steps().get(1);
    assertEquals(4, chosen.chosenLevel());
    assertEquals("the highest probed level", chosen.chosenBecause());
    assertEquals(List.of("before each level: restart every service"), study.steps().get(0).hooks());
    assertEquals(2, study.checks().size(), "the real check and the one that fails");
    assertTrue(study.checks().get(0).passed(), study.checks().get(0).detail());
    assertTrue(result.analysis() != null, "the analysis block is in the one file");

    String hlog = Files.readString(ResultFile.hlogFileFor(out));
    assertTrue(
        hlog.contains("Tag=restarted_per_level.measure/noop/c2/"),
        "the interval log's tags name the step");
    assertTrue(hlog.contains("Tag=chosen.probe/noop/c4/"));

    String table = StudyTables.terminal(result);
    assertTrue(
        table.contains("chosen")
            && table.contains("ops/min")
            && table.contains("passed each service grants a time-stamp"),
        table);
    assertTrue(
        table.contains("a made-up machine"), "the original's hardware beside ours:\n" + table);
    String html = HtmlReport.render(result, Analysis.of(result, Analysis.Options.DEFAULT));
    assertTrue(
        html.contains("id=\"study-table\"")
            && html.contains("id=\"study-throughput\"")
            && html.contains("id=\"checks\""));
    assertTrue(html.contains("chosen (probe sweep, noop)"), "probe curves are named by their step");
  }

  /**
   * Ctrl-C between steps: the finished step is kept, the next is recorded as not measured, and
   * nothing throws.
   */
  @Test
  void run_interruptedBetweenSteps_keepsWhatWasMeasuredAndSaysWhyTheRestWasNot() throws Exception {
    StudyRunner[] runner = new StudyRunner[1];
    Study study = new InterruptedStudy(runner);
    runner[0] = runner(dir.resolve("interrupted.json"), new ArrayList<>());
    RunResult result = runner[0].run(study, quick(), fixture.environment("x"));
    assertEquals(RunStatus.INTERRUPTED, result.status());
    assertEquals(List.of("first"), result.workloads().stream().map(w -> w.step().label()).toList());
    assertEquals("the study was interrupted", result.study().steps().get(1).notMeasuredBecause());
    assertTrue(
        StudyTables.terminal(result).contains("second: not measured: the study was interrupted"),
        StudyTables.terminal(result));
  }

  @Test
  void run_failingCheck_isRecordedAndFailsTheStudy() throws Exception {
    RunResult result = twoTsaStudyWithAFailingCheck();
    assertEquals(RunStatus.COMPLETE, result.status());
    assertFalse(result.study().checksPassed());
    assertEquals("1 message lost", result.study().checks().get(1).detail());
    assertTrue(StudyTables.terminal(result).contains("FAILED a check that fails: 1 message lost"));
  }

  @Test
  void run_badStepOrOption_failsWithEveryProblemBeforeAnyServiceStarts() throws Exception {
    Path out = dir.resolve("bad.json");
    List<String> log = new ArrayList<>();
    var e =
        assertThrows(
            PlanException.class,
            () ->
                runner(out, log)
                    .run(new TwoTsaStudy(false, true), quick(), fixture.environment("x")));
    assertTrue(
        e.getMessage()
            .contains("step 'restarted per level': unknown workload 'nop'; did you mean 'noop'?"),
        e.getMessage());
    assertFalse(Files.exists(out), "nothing written");
    assertTrue(log.stream().noneMatch(l -> l.startsWith("service ")), "no service started: " + log);

    var notQuick =
        new StudyOptions(false, Duration.ofSeconds(5), "software", dir.resolve("pki"), null);
    e =
        assertThrows(
            PlanException.class,
            () ->
                runner(out, log)
                    .run(new TwoTsaStudy(false, false), notQuick, fixture.environment("x")));
    assertEquals(List.of("--quick: this test study only runs quick"), e.problems());
  }

  /** A hook that reads, while a step runs, which cores the services and this JVM may use. */
  record PinnedStudy(Map<String, CpuSet> seen) implements Study {
    @Override
    public StudyInfo info() {
      return new StudyInfo(
          "pinned",
          "a service on its own core",
          StudyRecord.Unit.OPS_PER_SECOND,
          null,
          StudyInfo.DEFAULT_DURATION);
    }

    @Override
    public List<String> problems(StudyOptions options) {
      return List.of();
    }

    @Override
    public List<ServiceSpec> services(StudyOptions options) {
      return List.of(
          new ServiceSpec("tsa", List.of("tsa", "--pki", options.pkiDir().toString()), "http"));
    }

    @Override
    public List<Step> steps(StudyOptions options, RunningServices services) {
      StepHook look =
          new StepHook() {
            @Override
            public String describe() {
              return "read the CPU affinities";
            }

            @Override
            public void run(RunningServices s) throws Exception {
              List<Long> pids = s.records().get(0).pids();
              seen.put("service", CpuAffinity.of(pids.get(pids.size() - 1)));
              seen.put("client", CpuAffinity.ofThisProcess());
            }
          };
      Plan busy =
          new Plan(
              List.of(new WorkloadSpec("noop", Map.of(), "software")),
              new LoadModel.Closed(List.of(1)),
              Iterations.parse("0x1s"),
              Iterations.parse("2x500ms"),
              1,
              ThreadKind.PLATFORM,
              false,
              "client");
      return List.of(Step.of("busy client", busy).before(look));
    }
  }

  /**
   * --service-cpus: the service starts on its own core, this JVM (the client) runs on the other
   * while the study runs and gets its cores back after, and the client's utilisation is measured
   * against its one core, not the machine's two.
   */
  @Test
  void run_withSplitCores_servicesAndClientEachOnTheirOwnAndUtilisationPerOwnCores()
      throws Exception {
    CpuSet before = CpuAffinity.ofThisProcess();
    assertTrue(before.size() >= 2, "this test needs two CPUs to split; the machine has " + before);
    CpuSplit split = CpuSplit.parse(Integer.toString(before.cpus().get(0)), before);
    Map<String, CpuSet> seen = new ConcurrentHashMap<>();
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    StudyOptions options =
        new StudyOptions(true, Duration.ofSeconds(5), "software", dir.resolve("pki"), null, split);

    RunResult result =
        runner(dir.resolve("pinned.json"), log)
            .run(new PinnedStudy(seen), options, fixture.environment("pkibench study pinned"));

    assertEquals(RunStatus.COMPLETE, result.status(), String.join("\n", log));
    assertEquals(
        split.services(), seen.get("service"), "the service JVM runs on the services' core only");
    assertEquals(
        split.client(), seen.get("client"), "this JVM runs on the client's cores during the study");
    assertEquals(before, CpuAffinity.ofThisProcess(), "and has its own cores back after it");
    assertTrue(
        result.study().notes().stream()
            .anyMatch(n -> n.contains("services run on CPU " + split.services())),
        result.study().notes().toString());

    var level = result.workloads().get(0).levels().get(0);
    var measured = level.iterations().stream().filter(i -> !i.warmup()).toList();
    double cpuPerWall =
        measured.stream().mapToLong(i -> i.cpuNanos()).sum()
            / (double) measured.stream().mapToLong(i -> i.durationNanos()).sum();
    assertEquals(
        cpuPerWall / split.client().size(),
        level.cpu().utilisation(),
        0.02,
        "utilisation over the client's "
            + split.client().size()
            + " core(s), not over "
            + before.size());
  }

  @Test
  void cpuSplit_parse_defaultsToHalfAndRefusesWhatCannotBeSplit() {
    CpuSet four = CpuSet.parse("0-3");
    assertEquals(
        new CpuSplit(CpuSet.parse("0,1"), CpuSet.parse("2-3")), CpuSplit.parse("auto", four));
    assertEquals(
        new CpuSplit(CpuSet.parse("0"), CpuSet.parse("1")),
        CpuSplit.defaultFor(CpuSet.parse("0-1")));
    assertTrue(CpuSplit.defaultFor(CpuSet.parse("0")).isShared(), "one CPU cannot be split");
    assertTrue(CpuSplit.parse("shared", four).isShared());
    assertEquals(
        new CpuSplit(CpuSet.parse("1,3"), CpuSet.parse("0,2")), CpuSplit.parse("1,3", four));
    assertEquals("0-2,5", CpuSet.parse("5,0-2").toString());
    var e = assertThrows(IllegalArgumentException.class, () -> CpuSplit.parse("0-3", four));
    assertTrue(e.getMessage().contains("leaves no CPU for the client"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> CpuSplit.parse("7", four));
    assertTrue(
        e.getMessage().contains("CPU [7] is not among this process's CPUs (0-3)"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> CpuSplit.parse("zero", four));
    assertTrue(
        e.getMessage().startsWith("--service-cpus: 'zero' is not a CPU list"), e.getMessage());
  }

  /**
   * Two key-server nodes and one step signing through both of them, each of its two series in a
   * fresh JVM.
   */
  record ForkedStudy() implements Study {
    @Override
    public StudyInfo info() {
      return new StudyInfo(
          "forked",
          "series in fresh JVMs, keys on two nodes",
          StudyRecord.Unit.OPS_PER_SECOND,
          null,
          StudyInfo.DEFAULT_DURATION);
    }

    @Override
    public List<String> problems(StudyOptions options) {
      return List.of();
    }

    @Override
    public List<ServiceSpec> services(StudyOptions options) {
      return KeyServerNodes.services(options);
    }

    @Override
    public List<Step> steps(StudyOptions options, RunningServices services) {
      Plan sign =
          new Plan(
              List.of(
                  new WorkloadSpec(
                      "sign", Map.of("alg", "rsa2048"), KeyServerNodes.remoteKeys(services))),
              new LoadModel.Closed(List.of(2)),
              Iterations.parse("0x1s"),
              Iterations.parse("2x400ms"),
              2,
              ThreadKind.PLATFORM,
              false,
              "services");
      return List.of(Step.of("sign", sign).inForks());
    }
  }

  /**
   * A forked step (pix's JMH forks): each series runs in a fresh JVM that calls the nodes itself,
   * the iterations of both land in the one level, the nodes' CPU is still theirs, and the calls the
   * children made add up in the key-node tally.
   */
  @Test
  void run_forkedStep_eachSeriesInAFreshJvm_keyNodeCallsAddedUpAcrossForks() throws Exception {
    Path out = dir.resolve("forked.json");
    List<String> log = Collections.synchronizedList(new ArrayList<>());
    RunResult result =
        runner(out, log)
            .run(new ForkedStudy(), quick(), fixture.environment("pkibench study forked"));

    assertEquals(RunStatus.COMPLETE, result.status(), String.join("\n", log));
    WorkloadResult w = result.workloads().get(0);
    assertEquals(null, w.failure(), String.join("\n", log));
    var level = w.levels().get(0);
    assertEquals(
        List.of(1, 1, 2, 2),
        level.iterations().stream().map(i -> i.series()).toList(),
        "two series of two iterations");
    assertTrue(
        log.stream().anyMatch(l -> l.contains("[fork]")),
        "the children's lines reach the study's log: " + log);
    assertTrue(
        w.cpuMeter().matches("pid:\\d+\\+\\d+"),
        "the nodes' CPU, measured from the children by their pids: " + w.cpuMeter());
    long signatures = level.iterations().stream().mapToLong(i -> i.succeeded()).sum();
    long calls = w.keyNodes().stream().mapToLong(WorkloadResult.KeyNode::calls).sum();
    assertEquals(2, w.keyNodes().size(), "both nodes: " + w.keyNodes());
    assertTrue(
        w.keyNodes().stream().allMatch(n -> n.calls() > 0),
        "each child called both nodes: " + w.keyNodes());
    assertTrue(
        calls >= signatures,
        "every measured signature was a call some child made, added up: "
            + calls
            + " calls for "
            + signatures);
  }
}
