package io.pkibench.cli;

import io.pkibench.study.CheckSizing;
import io.pkibench.study.CpuQuota;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --check-sizing} and where its cgroup goes, for the studies that size a service they start
 * (restpki, pix).
 */
final class CheckSizingOptions {
  @Option(
      names = "--check-sizing",
      description =
          "after the other steps, each sized step measured again with the services' CPU limited by a cgroup cpu quota (as root, or in a"
              + " delegated cgroup) to 0.5 core, the capacity at 1 core predicted from that, then measured at 1 core: predicted, measured and the miss")
  boolean checkSizing;

  @Option(
      names = "--cgroup-root",
      paramLabel = "DIR",
      description =
          "with --check-sizing: the cgroup the study makes its group under, v1's cpu controller or a v2 cgroup with cpu"
              + " (default: /sys/fs/cgroup/cpu, else /sys/fs/cgroup)")
  Path cgroupRoot;

  /** The check asked for, or null; a misplaced --cgroup-root added to {@code problems}. */
  CheckSizing checkSizing(List<String> problems, CliContext ctx) {
    if (cgroupRoot != null && !checkSizing)
      problems.add("--cgroup-root: only with --check-sizing, which limits the services' CPU there");
    if (!checkSizing) return null;
    return new CheckSizing(
        cgroupRoot == null ? CpuQuota.DEFAULT_ROOTS : List.of(ctx.resolve(cgroupRoot)));
  }
}
