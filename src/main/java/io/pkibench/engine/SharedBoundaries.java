package io.pkibench.engine;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Iterations started on a wall-clock timetable every agent of a split plan computes alike from the
 * one start time: the first at {@code startAt}, each next one {@link #ITERATION_GAP} after the last
 * one's planned end, or {@link #SERIES_GAP} when a new series begins (a fresh workload and its
 * workers are set up in between). The timetable follows the plan, not when an agent got there, so
 * an agent that is late for one boundary (its setup slower) is back in step at the next; each late
 * start is counted for the result.
 */
public final class SharedBoundaries implements IterationStarts {
  /**
   * Room for the operations in flight at an iteration's end to finish before the next one opens.
   */
  public static final Duration ITERATION_GAP = Duration.ofMillis(500);

  /**
   * Room for a new series' setup: the workload created, each worker's operation (keys, connections)
   * made.
   */
  public static final Duration SERIES_GAP = Duration.ofSeconds(5);

  /**
   * A start later than this after its boundary counts as late: a wake-up's jitter is well under it.
   */
  public static final Duration LATE_AFTER = Duration.ofMillis(50);

  private final InstantSource clock;
  private final Supplier<Instant> startSignal;
  private Instant startAt;
  private Instant next;
  private SeriesSpec lastSeries;
  private Duration lastLength;
  private int lateStarts;
  private long latestMillis;

  public SharedBoundaries(InstantSource clock, Instant startAt) {
    this(clock, () -> startAt);
  }

  /**
   * The start time is asked of {@code startSignal} when the first iteration is due to start, its
   * setup done: it may wait until every agent is that far and then answer one time for all (local
   * agents, whose JVMs start at their own pace).
   */
  public SharedBoundaries(InstantSource clock, Supplier<Instant> startSignal) {
    this.clock = clock;
    this.startSignal = startSignal;
  }

  /** When the first iteration was due; null before it was. */
  public synchronized Instant startAt() {
    return startAt;
  }

  @Override
  public synchronized void awaitStart(
      SeriesSpec spec, boolean warmup, int index, Duration length, BooleanSupplier aborted)
      throws InterruptedException {
    if (startAt == null) startAt = startSignal.get();
    Instant boundary =
        lastSeries == null
            ? startAt
            : next.plus(lastLength).plus(spec == lastSeries ? ITERATION_GAP : SERIES_GAP);
    next = boundary;
    lastSeries = spec;
    lastLength = length;
    long left;
    while ((left = boundary.toEpochMilli() - clock.millis()) > 0 && !aborted.getAsBoolean()) {
      Thread.sleep(Math.min(left, 100));
    }
    long lateMillis = -left;
    if (lateMillis > LATE_AFTER.toMillis()) {
      lateStarts++;
      latestMillis = Math.max(latestMillis, lateMillis);
    }
  }

  /** Iterations that started more than {@link #LATE_AFTER} after their boundary. */
  public synchronized int lateStarts() {
    return lateStarts;
  }

  /** The latest of those starts, in milliseconds after its boundary (0 when none was late). */
  public synchronized long latestMillis() {
    return latestMillis;
  }
}
