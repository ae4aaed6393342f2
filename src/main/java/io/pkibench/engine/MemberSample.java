package io.pkibench.engine;

import org.HdrHistogram.Histogram;

/**
 * One member of a mix in one interval (about a second) of an iteration, as {@link
 * IntervalSample#members} carries it: the operations it drew that started, succeeded and failed in
 * the interval (counts of the interval, not running totals) and the latencies of its successes
 * recorded in it. {@code latency} is the engine's buffer, reused for the next interval: valid
 * during the listener's call only, as the sample's own.
 */
public record MemberSample(
    String label, long started, long succeeded, long failed, Histogram latency) {}
