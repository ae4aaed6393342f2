package io.pkibench.engine;

import io.pkibench.workload.api.CheckedOperation;
import io.pkibench.workload.api.Operation;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import org.HdrHistogram.ValueRecorder;

/**
 * One worker's operation of a mix: each {@link #execute} runs the member drawn for it; the worker
 * then tells it how the operation ended ({@link #succeeded}, {@link #failed}), which it counts and
 * records as that member's. Owned by one worker, which alone writes its counts (opaque stores, as
 * the worker's own: the controller reads them each second without a fence or a lock on the worker's
 * path); reset by the controller only while the worker waits at the gate. A member that checks its
 * answers ({@link CheckedOperation}, under {@code --verify}) says whether it checked this one, so a
 * mix counts its verified operations as a lone workload does.
 */
final class MixOperation implements CheckedOperation {
  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  /**
   * Opaque access to one element of the count arrays: a plain store on the worker's side, fresh for
   * the controller's read.
   */
  private static final VarHandle COUNT = MethodHandles.arrayElementVarHandle(long[].class);

  private final Operation[] members;
  private final double[] cumulative;
  private final ValueRecorder[] recorders;
  private final long workerSeed;
  private final long seed;
  final long[] started;
  final long[] succeeded;
  final long[] failed;
  final ErrorTally[] errors;

  /** This worker's operations so far: the closed loop's draw number. */
  private long drawn;

  /**
   * The open loop's slot for the next operation, or -1 when the worker draws by its own count
   * (closed loop).
   */
  private long slot = -1;

  private int current;

  /**
   * The iterations ended so far: the open loop's timetable restarts at slot 0 each iteration, and
   * without it each would draw the same members again (the shares then no closer to the weights
   * however many iterations ran).
   */
  private long iteration;

  MixOperation(
      Operation[] members,
      double[] cumulative,
      ValueRecorder[] recorders,
      long workerSeed,
      long seed) {
    this.members = members;
    this.cumulative = cumulative;
    this.recorders = recorders;
    this.workerSeed = workerSeed;
    this.seed = seed;
    started = new long[members.length];
    succeeded = new long[members.length];
    failed = new long[members.length];
    errors = new ErrorTally[members.length];
    for (int m = 0; m < members.length; m++) errors[m] = new ErrorTally();
  }

  /**
   * A worker's own stream of draws, apart from every other worker's and from the open loop's slots.
   */
  static long workerSeed(long seed, int worker) {
    return mix64(seed ^ mix64(GOLDEN * (worker + 1L)));
  }

  /**
   * Open loop: the next {@link #execute} is the arrival of timetable slot {@code slot}, whose
   * member the slot decides.
   */
  void arrival(long slot) {
    this.slot = slot;
  }

  /**
   * Whether any member checks its answers: else the mix counts no verified, as none was checked.
   */
  boolean checksAnswers() {
    for (Operation member : members) if (member instanceof CheckedOperation) return true;
    return false;
  }

  @Override
  public boolean executeChecked() throws Exception {
    long hash =
        slot >= 0
            ? mix64((seed ^ mix64(GOLDEN * (iteration + 1))) + GOLDEN * (slot + 1))
            : mix64(workerSeed + GOLDEN * ++drawn);
    slot = -1;
    int m = member(cumulative, (hash >>> 11) * 0x1.0p-53);
    current = m;
    COUNT.setOpaque(started, m, started[m] + 1);
    if (members[m] instanceof CheckedOperation checked) return checked.executeChecked();
    members[m].execute();
    return false;
  }

  /**
   * The member the last execute ran ended well after {@code latencyNanos}, as the series records
   * it.
   */
  void succeeded(long latencyNanos) {
    recorders[current].recordValue(latencyNanos);
    COUNT.setOpaque(succeeded, current, succeeded[current] + 1);
  }

  void failed(Throwable failure) {
    COUNT.setOpaque(failed, current, failed[current] + 1);
    errors[current].record(failure);
  }

  /**
   * Member {@code m}'s count in {@code counts} ({@link #started}, {@link #succeeded} or {@link
   * #failed}) as the controller reads it while the worker runs.
   */
  static long countNow(long[] counts, int m) {
    return (long) COUNT.getOpaque(counts, m);
  }

  /**
   * Zeroes the counts for the next iteration, whose slots draw afresh; called while the worker
   * waits at the gate.
   */
  void resetCounts() {
    iteration++;
    Arrays.fill(started, 0);
    Arrays.fill(succeeded, 0);
    Arrays.fill(failed, 0);
  }

  /** The first member whose cumulative share exceeds {@code u} in [0, 1). */
  static int member(double[] cumulative, double u) {
    for (int m = 0; m < cumulative.length - 1; m++) if (u < cumulative[m]) return m;
    return cumulative.length - 1;
  }

  /**
   * SplitMix64's finaliser: consecutive inputs give independent-looking, uniformly spread outputs.
   */
  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
