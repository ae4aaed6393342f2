package io.pkibench.cli;

import io.pkibench.results.RunResult;
import io.pkibench.session.RunSession;
import io.pkibench.text.OutsideText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What a finished run's result says beyond its table: the levels where every operation failed. */
final class RunVerdict {
  private RunVerdict() {}

  /**
   * One line per level whose every operation failed: "every operation failed at concurrency N:
   * CAUSE", the most frequent cause.
   */
  static List<String> everyOperationFailed(RunResult result) {
    List<String> lines = new ArrayList<>();
    for (var w : result.workloads()) {
      for (var level : w.levels()) {
        if (!RunSession.everyOperationFailed(level)) continue;
        String where =
            level.openLoop() == null
                ? "concurrency " + level.concurrency()
                : String.format(
                    Locale.ROOT,
                    "%.1f/s (concurrency %d)",
                    level.openLoop().targetRate(),
                    level.concurrency());
        String cause =
            level.errors().isEmpty()
                ? "no cause recorded"
                : OutsideText.forTerminal(level.errors().get(0).cause());
        lines.add(
            (result.workloads().size() > 1 ? w.name() + ": " : "")
                + "every operation failed at "
                + where
                + ": "
                + cause);
      }
    }
    return lines;
  }
}
