package io.pkibench.session;

import io.pkibench.engine.EngineException;
import io.pkibench.engine.IterationStarts;
import io.pkibench.engine.LoadDriver;
import io.pkibench.engine.ProgressListener;
import io.pkibench.engine.SeriesSpec;
import io.pkibench.engine.SharedBoundaries;
import io.pkibench.keys.KeyNodeTally;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.Pkcs11KeySource;
import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.IntervalLog;
import io.pkibench.pki.TestPki;
import io.pkibench.plan.LevelLoad;
import io.pkibench.plan.LoadModel;
import io.pkibench.plan.MixSpec;
import io.pkibench.plan.Plan;
import io.pkibench.plan.PlanException;
import io.pkibench.plan.Segment;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.AgentRecord;
import io.pkibench.results.Environment;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.Timeline;
import io.pkibench.results.WorkloadResult;
import io.pkibench.text.OutsideText;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.VerifiesWithKeySource;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.catalog.MixFactory;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Runs a plan: opens each workload's keys, drives the engine level by level (in this JVM, or a
 * fresh JVM per series with {@code fork}), and writes the result after every level. {@link #run}
 * makes a result file of its own ({@code pkibench run}); {@link #appendTo} adds the plan's
 * workloads to a file other plans share (a study's steps). A workload that cannot run is recorded
 * with its reason and the run goes on with the next.
 */
public final class RunSession {
  private final Plan plan;
  private final WorkloadCatalog catalog;
  private final KeyOpener keys;
  private final Options options;

  /**
   * This agent's share of the plan and when its iterations start; the whole plan, at once, unless
   * {@link #asAgent} says otherwise.
   */
  private Segment segment = Segment.WHOLE;

  private IterationStarts starts = IterationStarts.NOW;
  private AgentRecord agent;
  private volatile LoadDriver driver;

  /** A staged level's time series, from the engine's intervals. */
  private final TimelineRecorder timeline = new TimelineRecorder();

  private volatile ForkedSeries forked;
  private volatile boolean interrupted;

  /** Set when this JVM ran out of memory or stack: the run stops after saving why. */
  private volatile VirtualMachineError fatal;

  /**
   * Let go of when this JVM runs out of memory, so that saying why and saving the result can
   * allocate: the workers that filled the heap may not have been collected yet.
   */
  private byte[] reserve = new byte[RESERVE_BYTES];

  /**
   * True in {@link #run}: a level whose every operation failed ends the workload there (a study's
   * steps go on as they did).
   */
  private boolean ownFile;

  private static final int RESERVE_BYTES = 4 << 20;

  /** Opens the key source a {@code --keys} value names. */
  @FunctionalInterface
  public interface KeyOpener {
    KeySource open(String spec) throws Exception;
  }

  /** How long a level waits for key-server nodes that its before-level hook restarted. */
  static final Duration NODES_BACK_WITHIN = Duration.ofSeconds(30);

  /**
   * Runs before each level of each workload (a study restarting its services); throwing stops that
   * workload with the reason. After any hook but {@link #NONE}, the level waits for the key
   * source's nodes to be back.
   */
  @FunctionalInterface
  public interface BeforeLevel {
    BeforeLevel NONE = workers -> {};

    void run(int workers) throws Exception;
  }

  /**
   * How to run: whose CPU to count, the clock, where progress and log lines go, how long a hung
   * operation is waited for, and, when forking, how to make the forked-series runner from the run's
   * interval log (null: every series runs in this JVM), the analysis stored at the end (the
   * caller's: a session measures, it does not analyse), the test PKI that certificate-validating
   * workloads trust, what runs before each level, and the environment workloads read named secrets
   * from.
   */
  public record Options(
      CpuMeter cpu,
      InstantSource clock,
      ProgressListener progress,
      Consumer<String> log,
      Duration hangGrace,
      Function<IntervalLog, ForkedSeries> fork,
      Function<RunResult, ?> analysis,
      Supplier<TestPki> pki,
      BeforeLevel beforeLevel,
      Map<String, String> env) {}

  /**
   * Checks the plan against {@code catalog} (workload names, parameters, targets, key sources): a
   * bad plan throws before anything runs.
   */
  public RunSession(Plan plan, WorkloadCatalog catalog, KeyOpener keys, Options options) {
    List<String> problems = new ArrayList<>(catalog.problems(plan));
    if (plan.load() instanceof LoadModel.Staged && options.fork() != null) {
      problems.add(
          "--fork and --stages: a forked series' per-second figures do not cross the fork; leave --fork out");
    }
    if (!problems.isEmpty()) throw new PlanException(problems);
    this.plan = plan;
    this.catalog = catalog;
    this.keys = keys;
    this.options = options;
  }

  /**
   * Runs only {@code segment}'s share of each level, each iteration starting when {@code starts}
   * says, and records {@code agent} in the result (completed with its late starts when {@code
   * starts} are shared boundaries).
   */
  public RunSession asAgent(Segment segment, IterationStarts starts, AgentRecord agent) {
    List<String> problems = segment.problems(plan.load());
    if (!problems.isEmpty()) throw new PlanException(problems);
    this.segment = segment;
    this.starts = starts;
    this.agent = agent;
    return this;
  }

  /**
   * Stops after the operations in flight; the interrupted level is dropped, every finished one is
   * kept, and a staged level keeps the seconds it measured (its timeline marked interrupted).
   */
  public void interrupt() {
    interrupted = true;
    LoadDriver d = driver;
    if (d != null) d.abort();
    ForkedSeries f = forked;
    if (f != null) f.interrupt();
  }

  /**
   * What a workload's failure says when this JVM ran out of memory or stack after {@code
   * finishedLevels} of {@code plan}'s.
   */
  static String outOfResources(VirtualMachineError e, Plan plan, int finishedLevels) {
    String where =
        finishedLevels < plan.load().levels().size()
            ? plan.load().levels().get(finishedLevels).workers() + " workers"
            : "the end";
    return "the JVM ran out of "
        + (e instanceof StackOverflowError ? "stack" : "memory")
        + " at "
        + where
        + " ("
        + e
        + "); give it more heap (PKIBENCH_JAVA_OPTS=-Xmx8g) or run fewer workers";
  }

  /**
   * The last resort when saying why could not be done in the session (the heap was still full of
   * the workers it had started): once the session is gone and its memory with it, the file on disk,
   * which holds every finished level, is marked failed with the reason on its last workload.
   */
  public static RunResult recordOutOfResources(Path resultFile, Plan plan, VirtualMachineError e)
      throws IOException {
    RunResult saved = RunResultJson.read(resultFile);
    int last = saved.workloads().size() - 1;
    RunResult failed = saved.withStatus(RunStatus.FAILED);
    if (last >= 0 && saved.workloads().get(last).failure() == null) {
      failed =
          failed.withWorkload(
              last,
              saved
                  .workloads()
                  .get(last)
                  .withFailure(
                      outOfResources(e, plan, saved.workloads().get(last).levels().size())));
    }
    RunResultJson.write(failed, resultFile);
    return failed;
  }

  /**
   * True when {@code level} started operations and not one of them succeeded: the service, or the
   * workload, did not work at all.
   */
  public static boolean everyOperationFailed(LevelResult level) {
    return level.counts().failed() > 0 && level.counts().succeeded() == 0;
  }

  /** True once this JVM ran out of memory or stack during the run: the caller should stop too. */
  public boolean ranOutOfResources() {
    return fatal != null;
  }

  /**
   * One real operation of each workload of the plan that calls an outside service ({@link
   * WorkloadFactory#services}), each member of a mix on its own, before anything is measured: empty
   * when each answered (a progress line says so), else one line per service that did not, naming
   * its flag and URL, the cause and the fix. Not measured, and never a bare connect.
   */
  public List<String> checkServices() {
    List<String> problems = new ArrayList<>();
    for (WorkloadSpec spec : plan.workloads()) {
      WorkloadFactory factory = catalog.factoryOf(spec).orElseThrow();
      List<WorkloadFactory> asked = new ArrayList<>();
      List<Params> params = new ArrayList<>();
      List<String> names = new ArrayList<>();
      if (factory instanceof MixFactory mix) {
        for (int i = 0; i < mix.memberCount(); i++) {
          asked.add(mix.member(i));
          params.add(mix.params(i));
          names.add(mix.member(i).name());
        }
      } else {
        asked.add(factory);
        params.add(Params.resolve(spec.name(), factory.params(), spec.params()));
        names.add(spec.name());
      }
      for (int i = 0; i < asked.size(); i++) {
        List<String> services = asked.get(i).services(params.get(i));
        if (services.isEmpty()) continue;
        String named = OutsideText.forTerminal(String.join(", ", services));
        KeySource source = null;
        try {
          if (asked.get(i).usesKeys()) source = keys.open(spec.keys());
          WorkloadContext context =
              new WorkloadContext(
                  source,
                  plan.verify(),
                  options.pki(),
                  options.clock(),
                  options.env(),
                  plan.verifyEvery());
          String name = names.get(i);
          ServiceCheck.problem(
                  asked.get(i),
                  params.get(i),
                  context,
                  named,
                  ServiceCheck.WITHIN,
                  () ->
                      options
                          .log()
                          .accept(
                              "checked: one " + name + " operation against " + named + " answered"))
              .filter(p -> !problems.contains(p))
              .ifPresent(problems::add);
        } catch (Exception e) {
          // A key source that cannot open is the run's to report, named, as it always has been.
        } finally {
          if (source != null) {
            try {
              source.close();
            } catch (Exception ignored) {
              // opened only for the check; the run opens its own
            }
          }
        }
      }
    }
    return problems;
  }

  /** Runs the plan into a result file of its own, ending with its status and analysis. */
  public RunResult run(Environment environment, Path resultFile)
      throws IOException, InterruptedException {
    try (ResultFile file =
        ResultFile.create(resultFile, environment, RunResultJson.mapper().valueToTree(plan))) {
      if (agent != null) file.update(r -> r.withAgent(agent));
      ownFile = true;
      appendTo(file, null);
      if (agent != null && starts instanceof SharedBoundaries shared) {
        file.update(
            r ->
                r.withAgent(
                    agent.withTimetable(
                        shared.startAt(), shared.lateStarts(), shared.latestMillis())));
        if (shared.lateStarts() > 0) {
          options
              .log()
              .accept(
                  shared.lateStarts()
                      + " iterations started later than their shared boundary (the latest by "
                      + shared.latestMillis()
                      + " ms): this agent's counts cover a shifted interval; give the agents more time before the start (--start-at/--start-in)");
        }
      }
      // "failed" when nothing at all was measured because every workload failed (a wrong PIN): not
      // "complete"
      return file.update(
          r ->
              r.withStatus(
                      interrupted
                          ? RunStatus.INTERRUPTED
                          : fatal != null
                              ? RunStatus.FAILED
                              : !r.workloads().isEmpty()
                                      && r.workloads().stream()
                                          .allMatch(
                                              w -> w.failure() != null && w.levels().isEmpty())
                                  ? RunStatus.FAILED
                                  : RunStatus.COMPLETE)
                  .withAnalysis(RunResultJson.mapper().valueToTree(options.analysis().apply(r))));
    }
  }

  /**
   * Appends each workload of the plan to {@code file}, marked with {@code step} (null outside a
   * study); its interval histograms go to the file's log, tagged with the step. Returns the indexes
   * of the appended workloads.
   */
  public List<Integer> appendTo(ResultFile file, WorkloadResult.Step step)
      throws IOException, InterruptedException {
    driver =
        new LoadDriver(
            plan.threads(),
            ProgressListener.all(List.of(options.progress(), timeline)),
            file.intervals(),
            options.clock(),
            options.hangGrace(),
            starts);
    forked = options.fork() == null ? null : options.fork().apply(file.intervals());
    List<Integer> appended = new ArrayList<>();
    for (int w = 0; w < plan.workloads().size() && !interrupted && fatal == null; w++) {
      int index = file.current().workloads().size();
      runWorkload(file, index, plan.workloads().get(w), step);
      appended.add(index);
    }
    return appended;
  }

  private void runWorkload(ResultFile file, int index, WorkloadSpec spec, WorkloadResult.Step step)
      throws IOException, InterruptedException {
    CpuMeter cpu = options.cpu();
    WorkloadFactory factory = catalog.factoryOf(spec).orElseThrow();
    MixSpec mix = factory instanceof MixFactory m ? m.resolved() : null;
    Params params = Params.resolve(spec.name(), factory.params(), spec.params());
    WorkloadResult entry =
        WorkloadResult.builder(spec.name())
            .params(params.asMap())
            .keys(factory.usesKeys() ? spec.keys() : "none")
            .cpuMeter(cpu.describe())
            .step(step)
            .build()
            .withNotes(factory.notes(params))
            .withMix(mix)
            .withInputs(factory.inputs(params, options.env()));
    file.update(r -> r.withWorkload(index, entry));
    // The interval log's tag names the step, so one .hlog holds every step of a study apart; a
    // shoot-out runs one
    // workload through several key sources, and the source keeps their intervals apart.
    boolean shootOut =
        plan.workloads().stream().filter(w -> w.name().equals(spec.name())).count() > 1;
    String tagName =
        step != null
            ? tagSafe(step.label()) + "." + step.role() + "/" + spec.name()
            : shootOut ? spec.name() + "@" + tagSafe(spec.keys()) : spec.name();
    KeySource source = null;
    WorkloadResult current = entry;
    // Forked series call the key nodes from their own JVMs; each answers with its share, added up
    // at the end.
    List<List<KeyNodeTally>> forkedNodes = new ArrayList<>();
    TimelineRecorder.Journal journal = TimelineRecorder.Journal.NONE;
    try {
      if (factory.usesKeys()) {
        // Opened here even when forking: a bad key source fails once, up front, and names itself.
        source = keys.open(spec.keys());
        current =
            WorkloadResult.builder(spec.name())
                .params(params.asMap())
                .keys(source.describe())
                .cpuMeter(cpu.describe())
                .step(step)
                .build()
                .withNotes(entry.notes())
                .withMix(mix)
                .withInputs(entry.inputs());
        if (source instanceof Pkcs11KeySource && factory instanceof VerifiesWithKeySource)
          current = current.withWycheproof(TokenWycheproof.check(source, params, options.log()));
      }
      WorkloadContext context =
          new WorkloadContext(
              source,
              plan.verify(),
              options.pki(),
              options.clock(),
              options.env(),
              plan.verifyEvery());
      // A staged level is saved when its stages end: until then its seconds go to a journal beside
      // the result, so a kill keeps them.
      if (plan.load() instanceof LoadModel.Staged && forked == null) {
        journal =
            TimelineJournal.beside(
                file.path(), index, spec.name(), cpu.describe(), cpu.cores(), options.log());
        timeline.journalTo(journal);
      }
      for (LevelLoad planned : plan.load().levels()) {
        if (interrupted) break;
        LevelLoad load = segment.share(planned);
        options.beforeLevel().run(load.workers());
        if (source != null && options.beforeLevel() != BeforeLevel.NONE) {
          // The hook may have restarted the key-server nodes: the level starts once the client sees
          // them all again.
          List<String> down = source.awaitNodesUp(NODES_BACK_WITHIN);
          if (!down.isEmpty()) {
            options
                .log()
                .accept(
                    spec.name()
                        + " at "
                        + load.workers()
                        + " workers starts with key-server nodes still down after "
                        + NODES_BACK_WITHIN.toSeconds()
                        + " s: "
                        + String.join(", ", down));
          }
        }
        List<IterationResult> iterations = new ArrayList<>();
        Timeline timelineOfLevel = null;
        for (int series = 1; series <= plan.series() && !interrupted; series++) {
          SeriesSpec seriesSpec =
              new SeriesSpec(
                  tagName,
                  load,
                  series,
                  plan.series(),
                  plan.warmup(),
                  plan.measure(),
                  plan.load() instanceof LoadModel.Staged staged ? staged.stages() : null,
                  segment);
          SeriesRun run =
              forked == null
                  ? SeriesRunner.runHere(factory, context, params, seriesSpec, driver, cpu)
                  : forked.run(request(spec, seriesSpec));
          iterations.addAll(run.iterations());
          if (seriesSpec.stages() != null) timelineOfLevel = timeline.take(seriesSpec);
          current = current.plusOutcomes(run.outcomes());
          if (forked != null) forkedNodes.add(run.forkedKeyNodes());
        }
        // A staged level stopped part way keeps the seconds it measured, marked so; a level held
        // steady is dropped whole.
        boolean partStaged =
            timelineOfLevel != null
                && !timelineOfLevel.seconds().isEmpty()
                && iterations.stream().anyMatch(i -> !i.warmup());
        if (interrupted && !partStaged) break;
        LevelResult level =
            LevelResult.of(
                load.workers(),
                load instanceof LevelLoad.Open open ? open.ratePerSecond() : null,
                iterations,
                cpu.describe(),
                cpu.cores());
        if (timelineOfLevel != null)
          level =
              level.withTimeline(
                  interrupted ? TimelineJournal.stoppedPartWay(timelineOfLevel) : timelineOfLevel);
        current = current.withLevel(level);
        WorkloadResult saved = current;
        file.update(r -> r.withWorkload(index, saved));
        if (journal instanceof TimelineJournal written) written.levelSaved();
        options.log().accept(LevelLine.of(step == null ? spec.name() : step.label(), level));
        // A run of its own stops where nothing worked: the next levels would only measure the same
        // failure, harder.
        if (ownFile && everyOperationFailed(level)) break;
      }
    } catch (EngineException e) {
      // A series cut short by an interrupt (a forked JVM stopped) is the interrupt, not a failure
      // of the workload.
      if (!interrupted) {
        current = current.withFailure(e.getMessage());
        options.log().accept(spec.name() + ": stopped: " + OutsideText.forTerminal(e.getMessage()));
      }
    } catch (InterruptedException e) {
      throw e;
    } catch (VirtualMachineError e) {
      // Out of memory (or stack) in this JVM: what is measured so far is saved with the reason, and
      // the run stops
      // rather than go on in a JVM that may fail anywhere next.
      reserve = null;
      fatal = e;
      String why = outOfResources(e, plan, current.levels().size());
      current = current.withFailure(why);
      options.log().accept(spec.name() + ": stopped: " + why);
    } catch (Exception e) {
      String why = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
      current = current.withFailure(why);
      options.log().accept(spec.name() + ": cannot run: " + OutsideText.forTerminal(why));
    } finally {
      timeline.journalTo(TimelineRecorder.Journal.NONE);
      if (journal instanceof TimelineJournal written) written.close();
      if (source != null) {
        // Empty, and so absent from the file, but for remote: sources.
        current =
            current.withKeyNodes(
                keyNodes(forkedNodes.isEmpty() ? source.nodes() : KeyNodeTally.sum(forkedNodes)));
        source.close();
      }
    }
    WorkloadResult last = current;
    file.update(r -> r.withWorkload(index, last));
  }

  /**
   * Printable ASCII without commas or spaces: the HdrHistogram log format splits on them, and other
   * readers may not take UTF-8.
   */
  private static String tagSafe(String text) {
    return text.replaceAll("[^!-~]|,", "_");
  }

  private SeriesRequest request(WorkloadSpec spec, SeriesSpec series) {
    // The meter as this JVM resolved it (jvm, pid:N, pid:N+M): a study's "services" means nothing
    // to the child, their pids do.
    return new SeriesRequest(
        spec,
        series.load(),
        series.series(),
        series.seriesCount(),
        series.warmup(),
        series.measure(),
        plan.threads(),
        plan.verify(),
        options.cpu().describe(),
        options.hangGrace().toMillis(),
        plan.verifyEvery());
  }

  /** The key source's account of its nodes, as the result file records it. */
  static List<WorkloadResult.KeyNode> keyNodes(List<KeyNodeTally> tallies) {
    return tallies.stream()
        .map(
            n ->
                new WorkloadResult.KeyNode(
                    n.node(),
                    n.weight(),
                    n.calls(),
                    n.failures(),
                    n.upAtEnd(),
                    n.transitions().stream()
                        .map(t -> new WorkloadResult.Transition(t.at(), t.up(), t.why()))
                        .toList()))
        .toList();
  }
}
