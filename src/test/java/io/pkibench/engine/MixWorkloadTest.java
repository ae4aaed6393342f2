package io.pkibench.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.IntervalLog;
import io.pkibench.plan.Iterations;
import io.pkibench.plan.LevelLoad;
import io.pkibench.plan.ThreadKind;
import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Paced;
import io.pkibench.workload.api.Workload;
import java.io.IOException;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class MixWorkloadTest {
  private static final CpuMeter CPU = CpuMeter.of("jvm");

  private static LoadDriver driver() {
    return new LoadDriver(
        ThreadKind.PLATFORM,
        ProgressListener.NONE,
        IntervalLog.NONE,
        InstantSource.system(),
        Duration.ofSeconds(20));
  }

  /** Counts what it runs; fails every {@code failEvery}th operation of each worker (0: never). */
  private static final class Counting implements Workload {
    final AtomicLong executed = new AtomicLong();
    final AtomicLong thrown = new AtomicLong();
    final int failEvery;
    final String cause;

    Counting(int failEvery, String cause) {
      this.failEvery = failEvery;
      this.cause = cause;
    }

    @Override
    public Operation newOperation(int worker) {
      long[] n = {0};
      return () -> {
        executed.incrementAndGet();
        if (failEvery > 0 && ++n[0] % failEvery == 0) {
          thrown.incrementAndGet();
          throw new IOException(cause);
        }
        Thread.onSpinWait();
      };
    }
  }

  private static MixWorkload mix(Counting sign, Counting verify, long seed) {
    return new MixWorkload(
        List.of("sign", "verify"), new double[] {7, 3}, List.of(sign, verify), seed);
  }

  @Test
  void runSeries_mixOverSeveralSeconds_eachIntervalCarriesItsMembersAddingUpToTheIteration()
      throws Exception {
    Counting sign = new Counting(0, "never");
    Counting verify = new Counting(4, "bad signature");
    List<IntervalSample> intervals = new ArrayList<>();
    // Kept as the listener receives them: each member's histogram is the engine's buffer, valid
    // during the call only.
    List<long[]> memberLatencyCounts = new ArrayList<>();
    ProgressListener listener =
        new ProgressListener() {
          @Override
          public void interval(IntervalSample s) {
            intervals.add(s);
            memberLatencyCounts.add(
                s.members().stream().mapToLong(m -> m.latency().getTotalCount()).toArray());
          }
        };
    LoadDriver driver =
        new LoadDriver(
            ThreadKind.PLATFORM,
            listener,
            IntervalLog.NONE,
            InstantSource.system(),
            Duration.ofSeconds(20));
    SeriesSpec spec =
        new SeriesSpec("mix", 2, 1, 1, Iterations.parse("0x1s"), Iterations.parse("1x2500ms"));
    IterationOutcome o = driver.runSeries(spec, mix(sign, verify, 3), CPU).get(0);
    assertTrue(
        intervals.size() >= 3,
        "a 2.5 s iteration has an interval a second and one at its end: " + intervals.size());
    long[][] summed = new long[2][4];
    for (int i = 0; i < intervals.size(); i++) {
      IntervalSample s = intervals.get(i);
      assertEquals(
          List.of("sign", "verify"), s.members().stream().map(MemberSample::label).toList());
      for (int m = 0; m < 2; m++) {
        MemberSample ms = s.members().get(m);
        summed[m][0] += ms.started();
        summed[m][1] += ms.succeeded();
        summed[m][2] += ms.failed();
        summed[m][3] += memberLatencyCounts.get(i)[m];
      }
      if (i < intervals.size() - 1) {
        assertTrue(
            s.members().get(0).succeeded() > 0 && s.members().get(1).succeeded() > 0,
            "both members run in every full second");
      }
    }
    for (int m = 0; m < 2; m++) {
      MemberOutcome whole = o.members().get(m);
      assertEquals(
          whole.started(),
          summed[m][0],
          whole.label() + ": the intervals' starts add up to the iteration's");
      assertEquals(whole.succeeded(), summed[m][1], whole.label() + ": successes");
      assertEquals(whole.failed(), summed[m][2], whole.label() + ": failures");
      assertEquals(
          whole.latency().getTotalCount(),
          summed[m][3],
          whole.label() + ": every latency in one interval's histogram");
    }
    assertEquals(0, summed[0][2], "sign never fails");
    assertEquals(o.failed(), summed[1][2], "verify's failures are every failure of the mix");
    // A second's total and its members are read a moment apart while workers run, so one second's
    // split may be off by the
    // operations between the two reads; at the iteration's end, with every worker at the gate, the
    // running sums agree exactly.
    long totalSucceeded = intervals.stream().mapToLong(IntervalSample::succeeded).sum();
    assertEquals(
        totalSucceeded,
        summed[0][1] + summed[1][1],
        "at the iteration's end, with every worker at the gate, the members split the intervals' successes exactly");
  }

  /**
   * A mix whose one member checks its answers (a CheckedOperation, as a workload under --verify
   * hands out) counts that member's passed checks as the level's verified; a mix of plain members
   * has no verified count. Before, a mix never counted verified (its operation hid the member's
   * checks): {@code run --mix} and the studies' scenario mixes showed nothing verified.
   */
  @Test
  void runSeries_mixWithACheckingMember_countsItsPassedChecksAsVerified() throws Exception {
    AtomicLong passed = new AtomicLong();
    Workload checking =
        worker ->
            (CheckedOperation)
                () -> {
                  passed.incrementAndGet();
                  return true;
                };
    Counting plain = new Counting(0, "never");
    SeriesSpec spec =
        new SeriesSpec("mix", 2, 1, 1, Iterations.parse("0x1s"), Iterations.parse("1x300ms"));
    IterationOutcome o =
        driver()
            .runSeries(
                spec,
                new MixWorkload(
                    List.of("sign", "verify"), new double[] {1, 1}, List.of(plain, checking), 5),
                CPU)
            .get(0);
    MemberOutcome checked = o.members().get(1);
    assertTrue(checked.succeeded() > 0 && o.members().get(0).succeeded() > 0, o.toString());
    assertEquals(checked.succeeded(), o.verified(), "each of the checking member's successes");
    assertTrue(o.verified() < o.succeeded(), "the plain member's are not verified: " + o);

    IterationOutcome none =
        driver().runSeries(spec, mix(plain, new Counting(0, "never"), 5), CPU).get(0);
    assertEquals(null, none.verified(), "no member checks: no verified count, not 0");
  }

  @Test
  void runSeries_closedLoopMix_eachMemberCountedApartAndAddingUpToTheTotal() throws Exception {
    Counting sign = new Counting(0, "never");
    Counting verify = new Counting(5, "bad signature");
    SeriesSpec spec =
        new SeriesSpec("mix", 3, 1, 1, Iterations.parse("1x300ms"), Iterations.parse("2x300ms"));
    List<IterationOutcome> outcomes = driver().runSeries(spec, mix(sign, verify, 1), CPU);
    long signStarted = 0, verifyStarted = 0, verifyFailed = 0;
    for (IterationOutcome o : outcomes) {
      assertEquals(2, o.members().size());
      MemberOutcome s = o.members().get(0), v = o.members().get(1);
      assertEquals("sign", s.label());
      assertEquals(o.started(), s.started() + v.started(), "the members split the total");
      assertEquals(o.failed(), v.failed(), "only verify fails");
      assertEquals(0, s.failed());
      assertEquals(
          s.succeeded(), s.latency().getTotalCount(), "each success in its member's histogram");
      assertEquals(v.succeeded(), v.latency().getTotalCount());
      assertEquals(
          o.latency().getTotalCount(), s.latency().getTotalCount() + v.latency().getTotalCount());
      assertEquals(
          v.failed(),
          v.errors().getOrDefault("bad signature (IOException)", 0L),
          "verify's errors are its own: " + v.errors());
      assertTrue(s.errors().isEmpty(), s.errors().toString());
      signStarted += s.started();
      verifyStarted += v.started();
      verifyFailed += v.failed();
    }
    assertEquals(sign.executed.get(), signStarted, "what sign ran is what sign counted");
    assertEquals(verify.executed.get(), verifyStarted);
    assertEquals(verify.thrown.get(), verifyFailed);
    double share = signStarted / (double) (signStarted + verifyStarted);
    assertTrue(
        signStarted + verifyStarted > 1000,
        "enough operations to judge the share: " + (signStarted + verifyStarted));
    assertTrue(Math.abs(share - 0.7) < 0.03, "sign drew its 70% by operation: " + share);
  }

  /**
   * Past {@link MixWorkload#MEMBER_STRIPES} workers share a member's recorders: still every success
   * in its member's histogram.
   */
  @Test
  void runSeries_moreWorkersThanMemberStripes_everySuccessRecorded() throws Exception {
    Counting sign = new Counting(0, "never");
    Counting verify = new Counting(3, "bad signature");
    int workers = MixWorkload.MEMBER_STRIPES + 8;
    SeriesSpec spec =
        new SeriesSpec("mix", workers, 1, 1, Iterations.parse("0x1s"), Iterations.parse("1x300ms"));
    IterationOutcome o = driver().runSeries(spec, mix(sign, verify, 3), CPU).get(0);
    MemberOutcome s = o.members().get(0), v = o.members().get(1);
    assertEquals(s.succeeded(), s.latency().getTotalCount());
    assertEquals(v.succeeded(), v.latency().getTotalCount());
    assertEquals(sign.executed.get() + verify.executed.get(), o.started());
    assertEquals(verify.thrown.get(), v.failed());
  }

  @Test
  void runSeries_openLoopMix_sharesHoldByArrival() throws Exception {
    Counting sign = new Counting(0, "never");
    Counting verify = new Counting(0, "never");
    SeriesSpec spec =
        new SeriesSpec(
            "mix",
            new LevelLoad.Open(4, 2000),
            1,
            1,
            Iterations.parse("0x1s"),
            Iterations.parse("1x1s"));
    IterationOutcome o = driver().runSeries(spec, mix(sign, verify, 9), CPU).get(0);
    MemberOutcome s = o.members().get(0), v = o.members().get(1);
    assertEquals(o.started(), s.started() + v.started());
    assertTrue(o.started() > 1000, "most of the 2000 arrivals started: " + o.started());
    double share = s.started() / (double) o.started();
    assertTrue(Math.abs(share - 0.7) < 0.04, "sign drew its 70% of the arrivals: " + share);
  }

  /**
   * The member of each open-loop slot depends on the seed and the slot only: the same seed, the
   * same sequence.
   */
  @Test
  void execute_sameSeedAndSlots_sameMembers_otherSeedOthers() throws Exception {
    assertEquals(draws(42, true), draws(42, true));
    assertNotEquals(draws(42, true), draws(43, true));
    assertEquals(
        draws(42, false), draws(42, false), "closed loop: a worker's sequence by its count");
    assertNotEquals(draws(42, false), draws(43, false));
    assertEquals(
        draws(42, true, 1),
        draws(42, true, 1),
        "the next iteration's slots: the same for the same seed");
    assertNotEquals(draws(42, true, 0), draws(42, true, 1), "and not the last iteration's again");
  }

  private static List<Integer> draws(long seed, boolean bySlot) throws Exception {
    return draws(seed, bySlot, 0);
  }

  /** The members of 200 operations after {@code iterations} iterations ended. */
  private static List<Integer> draws(long seed, boolean bySlot, int iterations) throws Exception {
    int[] ran = {-1};
    Operation[] members = {() -> ran[0] = 0, () -> ran[0] = 1, () -> ran[0] = 2};
    var recorders = new org.HdrHistogram.ValueRecorder[3];
    MixOperation op =
        new MixOperation(
            members,
            new double[] {0.5, 0.8, 1.0},
            recorders,
            MixOperation.workerSeed(seed, 0),
            seed);
    for (int i = 0; i < iterations; i++) op.resetCounts();
    List<Integer> seen = new ArrayList<>();
    for (long slot = 0; slot < 200; slot++) {
      if (bySlot) op.arrival(slot);
      op.execute();
      seen.add(ran[0]);
    }
    return seen;
  }

  @Test
  void newOperation_pacedMember_refusedNamingIt() throws Exception {
    Workload paced =
        worker ->
            new Paced() {
              @Override
              public long dueNanos() {
                return System.nanoTime();
              }

              @Override
              public void execute() {}
            };
    MixWorkload mix =
        new MixWorkload(
            List.of("noop", "tls-hold"),
            new double[] {1, 1},
            List.of(worker -> () -> {}, paced),
            1);
    mix.prepare(1);
    var e = assertThrows(IllegalArgumentException.class, () -> mix.newOperation(0));
    assertTrue(
        e.getMessage().contains("tls-hold") && e.getMessage().contains("cannot be a mix member"),
        e.getMessage());
  }

  @Test
  void new_zeroOrNegativeWeight_refused() {
    for (double w : new double[] {0, -1, Double.NaN}) {
      assertThrows(
          IllegalArgumentException.class,
          () ->
              new MixWorkload(
                  List.of("a", "b"),
                  new double[] {1, w},
                  List.of(worker -> () -> {}, worker -> () -> {}),
                  1),
          "weight " + w);
    }
  }
}
