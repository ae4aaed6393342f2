package io.pkibench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.IntervalLog;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.ThreadKind;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Paced;
import io.pkibench.workload.api.VerifySample;
import io.pkibench.workload.api.Workload;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LoadDriverTest {
  private static final CpuMeter CPU = CpuMeter.of("jvm");

  private static LoadDriver driver(ThreadKind threads, IntervalLog log, Duration grace) {
    return new LoadDriver(threads, ProgressListener.NONE, log, InstantSource.system(), grace);
  }

  /**
   * Fails every 7th operation of each worker, alternating two causes; counts what it was asked to
   * do.
   */
  private static final class FlakyWorkload implements Workload {
    final AtomicLong executed = new AtomicLong();
    final AtomicLong thrown = new AtomicLong();

    @Override
    public Operation newOperation(int worker) {
      long[] n = {0};
      return () -> {
        executed.incrementAndGet();
        long i = ++n[0];
        if (i % 7 == 0) {
          thrown.incrementAndGet();
          if (i % 14 == 0) throw new IOException("connection reset");
          throw new IllegalStateException("bad token " + worker % 2);
        }
        Thread.onSpinWait();
      };
    }
  }

  /**
   * Operations that check one answer in three, every fifth check failing: the engine counts as
   * verified exactly the checks that passed, counted apart by the workload; a failed check is a
   * failed operation. A plain operation's iteration has no verified count at all.
   */
  @Test
  void runSeries_checkedOperations_verifiedCountsThePassedChecksOnly() throws Exception {
    AtomicLong passed = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    Workload checking =
        worker -> {
          VerifySample sample = new VerifySample(3);
          long[] checks = {0};
          return (CheckedOperation)
              () -> {
                if (!sample.next()) return false;
                if (++checks[0] % 5 == 0) {
                  refused.incrementAndGet();
                  throw new IllegalStateException("the answer signs other bytes");
                }
                passed.incrementAndGet();
                return true;
              };
        };
    SeriesSpec spec =
        new SeriesSpec("checked", 2, 1, 1, Iterations.parse("0x1s"), Iterations.parse("1x200ms"));
    IterationOutcome o =
        driver(ThreadKind.PLATFORM, IntervalLog.NONE, Duration.ofSeconds(10))
            .runSeries(spec, checking, CPU)
            .get(0);
    assertEquals(passed.get(), o.verified());
    assertEquals(refused.get(), o.failed());
    assertTrue(o.verified() > 0 && o.verified() < o.succeeded(), o.toString());
    assertEquals(
        (o.started() + 2) / 3,
        o.verified() + o.failed(),
        1 + 2, // each worker's first is checked: up to one more per worker than a third
        "one in three checked");

    IterationOutcome plain =
        driver(ThreadKind.PLATFORM, IntervalLog.NONE, Duration.ofSeconds(10))
            .runSeries(spec, worker -> () -> {}, CPU)
            .get(0);
    assertEquals(null, plain.verified(), "nothing checked: no verified count, not 0");
  }

  /**
   * An operation due every 100 ms that takes no time: run at most ten times a second, its waits
   * never timed as latency. Against what the operation itself saw: a loaded machine wakes a worker
   * late, and that lateness is latency by design (counted from when the operation was due), so the
   * engine's latency is the operation's own lateness plus its run, not plus a 100 ms wait.
   */
  @Test
  void runSeries_pacedOperation_waitsForItsTimeUntimed() throws Exception {
    AtomicLong executed = new AtomicLong();
    List<Long> latenessNanos = Collections.synchronizedList(new ArrayList<>());
    Workload paced =
        worker ->
            new Paced() {
              long due = System.nanoTime();

              @Override
              public long dueNanos() {
                return due;
              }

              @Override
              public void execute() {
                long now = System.nanoTime();
                latenessNanos.add(Math.max(0, now - due));
                executed.incrementAndGet();
                due = now + 100_000_000L;
              }
            };
    SeriesSpec spec =
        new SeriesSpec("paced", 2, 1, 1, Iterations.parse("0x1s"), Iterations.parse("1x1s"));
    IterationOutcome o =
        driver(ThreadKind.VIRTUAL, IntervalLog.NONE, Duration.ofSeconds(10))
            .runSeries(spec, paced, CPU)
            .get(0);
    // never before it is due: at most 10 a second per worker, and the first at once
    assertTrue(
        o.succeeded() >= 2 && o.succeeded() <= 2 * 11,
        "at most ten per worker in a second: " + o.succeeded());
    assertEquals(executed.get(), o.started());
    List<Long> sorted = new ArrayList<>(latenessNanos);
    Collections.sort(sorted);
    long ownMedian = sorted.get(sorted.size() / 2);
    assertTrue(
        o.latency().getValueAtPercentile(50) < ownMedian + 50_000_000L,
        "the 100 ms waits are not latency: median "
            + o.latency().getValueAtPercentile(50)
            + " ns, the operations' own median lateness "
            + ownMedian
            + " ns");
  }

  @Test
  void runSeries_injectedFailures_everyOperationCountedOnce() throws Exception {
    for (ThreadKind threads : ThreadKind.values()) {
      FlakyWorkload workload = new FlakyWorkload();
      SeriesSpec spec =
          new SeriesSpec(
              "flaky", 3, 1, 1, Iterations.parse("1x200ms"), Iterations.parse("2x300ms"));
      List<IterationOutcome> outcomes =
          driver(threads, IntervalLog.NONE, Duration.ofSeconds(10)).runSeries(spec, workload, CPU);

      assertEquals(3, outcomes.size());
      assertTrue(outcomes.get(0).warmup());
      long started = 0, failed = 0;
      for (IterationOutcome o : outcomes) {
        assertEquals(o.started(), o.succeeded() + o.failed(), "iteration " + o.index());
        assertEquals(o.succeeded(), o.latency().getTotalCount(), "one latency per success");
        assertEquals(
            o.failed(),
            o.errors().values().stream().mapToLong(Long::longValue).sum(),
            "every failure has a cause");
        assertTrue(
            o.failed() > 0 && o.succeeded() > 6 * o.failed() - 3 * 7, "roughly 1 in 7 fails: " + o);
        started += o.started();
        failed += o.failed();
      }
      assertEquals(workload.executed.get(), started, "the engine saw every execution");
      assertEquals(workload.thrown.get(), failed, "and every throw");
      IterationOutcome last = outcomes.get(2);
      assertTrue(
          last.errors().keySet().stream().anyMatch(c -> c.equals("connection reset (IOException)")),
          last.errors().toString());
      assertTrue(
          last.errors().keySet().stream()
              .anyMatch(c -> c.startsWith("bad token") && c.endsWith("(IllegalStateException)")));
    }
  }

  /**
   * Past {@link LatencyStripes#MAX_STRIPES} workers share recorders: still one latency per success,
   * with its real value (every operation sleeps at least 2 ms), for both kinds of thread.
   */
  @Test
  void runSeries_moreWorkersThanStripes_everyLatencyKept() throws Exception {
    for (ThreadKind threads : ThreadKind.values()) {
      int workers = threads == ThreadKind.VIRTUAL ? 2_000 : 150;
      Workload sleeping = worker -> () -> Thread.sleep(2);
      SeriesSpec spec =
          new SeriesSpec(
              "many", workers, 1, 1, Iterations.parse("0x1s"), Iterations.parse("2x500ms"));
      List<IterationOutcome> outcomes =
          driver(threads, IntervalLog.NONE, Duration.ofSeconds(10)).runSeries(spec, sleeping, CPU);

      for (IterationOutcome o : outcomes) {
        assertTrue(
            o.succeeded() > workers,
            threads + ": every worker ran more than once: " + o.succeeded());
        assertEquals(
            o.succeeded(), o.latency().getTotalCount(), threads + ": one latency per success");
        // The histogram keeps three significant digits: a 2.0004 ms sleep is read back as the
        // lowest value of its bucket, 1,999,872 ns. Compare in the histogram's own precision.
        long twoMillisBucket = o.latency().lowestEquivalentValue(2_000_000);
        assertTrue(
            o.latency().getMinValue() >= twoMillisBucket,
            threads + ": min " + o.latency().getMinValue() + " ns");
      }
    }
  }

  /**
   * Past the 65,535 parties a Phaser holds (the engine's gate before): every worker runs each
   * iteration, each operation counted once.
   */
  @Test
  void runSeries_seventyThousandWorkers_everyWorkerRunsEachIteration() throws Exception {
    int workers = 70_000;
    var perWorker = new java.util.concurrent.atomic.AtomicIntegerArray(workers);
    Workload sleeping =
        worker ->
            () -> {
              perWorker.incrementAndGet(worker);
              Thread.sleep(300);
            };
    SeriesSpec spec =
        new SeriesSpec(
            "tiered", workers, 1, 1, Iterations.parse("0x1s"), Iterations.parse("2x600ms"));
    List<IterationOutcome> outcomes =
        driver(ThreadKind.VIRTUAL, IntervalLog.NONE, Duration.ofSeconds(30))
            .runSeries(spec, sleeping, CPU);

    assertEquals(2, outcomes.size());
    long counted = 0;
    for (IterationOutcome o : outcomes) {
      assertTrue(o.succeeded() >= workers, "every worker ran in the iteration: " + o.succeeded());
      assertEquals(o.succeeded(), o.latency().getTotalCount(), "one latency per success");
      counted += o.succeeded();
    }
    long ran = 0;
    int idle = 0;
    for (int i = 0; i < workers; i++) {
      ran += perWorker.get(i);
      if (perWorker.get(i) < 2) idle++;
    }
    assertEquals(0, idle, "every worker ran in both iterations");
    assertEquals(ran, counted, "no operation counted twice or lost between iterations");
  }

  /**
   * The last of 40,000 workers dies mid-iteration: the controller, waiting at the gate, is woken
   * and says so.
   */
  @Test
  void runSeries_oneWorkerOfManyDies_theSeriesEndsNamingIt() {
    int workers = 40_000;
    Workload dying =
        worker ->
            () -> {
              if (worker == workers - 1) throw new StackOverflowError("planted in the last worker");
              Thread.sleep(100);
            };
    SeriesSpec spec =
        new SeriesSpec(
            "dying", workers, 1, 1, Iterations.parse("0x1s"), Iterations.parse("1x500ms"));
    EngineException e =
        assertThrows(
            EngineException.class,
            () ->
                driver(ThreadKind.VIRTUAL, IntervalLog.NONE, Duration.ofSeconds(30))
                    .runSeries(spec, dying, CPU));
    assertTrue(
        e.getMessage().contains("a worker died")
            && e.getMessage().contains("planted in the last worker"),
        e.getMessage());
  }

  @Test
  void runSeries_operationSetupFails_reportsWorkerAndCause() {
    Workload broken =
        worker -> {
          if (worker == 1) throw new IllegalArgumentException("no such key");
          return () -> {};
        };
    SeriesSpec spec =
        new SeriesSpec("broken", 2, 1, 1, Iterations.parse("0x1s"), Iterations.parse("1x200ms"));
    EngineException e =
        assertThrows(
            EngineException.class,
            () ->
                driver(ThreadKind.PLATFORM, IntervalLog.NONE, Duration.ofSeconds(5))
                    .runSeries(spec, broken, CPU));
    assertTrue(
        e.getMessage().contains("worker 1") && e.getMessage().contains("no such key"),
        e.getMessage());
  }

  /**
   * A worker that runs out of memory while setting up: the JVM's error reaches the caller as
   * itself, which the session records as "the JVM ran out of memory at N workers" (CI once saw one
   * escape to the thread's default handler, its stack trace printed), not as a workload that could
   * not create its operation.
   */
  @Test
  void runSeries_setupRunsOutOfMemory_theErrorReachesTheCaller() {
    Workload starved =
        worker -> {
          if (worker == 1) throw new OutOfMemoryError("Java heap space");
          return () -> {};
        };
    SeriesSpec spec =
        new SeriesSpec("starved", 2, 1, 1, Iterations.parse("0x1s"), Iterations.parse("1x200ms"));
    OutOfMemoryError e =
        assertThrows(
            OutOfMemoryError.class,
            () ->
                driver(ThreadKind.PLATFORM, IntervalLog.NONE, Duration.ofSeconds(5))
                    .runSeries(spec, starved, CPU));
    assertEquals("Java heap space", e.getMessage());
  }

  @Test
  @org.junit.jupiter.api.Timeout(30) // without the grace this would wait forever: fail instead
  void runSeries_operationHangs_failsAfterGraceInsteadOfWaitingForever() {
    CountDownLatch never = new CountDownLatch(1);
    Workload hanging = worker -> () -> never.await();
    SeriesSpec spec =
        new SeriesSpec("hang", 1, 1, 1, Iterations.parse("0x1s"), Iterations.parse("1x200ms"));
    EngineException e =
        assertThrows(
            EngineException.class,
            () ->
                driver(ThreadKind.PLATFORM, IntervalLog.NONE, Duration.ofMillis(500))
                    .runSeries(spec, hanging, CPU));
    assertTrue(e.getMessage().contains("hang"), e.getMessage());
    never.countDown();
  }

  @Test
  @org.junit.jupiter.api.Timeout(30) // without the grace this would wait forever: fail instead
  void runSeries_newOperationHangs_failsAfterGraceNamingTheSetup() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    Workload hangingSetup =
        worker -> {
          if (worker == 1) never.await(); // one worker of two never gets its operation
          return () -> {};
        };
    SeriesSpec spec =
        new SeriesSpec("setup", 2, 1, 1, Iterations.parse("0x1s"), Iterations.parse("1x200ms"));
    EngineException e =
        assertThrows(
            EngineException.class,
            () ->
                driver(ThreadKind.PLATFORM, IntervalLog.NONE, Duration.ofMillis(500))
                    .runSeries(spec, hangingSetup, CPU));
    assertTrue(
        e.getMessage().contains("1 of 2 workers had not created their operation")
            && e.getMessage().contains("newOperation"),
        e.getMessage());
    never.countDown();
  }

  @Test
  void runSeries_intervalLog_receivesEveryIterationsHistograms() throws Exception {
    List<String> tags = new ArrayList<>();
    List<Long> counts = new ArrayList<>();
    IntervalLog log =
        (tag, h) -> {
          tags.add(tag);
          counts.add(h.getTotalCount());
        };
    SeriesSpec spec =
        new SeriesSpec("noop", 2, 1, 1, Iterations.parse("1x200ms"), Iterations.parse("1x1500ms"));
    List<IterationOutcome> outcomes =
        driver(ThreadKind.PLATFORM, log, Duration.ofSeconds(5))
            .runSeries(spec, worker -> () -> {}, CPU);
    assertTrue(tags.contains("noop/c2/s1/w1") && tags.contains("noop/c2/s1/m1"), tags.toString());
    long logged = counts.stream().mapToLong(Long::longValue).sum();
    long succeeded = outcomes.stream().mapToLong(IterationOutcome::succeeded).sum();
    assertEquals(succeeded, logged, "the interval log holds every recorded latency");
    Histogram measured = outcomes.get(1).latency();
    assertTrue(measured.getTotalCount() > 0);
  }

  /**
   * The per-second intervals the listener receives add up, per iteration, to the iteration's own
   * counts and latencies: each interval carries its own counts, not running totals, and its own
   * latencies, copied before the buffer is reused.
   */
  @Test
  void runSeries_intervals_addUpToEachIteration() throws Exception {
    List<IntervalSample> samples = new ArrayList<>();
    List<Histogram> copies = new ArrayList<>();
    ProgressListener recorder =
        new ProgressListener() {
          @Override
          public void interval(IntervalSample sample) {
            samples.add(sample);
            copies.add(sample.latency().copy());
          }
        };
    List<IterationOutcome> finished = new ArrayList<>();
    ProgressListener counter =
        new ProgressListener() {
          @Override
          public void iterationFinished(SeriesSpec spec, IterationOutcome outcome) {
            finished.add(outcome);
          }
        };
    ProgressListener listener = ProgressListener.all(List.of(recorder, counter));
    FlakyWorkload workload = new FlakyWorkload();
    SeriesSpec spec =
        new SeriesSpec("flaky", 2, 1, 1, Iterations.parse("1x300ms"), Iterations.parse("1x2200ms"));
    List<IterationOutcome> outcomes =
        new LoadDriver(
                ThreadKind.PLATFORM,
                listener,
                IntervalLog.NONE,
                InstantSource.system(),
                Duration.ofSeconds(10))
            .runSeries(spec, workload, CPU);
    assertEquals(outcomes, finished, "both listeners told everything");
    for (IterationOutcome o : outcomes) {
      List<Integer> mine = new ArrayList<>();
      for (int i = 0; i < samples.size(); i++) {
        if (samples.get(i).warmup() == o.warmup() && samples.get(i).iteration() == o.index())
          mine.add(i);
      }
      assertTrue(
          o.warmup() || mine.size() >= 3,
          "a 2.2 s iteration gives at least three intervals: " + mine.size());
      Histogram sum = new Histogram(3);
      long started = 0, succeeded = 0, failed = 0;
      for (int i : mine) {
        IntervalSample s = samples.get(i);
        started += s.started();
        succeeded += s.succeeded();
        failed += s.failed();
        sum.add(copies.get(i));
        assertTrue(
            s.endMillis() >= s.startMillis()
                && Double.isNaN(s.targetPerSecond())
                && s.activeWorkers() == 2,
            s.toString());
      }
      assertEquals(o.started(), started, "iteration " + o.index() + " started");
      assertEquals(o.succeeded(), succeeded, "succeeded");
      assertEquals(o.failed(), failed, "failed");
      assertEquals(
          o.latency().getTotalCount(),
          sum.getTotalCount(),
          "every latency in exactly one interval");
      assertEquals(o.latency().getMaxValue(), sum.getMaxValue());
    }
  }

  /**
   * Operations that cost {@code startMillis} of "CPU" at first and half as much every {@code
   * halvingMillis}, down to 1 ms, told to {@code cpu} rather than spent: a JIT warming up, its cost
   * per operation the same on a loaded machine as on a quiet one (each takes 1 ms of wall time).
   */
  private static Workload warmingUp(long startMillis, long halvingMillis, CountedCpu cpu) {
    long t0 = System.nanoTime();
    return worker ->
        () -> {
          long halvings = (System.nanoTime() - t0) / 1_000_000 / halvingMillis;
          cpu.spend(Math.max(1, startMillis >> Math.min(halvings, 20)) * 1_000_000);
          Thread.sleep(1);
        };
  }

  /** A CPU meter the operations tell what they cost: the warm-up rule reads CPU per operation. */
  private static final class CountedCpu implements CpuMeter {
    private final AtomicLong nanos = new AtomicLong();

    void spend(long cpuNanos) {
      nanos.addAndGet(cpuNanos);
    }

    @Override
    public long cpuNanos() {
      return nanos.get();
    }

    @Override
    public String describe() {
      return "counted";
    }
  }

  private static long warmups(List<IterationOutcome> outcomes) {
    return outcomes.stream().filter(IterationOutcome::warmup).count();
  }

  /**
   * 1..8x300ms: the warm-up goes on while the cost per operation falls through three iterations
   * running and stops once it settles; a steady workload is judged after the three it takes, and
   * one still falling at the cap stops there. The cost is CPU per operation, counted by the
   * operations themselves, so that a loaded machine's noise cannot move it.
   */
  @Test
  void runSeries_warmupUntilSteady_extendsWhileTheCostFallsAndNoFurther() throws Exception {
    Iterations untilSteady = Iterations.parse("1..8x300ms");
    SeriesSpec spec = new SeriesSpec("warming", 1, 1, 1, untilSteady, Iterations.parse("1x300ms"));

    CountedCpu halving = new CountedCpu();
    List<IterationOutcome> falling =
        driver(ThreadKind.PLATFORM, IntervalLog.NONE, Duration.ofSeconds(10))
            .runSeries(spec, warmingUp(16, 300, halving), halving);
    long n = warmups(falling);
    assertTrue(
        n > 3 && n < 8,
        "warmed past three iterations while the cost halved, and stopped before the cap once it held at 1 ms: "
            + n);
    assertEquals(1, falling.size() - n, "then the one measured iteration");

    CountedCpu flat = new CountedCpu();
    List<IterationOutcome> steady =
        driver(ThreadKind.PLATFORM, IntervalLog.NONE, Duration.ofSeconds(10))
            .runSeries(
                spec,
                worker ->
                    () -> {
                      flat.spend(2_000_000);
                      Thread.sleep(1);
                    },
                flat);
    assertEquals(3, warmups(steady), "a steady workload takes the three iterations that tell");

    SeriesSpec capped =
        new SeriesSpec(
            "warming", 1, 1, 1, Iterations.parse("1..4x300ms"), Iterations.parse("1x300ms"));
    CountedCpu stillFalling = new CountedCpu();
    List<IterationOutcome> neverSteady =
        driver(ThreadKind.PLATFORM, IntervalLog.NONE, Duration.ofSeconds(10))
            .runSeries(capped, warmingUp(64, 300, stillFalling), stillFalling);
    assertEquals(4, warmups(neverSteady), "still falling at the cap: the cap holds");
    assertEquals(
        "1..4x300ms", capped.warmup().toString(), "the range is how the result's plan shows it");
  }

  /** Without CPU measured, the rule prices an operation by wall time: the same rule over it. */
  @Test
  void steadyWarmup_noCpuMeasured_judgesWallTimePerOperation() {
    var halving =
        List.of(
            new SteadyWarmup.Cost(0, 800_000_000L, 100),
            new SteadyWarmup.Cost(0, 400_000_000L, 100),
            new SteadyWarmup.Cost(0, 200_000_000L, 100));
    assertEquals(false, SteadyWarmup.steady(halving), "wall time per operation halving");
    var level =
        List.of(
            new SteadyWarmup.Cost(0, 300_000_000L, 100),
            new SteadyWarmup.Cost(0, 310_000_000L, 100),
            new SteadyWarmup.Cost(0, 305_000_000L, 100));
    assertEquals(true, SteadyWarmup.steady(level), "wall time per operation level");
  }
}
