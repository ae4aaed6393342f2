package io.pkibench.workload.api;

import java.util.Map;

/**
 * A workload with figures worth seeing while it runs, beside the engine's operation counts
 * (connections open and failed while a ramp runs): read once a second by the progress line, from
 * another thread, so they must be safe to read so.
 */
public interface LiveCounts {
  /** Name to figure, in the order shown, e.g. open 1200, failed 0. */
  Map<String, Long> liveCounts();
}
