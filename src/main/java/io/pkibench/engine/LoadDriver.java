package io.pkibench.engine;

import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.IntervalLog;
import io.pkibench.measure.LatencyHistograms;
import io.pkibench.plan.LevelLoad;
import io.pkibench.plan.Stages;
import io.pkibench.plan.ThreadKind;
import io.pkibench.workload.api.LiveCounts;
import io.pkibench.workload.api.Workload;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Runs one series of a level with N workers, in the closed-loop model (each worker starts its next
 * operation when the last ends) or, when the series has a rate, the open-loop model (operations
 * start on a fixed timetable shared by the workers). Iterations are synchronised (every worker
 * starts together and the iteration ends when the last in-flight operation ends), so each iteration
 * counts every operation exactly once.
 */
public final class LoadDriver {
  private static final long TICK_NANOS = 1_000_000_000L;
  private final ThreadKind threads;
  private final ProgressListener progress;
  private final IntervalLog intervalLog;
  private final InstantSource wallClock;
  private final Duration hangGrace;
  private final IterationStarts starts;
  private volatile Worker.Gates current;

  public LoadDriver(
      ThreadKind threads,
      ProgressListener progress,
      IntervalLog intervalLog,
      InstantSource wallClock,
      Duration hangGrace) {
    this(threads, progress, intervalLog, wallClock, hangGrace, IterationStarts.NOW);
  }

  /**
   * {@code starts}: when each iteration may begin (an agent of a split plan waits for the boundary
   * all agents share).
   */
  public LoadDriver(
      ThreadKind threads,
      ProgressListener progress,
      IntervalLog intervalLog,
      InstantSource wallClock,
      Duration hangGrace,
      IterationStarts starts) {
    this.threads = threads;
    this.progress = progress;
    this.intervalLog = intervalLog;
    this.wallClock = wallClock;
    this.hangGrace = hangGrace;
    this.starts = starts;
  }

  /**
   * Asks the running series to stop after the operations in flight (Ctrl-C); what was measured is
   * kept.
   */
  public void abort() {
    Worker.Gates gates = current;
    if (gates != null) gates.abort = true;
  }

  /** Runs warm-up then measured iterations; returns them all, warm-up first, each flagged. */
  public List<IterationOutcome> runSeries(SeriesSpec spec, Workload workload, CpuMeter cpu)
      throws EngineException, InterruptedException {
    int n = spec.concurrency();
    if (workload instanceof MixWorkload mix) mix.prepare(n);
    Worker.Gates gates = new Worker.Gates(spec.load(), Thread.currentThread());
    gates.slotStride = spec.segment().count();
    gates.slotPhase = spec.segment().index() - 1;
    CountDownLatch ready = new CountDownLatch(n);
    List<Worker> workers = new ArrayList<>(n);
    ThreadFactory factory =
        threads == ThreadKind.VIRTUAL
            ? Thread.ofVirtual().name("pkibench-worker-", 0).factory()
            : Thread.ofPlatform().daemon().name("pkibench-worker-", 0).factory();
    List<Thread> started = new ArrayList<>(n);
    current = gates;
    try {
      try {
        for (int i = 0; i < n; i++) {
          Worker w = new Worker(i, workload, gates, ready);
          workers.add(w);
          Thread t = factory.newThread(w);
          started.add(t);
          t.start();
        }
      } catch (Throwable cannotStart) {
        // Out of memory or threads part way: the gate would wait for workers that do not exist.
        // Terminating it lets those already started leave, and frees what they hold before the
        // error is recorded.
        gates.gate.workersAre(started);
        gates.gate.terminate();
        throw cannotStart;
      }
      gates.gate.workersAre(started);
      // Creating an operation (opening a connection, a session) may hang as an operation may: same
      // grace, same kind of answer.
      if (!ready.await(hangGrace.toNanos(), TimeUnit.NANOSECONDS)) {
        gates.gate.terminate(); // the workers that are ready leave the gate
        throw new EngineException(
            ready.getCount()
                + " of "
                + n
                + " workers had not created their operation "
                + hangGrace.toSeconds()
                + " s after the series started; the workload's setup (newOperation) hangs: check the target or the key source",
            null);
      }
      for (Worker w : workers) {
        // Out of memory or stack while setting up: the JVM's failure, told as the run tells it
        // anywhere else.
        if (w.setupFailure instanceof VirtualMachineError fatal) throw fatal;
        if (w.setupFailure != null) {
          throw new EngineException(
              "worker "
                  + w.id
                  + " could not create its operation: "
                  + ErrorTally.causeOf(w.setupFailure),
              w.setupFailure);
        }
      }
      // Every worker at the gate before the first iteration opens it: one still on its way would
      // count itself into the next.
      try {
        if (!gates.gate.awaitAllArrived(hangGrace.toNanos())) {
          throw new EngineException(
              "the workers had not all reached the start "
                  + hangGrace.toSeconds()
                  + " s after creating their operations",
              null);
        }
      } catch (IterationGate.TerminatedException aWorkerDied) {
        Throwable crash =
            workers.stream().map(w -> w.crash).filter(c -> c != null).findFirst().orElse(null);
        throw new EngineException(
            "a worker died: " + (crash == null ? "unknown" : ErrorTally.causeOf(crash)), crash);
      }
      List<IterationOutcome> outcomes = new ArrayList<>();
      List<SteadyWarmup.Cost> warmups = new ArrayList<>();
      for (int i = 1;
          !gates.abort
              && (i <= spec.warmup().count()
                  || (i <= spec.warmup().upTo() && !SteadyWarmup.steady(warmups)));
          i++) {
        IterationOutcome o =
            iterate(spec, true, i, spec.warmup().each(), workers, gates, cpu, workload);
        outcomes.add(o);
        warmups.add(new SteadyWarmup.Cost(o.cpuNanos(), o.durationNanos(), o.succeeded()));
      }
      for (int i = 1; i <= spec.measure().count() && !gates.abort; i++) {
        outcomes.add(iterate(spec, false, i, spec.measure().each(), workers, gates, cpu, workload));
      }
      return outcomes;
    } finally {
      current = null;
      gates.finished = true;
      gates.gate.terminate(); // every worker leaves the gate, whether or not all of them reached it
      // Bounded in total: a hung operation's thread is a daemon and is left behind, not waited for.
      long joinDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
      for (Thread t : started) {
        long left = joinDeadline - System.nanoTime();
        if (left <= 0) break;
        t.join(Duration.ofNanos(left));
      }
    }
  }

