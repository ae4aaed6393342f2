package io.pkibench.study;

import io.pkibench.results.CpuProfile;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/** A {@code --profile} run's profile on the terminal: where the CPU went, in a few lines. */
public final class ProfileSummary {
  private ProfileSummary() {}

  /** The three frames with the most self time per workload and side, for the terminal. */
  public static void print(PrintWriter out, CpuProfile profile, Path profileFile) {
    out.println();
    out.println(
        "where the CPU went (self time, JFR samples of the measured iterations; "
            + profileFile
            + "):");
    for (CpuProfile.Workload w : profile.workloads()) {
      for (CpuProfile.Side s : w.sides()) {
        List<String> top =
            s.topFrames().stream()
                .limit(3)
                .map(f -> f.frame() + " " + Math.round(100.0 * f.samples() / s.samples()) + "%")
                .toList();
        out.println(
            "  "
                + w.workload()
                + " · "
                + s.side()
                + " · "
                + s.samples()
                + " samples: "
                + (top.isEmpty() ? "none" : String.join(", ", top)));
      }
    }
    profile.workloads().stream()
        .flatMap(w -> w.sides().stream())
        .map(CpuProfile.Side::flameGraph)
        .filter(Objects::nonNull)
        .findFirst()
        .ifPresent(
            f ->
                out.println(
                    "  flame graphs beside the result, e.g. " + profileFile.resolveSibling(f)));
  }
}
