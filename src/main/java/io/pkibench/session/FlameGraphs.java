package io.pkibench.session;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import one.convert.Arguments;
import one.convert.JfrToFlame;

/**
 * Flame graphs of a recording's CPU samples in a span of time, drawn by async-profiler's JFR
 * converter (the library its {@code jfrconv} runs), in this JVM: an HTML page beside the result,
 * not drawn by us.
 */
final class FlameGraphs {
  /** What the report says drew them. */
  static final String RENDERER =
      "async-profiler's JFR converter (tools.profiler:jfr-converter 4.2, JfrToFlame)";

  private FlameGraphs() {}

  /**
   * The execution samples of {@code jfr} stamped between {@code from} and {@code to} as a flame
   * graph in {@code out}. Its default event is the JDK's execution sample: asked for "--cpu", the
   * converter looks for async-profiler's own event and draws an empty graph from a JDK recording.
   */
  static void draw(Path jfr, Instant from, Instant to, String title, Path out) throws IOException {
    Arguments args =
        new Arguments(
            "--from",
            String.valueOf(from.toEpochMilli()),
            "--to",
            String.valueOf(to.toEpochMilli()),
            "--title",
            title);
    JfrToFlame.convert(jfr.toString(), out.toString(), args);
  }
}