  private IterationOutcome iterate(
      SeriesSpec spec,
      boolean warmup,
      int index,
      Duration length,
      List<Worker> workers,
      Worker.Gates gates,
      CpuMeter cpu,
      Workload workload)
      throws EngineException, InterruptedException {
    starts.awaitStart(spec, warmup, index, length, () -> gates.abort);
    for (Worker w : workers) w.resetCounters();
    gates.nextSlot.set(0);
    Stages stages = stagesOf(spec, warmup, length);
    gates.stages = stages;
    Ticks ticks = new Ticks(spec, warmup, index, gates.latency, workload, workers, stages, cpu);
    long cpuStart = cpu.cpuNanos();
    long startNanos = System.nanoTime();
    ticks.start(startNanos, wallClock.millis(), cpuStart);
    openGate(gates, startNanos, length);
    awaitEnd(gates, workers, ticks);
    if (gates.gate.isTerminated()) {
      Throwable crash =
          workers.stream().map(w -> w.crash).filter(c -> c != null).findFirst().orElse(null);
      throw new EngineException(
          "a worker died: " + (crash == null ? "unknown" : ErrorTally.causeOf(crash)), crash);
    }
    long endNanos = System.nanoTime();
    long durationNanos = endNanos - startNanos;
    long cpuNanos = cpu.cpuNanos() - cpuStart;
    ticks.sample();
    // A staged iteration's last stage may have had no tick of its own (it ends within a second of
    // the last): its status at the end is the figure the result holds.
    if (stages != null) ticks.progress(endNanos);
    IterationOutcome outcome =
        tally(spec, warmup, index, length, durationNanos, cpuNanos, workers, gates, ticks.iteration)
            .withMembers(workload instanceof MixWorkload mix ? mix.drain() : List.of());
    progress.iterationFinished(spec, outcome);
    return outcome;
  }

  /**
   * What an iteration follows: the stages when measured, their first target held in a warm-up; null
   * on a fixed level.
   */
  static Stages stagesOf(SeriesSpec spec, boolean warmup, Duration length) {
    if (spec.stages() == null) return null;
    return warmup
        ? Stages.hold(spec.stages().kind(), spec.stages().stages().get(0).target(), length)
        : spec.stages();
  }

  /**
   * Sets the iteration's deadline and lets every worker through the gate, where all of them wait.
   */
  private static void openGate(Worker.Gates gates, long startNanos, Duration length) {
    gates.startNanos = startNanos;
    gates.deadlineNanos = startNanos + length.toNanos();
    gates.gate.open();
  }

  /**
   * Waits for the last in-flight operation of the iteration to end, writing an interval and a
   * progress tick every second; gives up, stopping the workers, when an operation outlives the
   * deadline by the hang grace.
   */
  private void awaitEnd(Worker.Gates gates, List<Worker> workers, Ticks ticks)
      throws EngineException, InterruptedException {
    long hangLimit = gates.deadlineNanos + hangGrace.toNanos();
    while (true) {
      long now = System.nanoTime();
      long wait = Math.max(1, Math.min(ticks.nextTickNanos(), hangLimit) - now);
      try {
        if (gates.gate.awaitAllArrived(wait)) return;
      } catch (IterationGate.TerminatedException aWorkerDied) {
        return; // the caller finds which
      }
      now = System.nanoTime();
      if (now - hangLimit >= 0) {
        gates.abort = true;
        throw new EngineException(
            "operations still running "
                + hangGrace.toSeconds()
                + " s after iteration "
                + ticks.tag
                + " ended; an operation hangs: give it a timeout or check the target",
            null);
      }
      ticks.sample();
      ticks.progress(now);
    }
  }

