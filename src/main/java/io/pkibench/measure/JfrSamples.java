package io.pkibench.measure;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a JVM's CPU went, from a {@code .jfr}: the {@code jdk.ExecutionSample} events (a thread
 * caught running Java code) that fall in the given windows, counted by the frame on top of each
 * stack, the method that was itself running: its self time. Samples of native code (a read, an
 * fsync) are not in these events.
 */
public final class JfrSamples {
  static final String EXECUTION_SAMPLE = "jdk.ExecutionSample";

  /** A span of wall-clock time a workload was measured in. */
  public record Window(Instant from, Instant to) {
    boolean holds(Instant t) {
      return !t.isBefore(from) && !t.isAfter(to);
    }
  }

  /** A method by its class and name, and how many samples caught it on top of the stack. */
  public record SelfTime(String frame, long samples) {}

  /** The samples in the windows, and the {@code limit} frames with the most, most first. */
  public record Summary(long samples, List<SelfTime> top) {}

  private JfrSamples() {}

  public static Summary topFrames(Path jfrFile, List<Window> windows, int limit)
      throws IOException {
    Map<String, Long> counts = new HashMap<>();
    long total = 0;
    try (RecordingFile file = new RecordingFile(jfrFile)) {
      while (file.hasMoreEvents()) {
        RecordedEvent e = file.readEvent();
        if (!e.getEventType().getName().equals(EXECUTION_SAMPLE)) continue;
        Instant at = e.getStartTime();
        if (windows.stream().noneMatch(w -> w.holds(at))) continue;
        var stack = e.getStackTrace();
        if (stack == null || stack.getFrames().isEmpty()) continue;
        total++;
        counts.merge(name(stack.getFrames().get(0)), 1L, Long::sum);
      }
    }
    List<SelfTime> top =
        counts.entrySet().stream()
            .map(c -> new SelfTime(c.getKey(), c.getValue()))
            .sorted(
                Comparator.comparingLong(SelfTime::samples)
                    .reversed()
                    .thenComparing(SelfTime::frame))
            .limit(limit)
            .toList();
    return new Summary(total, top);
  }

  private static String name(RecordedFrame f) {
    var m = f.getMethod();
    return m == null ? "(unknown)" : m.getType().getName() + "." + m.getName();
  }
}
