package io.pkibench.results;

/** Every operation started is counted once, as succeeded or failed. */
public record Counts(long started, long succeeded, long failed) {}