  /** Every worker's counts and errors of the iteration, and the open loop's missed starts. */
  private static IterationOutcome tally(
      SeriesSpec spec,
      boolean warmup,
      int index,
      Duration length,
      long durationNanos,
      long cpuNanos,
      List<Worker> workers,
      Worker.Gates gates,
      Histogram iteration) {
    Map<String, Long> errors = new HashMap<>();
    long started = 0, succeeded = 0, failed = 0, late = 0;
    Long verified = null; // null: no worker's operation checks answers, so none was checked
    for (Worker w : workers) {
      started += w.started;
      succeeded += w.succeeded;
      failed += w.failed;
      if (w.checksAnswers()) verified = (verified == null ? 0 : verified) + w.verified;
      late += w.lateStarts;
      w.errors.drainInto(errors);
    }
    Histogram uncorrected = null;
    long missed = 0;
    if (gates.openLoop) {
      uncorrected = LatencyHistograms.newHistogram();
      gates.uncorrectedLatency.drainInto(uncorrected);
      long offered =
          gates.stages != null
              ? offered(gates.stages, length, gates.slotStride, gates.slotPhase)
              : (long)
                  Math.ceil(Math.max(0, length.toNanos() - gates.offsetNanos) / gates.periodNanos);
      missed = Math.max(0, offered - started);
    }
    return new IterationOutcome(
        spec.series(),
        index,
        warmup,
        durationNanos,
        started,
        succeeded,
        failed,
        cpuNanos,
        iteration,
        uncorrected,
        late,
        missed,
        errors,
        List.of(),
        verified);
  }

  /** Slots of a ramping timetable due within {@code length}: those scheduled before its end. */
  static long offered(Stages stages, Duration length) {
    long n = (long) Math.floor(stages.arrivalsUntil(length.toNanos()));
    return stages.offsetOfArrival(n) < length.toNanos() ? n + 1 : n;
  }

  /**
   * Of those, the ones an agent taking every {@code stride}-th slot from slot {@code phase} is
   * offered.
   */
  static long offered(Stages stages, Duration length, int stride, int phase) {
    long all = offered(stages, length);
    return all > phase ? (all - phase + stride - 1) / stride : 0;
  }

  /** The iteration's latency so far, and its once-a-second intervals and progress ticks. */
  private final class Ticks {
    final SeriesSpec spec;
    final boolean warmup;
    final int index;
    final String tag;
    final int count;
    final LatencyStripes latency;
    final Histogram iteration = LatencyHistograms.newHistogram();
    final Histogram tick = LatencyHistograms.newHistogram();

    /** The workload's own live figures, or null when it has none. */
    final LiveCounts live;

    /** The mix whose members each interval splits its figures by, or null. */
    final MixWorkload mix;

    final List<Worker> workers;

    /**
     * The stages the iteration follows, or null; intervals end at their boundaries too, so each
     * lies in one stage.
     */
    final Stages stages;

    final CpuMeter cpu;
    long tickStartMillis;
    long lastTickNanos;
    long startNanos;
    long intervalStartNanos;
    long lastCpuNanos;
    long lastSucceeded;

    /** The running totals at the last interval, so that each interval reports its own counts. */
    long intervalStarted, intervalSucceeded, intervalFailed;

    Ticks(
        SeriesSpec spec,
        boolean warmup,
        int index,
        LatencyStripes latency,
        Workload workload,
        List<Worker> workers,
        Stages stages,
        CpuMeter cpu) {
      this.workers = workers;
      this.stages = stages;
      this.cpu = cpu;
      this.live = workload instanceof LiveCounts counts ? counts : null;
      this.mix = workload instanceof MixWorkload m ? m : null;
      this.spec = spec;
      this.warmup = warmup;
      this.index = index;
      this.tag = spec.tag(warmup, index);
      this.count =
          warmup
              ? spec.warmup().upTo()
              : spec.measure().count(); // "of up to N" while warming until steady
      this.latency = latency;
    }

    void start(long startNanos, long startMillis, long cpuNanos) {
      lastTickNanos = startNanos;
      tickStartMillis = startMillis;
      this.startNanos = startNanos;
      intervalStartNanos = startNanos;
      lastCpuNanos = cpuNanos;
    }

