package io.pkibench.analysis;

/** Latencies in the verdict's sentences: whole units where they are whole ("50 ms", "200 µs"). */
final class HumanNanos {
  private HumanNanos() {}

  static String of(long nanos) {
    if (nanos >= 1_000_000_000L) return TrimmedNumber.of(nanos / 1e9, 1) + " s";
    if (nanos >= 1_000_000L) return TrimmedNumber.of(nanos / 1e6, 1) + " ms";
    if (nanos >= 1_000L) return TrimmedNumber.of(nanos / 1e3, 1) + " µs";
    return nanos + " ns";
  }
}
