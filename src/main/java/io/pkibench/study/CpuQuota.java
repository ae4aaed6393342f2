package io.pkibench.study;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A CPU limit on processes, by the kernel's cpu controller: a group of our own under a cgroup
 * {@code root}, the processes moved into it ({@code cgroup.procs} moves every thread), its quota
 * set per period (v1 {@code cpu.cfs_quota_us}/{@code cpu.cfs_period_us}, v2 {@code cpu.max}).
 * Closing moves its processes back to the root and removes the group, so that nothing of ours is
 * left in the kernel's tree.
 */
public final class CpuQuota implements AutoCloseable {
  /**
   * Where cgroup v1 mounts the cpu controller, then the cgroup v2 root: the roots tried when none
   * is given.
   */
  public static final List<Path> DEFAULT_ROOTS =
      List.of(Path.of("/sys/fs/cgroup/cpu"), Path.of("/sys/fs/cgroup"));

  /** The scheduler's period: the quota is this many microseconds of CPU times the cores. */
  static final long PERIOD_MICROS = 100_000;

  private static final AtomicInteger GROUPS = new AtomicInteger();

  private final Path root;
  private final Path group;
  private final boolean v2;
  private boolean closed;

  private CpuQuota(Path root, Path group, boolean v2) {
    this.root = root;
    this.group = group;
    this.v2 = v2;
  }

  /**
   * A new group {@code pkibench-PID-N} under the first of {@code roots} where one can be made,
   * unlimited until {@link #limit}.
   */
  public static CpuQuota create(List<Path> roots) throws IOException {
    List<String> tried = new ArrayList<>();
    for (Path root : roots) {
      Path group =
          root.resolve(
              "pkibench-" + ProcessHandle.current().pid() + "-" + GROUPS.incrementAndGet());
      try {
        return make(root, group);
      } catch (IOException e) {
        tried.add(e.getMessage());
      }
    }
    throw new IOException(refusal(tried));
  }

  /**
   * Why no group can be made under {@code roots} (each root tried, a group made and removed), or
   * empty when one can.
   */
  public static Optional<String> problem(List<Path> roots) {
    try {
      create(roots).close();
      return Optional.empty();
    } catch (IOException e) {
      return Optional.of(e.getMessage());
    }
  }

  private static String refusal(List<String> tried) {
    return "cannot limit a process's CPU here: "
        + String.join("; ", tried)
        + ". Run as root, or delegate a cgroup with the cpu controller to this user (v2: a directory whose cgroup.subtree_control"
        + " has +cpu, e.g. systemd-run --user -p Delegate=yes) and give it with --cgroup-root DIR";
  }

  private static CpuQuota make(Path root, Path group) throws IOException {
    boolean v1 = Files.exists(root.resolve("cpu.cfs_quota_us"));
    boolean v2 = !v1 && Files.exists(root.resolve("cgroup.controllers"));
    if (!v1 && !v2) {
      throw new IOException(
          root
              + " is not a cgroup with the cpu controller (neither v1's cpu.cfs_quota_us nor v2's cgroup.controllers in it)");
    }
    if (v2) {
      String controllers = Files.readString(root.resolve("cgroup.controllers")).strip();
      if (!List.of(controllers.split("\\s+")).contains("cpu")) {
        throw new IOException(
            "cgroup v2 at "
                + root
                + " has no cpu controller (its cgroup.controllers: '"
                + controllers
                + "')");
      }
      Path subtree = root.resolve("cgroup.subtree_control");
      if (!List.of(Files.readString(subtree).strip().split("\\s+")).contains("cpu")) {
        try {
          Files.writeString(subtree, "+cpu");
        } catch (IOException e) {
          throw new IOException(
              "cgroup v2 at "
                  + root
                  + ": cannot enable the cpu controller for its children ("
                  + subtree
                  + ": "
                  + e.getMessage()
                  + ")");
        }
      }
    }
    try {
      Files.createDirectory(group);
    } catch (IOException e) {
      throw new IOException(
          "cgroup "
              + (v2 ? "v2" : "v1")
              + " at "
              + root
              + ": cannot make a group there ("
              + e
              + ")");
    }
    CpuQuota quota = new CpuQuota(root, group, v2);
    // A plain directory takes a mkdir too (and root ignores its mode): only the kernel's own files
    // prove it is a cgroup.
    if (!Files.exists(quota.quotaFile())) {
      Files.deleteIfExists(group);
      throw new IOException(
          root
              + " is not a cgroup: a directory made in it has no "
              + quota.quotaFile().getFileName());
    }
    return quota;
  }

  /** The file the quota is written to: v1's {@code cpu.cfs_quota_us}, v2's {@code cpu.max}. */
  Path quotaFile() {
    return group.resolve(v2 ? "cpu.max" : "cpu.cfs_quota_us");
  }

  /** The group's directory. */
  public Path group() {
    return group;
  }

  /** Moves the process {@code pid}, with all its threads, into the group. */
  public void add(long pid) throws IOException {
    Files.writeString(group.resolve("cgroup.procs"), Long.toString(pid));
  }

  /** The processes in the group now. */
  public List<Long> pids() throws IOException {
    return Files.readAllLines(group.resolve("cgroup.procs"), StandardCharsets.US_ASCII).stream()
        .filter(l -> !l.isBlank())
        .map(l -> Long.parseLong(l.strip()))
        .toList();
  }

  /**
   * At most {@code cores} of CPU time per second for the group's processes together, e.g. 0.5: half
   * a core.
   */
  public void limit(double cores) throws IOException {
    if (!(cores > 0))
      throw new IllegalArgumentException("a CPU limit is more than 0 cores, not " + cores);
    long quotaMicros = Math.round(cores * PERIOD_MICROS);
    if (v2) {
      Files.writeString(group.resolve("cpu.max"), quotaMicros + " " + PERIOD_MICROS);
    } else {
      // The period first: a quota checked against the old period could be refused.
      Files.writeString(group.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_MICROS));
      Files.writeString(group.resolve("cpu.cfs_quota_us"), Long.toString(quotaMicros));
    }
  }

  /** The group and its quota, for the study's log and notes. */
  public String describe() {
    String setting;
    try {
      setting =
          v2
              ? "cpu.max " + Files.readString(group.resolve("cpu.max")).strip()
              : "cpu.cfs_quota_us "
                  + Files.readString(group.resolve("cpu.cfs_quota_us")).strip()
                  + " per cpu.cfs_period_us "
                  + Files.readString(group.resolve("cpu.cfs_period_us")).strip();
    } catch (IOException e) {
      setting = "its settings unreadable (" + e.getMessage() + ")";
    }
    return String.format(Locale.ROOT, "cgroup %s %s, %s", v2 ? "v2" : "v1", group, setting);
  }

  /**
   * Moves every process of the group back to the root, then removes the group; a process that ended
   * meanwhile is skipped.
   */
  @Override
  public void close() throws IOException {
    if (closed) return;
    closed = true;
    if (!Files.isDirectory(group)) return;
    for (long pid : pids()) {
      try {
        Files.writeString(root.resolve("cgroup.procs"), Long.toString(pid));
      } catch (IOException e) {
        if (ProcessHandle.of(pid).isPresent())
          throw new IOException(
              "cannot move pid "
                  + pid
                  + " out of "
                  + group
                  + " back to "
                  + root
                  + ": "
                  + e.getMessage(),
              e);
      }
    }
    Files.delete(
        group); // rmdir: a cgroup's directory goes with its kernel files once it has no process
  }
}