    /**
     * When the next interval ends: a second after the last tick, or at the next stage boundary if
     * sooner.
     */
    long nextTickNanos() {
      long next = lastTickNanos + TICK_NANOS;
      if (stages == null) return next;
      for (int i = 1; i < stages.stages().size(); i++) {
        long boundary = startNanos + stages.startNanos(i);
        // A boundary the last tick is already within a millisecond of has had its tick.
        if (boundary - lastTickNanos > 1_000_000L && boundary - next < 0) return boundary;
      }
      return next;
    }

    /**
     * Moves what the workers recorded since the last tick into the iteration, writes it as an
     * interval and hands it, with the interval's counts, to the progress listener.
     */
    void sample() {
      long startMillis = tickStartMillis;
      // Counted just before the latencies are taken (the log's write comes after both): an
      // operation ending between the
      // two has its latency in this interval and its count in the next, and that gap is kept to
      // microseconds.
      // Ends before starts: an operation ending between the two reads is then in flight here, never
      // ended before it started.
      long startedOps = 0, succeeded = 0, failed = 0;
      for (Worker w : workers) {
        succeeded += w.succeededNow();
        failed += w.failedNow();
        startedOps += w.startedNow();
      }
      tickStartMillis = LoadDriver.this.sample(latency, tick, iteration, tag, tickStartMillis);
      List<MemberSample> members = mix == null ? List.of() : mix.sample();
      double target =
          spec.load() instanceof LevelLoad.Open open ? open.ratePerSecond() : Double.NaN;
      int active = spec.concurrency();
      int stage = -1;
      double targetWorkers = Double.NaN;
      long nowNanos = System.nanoTime();
      long cpuNanos = cpu.cpuNanos();
      if (stages != null) {
        long from = intervalStartNanos - startNanos;
        long to = nowNanos - startNanos;
        stage = stages.stageAt(from + (to - from) / 2);
        if (stages.kind() == Stages.Kind.RATE) {
          // The timetable's own mean over the interval; after the end (operations in flight) it
          // offers nothing.
          long end = Math.min(to, stages.total().toNanos());
          target =
              end > from
                  ? (stages.arrivalsUntil(end) - stages.arrivalsUntil(from)) * 1e9 / (to - from)
                  : 0;
        } else {
          targetWorkers = Math.round(stages.targetAt(Math.min(to, stages.total().toNanos() - 1)));
          active = 0;
          for (Worker w : workers) if (w.activeNow()) active++;
        }
      }
      LoadDriver.this.progress.interval(
          new IntervalSample(
              spec,
              warmup,
              index,
              startMillis,
              tickStartMillis,
              startedOps - intervalStarted,
              succeeded - intervalSucceeded,
              failed - intervalFailed,
              tick,
              target,
              active,
              stage,
              targetWorkers,
              cpuNanos - lastCpuNanos,
              members));
      intervalStartNanos = nowNanos;
      lastCpuNanos = cpuNanos;
      intervalStarted = startedOps;
      intervalSucceeded = succeeded;
      intervalFailed = failed;
    }

    /**
     * Tells the progress listener where the iteration stands, with the rate since the last tick.
     */
    void progress(long now) {
      long succeeded = 0, failed = 0, startedOps = 0;
      for (Worker w : workers) {
        succeeded += w.succeededNow();
        failed += w.failedNow();
        startedOps += w.startedNow();
      }
      // A staged iteration's rate changes stage by stage, so the last second's rate is not the
      // run's (a spike in the last stage read 10x the result): it shows the rate since the start,
      // the figure the result holds when the stages end.
      double recent =
          stages == null
              ? (succeeded - lastSucceeded) * 1e9 / (now - lastTickNanos)
              : succeeded * 1e9 / Math.max(1, now - startNanos);
      lastSucceeded = succeeded;
      lastTickNanos = now;
      LoadDriver.this.progress.tick(
          new ProgressSnapshot(
              spec.workload(),
              spec.concurrency(),
              spec.series(),
              spec.seriesCount(),
              warmup,
              index,
              count,
              startedOps,
              succeeded,
              failed,
              recent,
              iteration.getTotalCount() == 0 ? 0 : iteration.getMean(),
              iteration.getValueAtPercentile(99),
              iteration.getMaxValue(),
              live == null ? Map.of() : live.liveCounts()));
    }
  }

  /**
   * Takes the workers' interval histograms, adds them to the iteration, and logs the merged
   * interval.
   */
  private long sample(
      LatencyStripes latency,
      Histogram tick,
      Histogram iteration,
      String tag,
      long tickStartMillis) {
    tick.reset();
    latency.drainInto(tick);
    iteration.add(tick);
    long nowMillis = wallClock.millis();
    tick.setStartTimeStamp(tickStartMillis);
    tick.setEndTimeStamp(nowMillis);
    intervalLog.write(tag, tick);
    return nowMillis;
  }
}
