package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@org.junit.jupiter.api.Timeout(value = 2, unit = TimeUnit.MINUTES)
class CpuQuotaTest {

  /**
   * The real cgroup fs: a group made, a real process moved in and limited, the group gone after
   * close with the process alive.
   */
  @Test
  void limit_realChildProcess_writesQuotaMovesProcessAndCloseRemovesGroup() throws Exception {
    Assertions.assertTrue(
        CpuQuota.problem(CpuQuota.DEFAULT_ROOTS).isEmpty(),
        "--check-sizing needs a writable cgroup cpu controller: run the tests as root, as ./test does on CI; "
            + CpuQuota.problem(CpuQuota.DEFAULT_ROOTS));
    Process sleeper = new ProcessBuilder("sleep", "60").start();
    try {
      Path group;
      try (CpuQuota quota = CpuQuota.create(CpuQuota.DEFAULT_ROOTS)) {
        group = quota.group();
        assertTrue(
            group
                .getFileName()
                .toString()
                .startsWith("pkibench-" + ProcessHandle.current().pid() + "-"),
            group.toString());
        assertTrue(Files.isDirectory(group));
        quota.add(sleeper.pid());
        quota.limit(0.5);
        assertEquals(
            List.of(sleeper.pid()), quota.pids(), "the process is in the group's cgroup.procs");
        assertTrue(
            Files.readAllLines(Path.of("/proc/" + sleeper.pid() + "/cgroup")).stream()
                .anyMatch(l -> l.endsWith("/" + group.getFileName())),
            "the kernel says the process is in the group");
        if (Files.exists(group.resolve("cpu.cfs_quota_us"))) {
          assertEquals("100000", Files.readString(group.resolve("cpu.cfs_period_us")).strip());
          assertEquals("50000", Files.readString(group.resolve("cpu.cfs_quota_us")).strip());
        } else {
          assertEquals("50000 100000", Files.readString(group.resolve("cpu.max")).strip());
        }
        quota.limit(1.0);
        assertTrue(quota.describe().contains("100000"), quota.describe());
      }
      assertFalse(Files.exists(group), "close removes the group");
      assertTrue(sleeper.isAlive(), "the process was moved back, not killed");
      assertFalse(
          Files.readAllLines(Path.of("/proc/" + sleeper.pid() + "/cgroup")).stream()
              .anyMatch(l -> l.contains(group.getFileName().toString())));
    } finally {
      sleeper.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  /**
   * A directory that is no cgroup (read-only besides): refused, naming it and the fix, and nothing
   * left in it.
   */
  @Test
  void create_rootNotAWritableCgroup_refusesNamingTheRootAndTheFix(@TempDir Path dir)
      throws Exception {
    Path root =
        Files.createDirectory(
            dir.resolve("not-a-cgroup"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("r-xr-xr-x")));
    IOException e = assertThrows(IOException.class, () -> CpuQuota.create(List.of(root)));
    assertTrue(
        e.getMessage().contains(root.toString()) && e.getMessage().contains("not a cgroup"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("Run as root") && e.getMessage().contains("--cgroup-root"),
        e.getMessage());
    try (var left = Files.list(root)) {
      assertEquals(0, left.count(), "no group left behind");
    }
    assertEquals(e.getMessage(), CpuQuota.problem(List.of(root)).orElseThrow());
  }

  @Test
  void limit_zeroCores_isRefused() throws Exception {
    Assertions.assertTrue(
        CpuQuota.problem(CpuQuota.DEFAULT_ROOTS).isEmpty(),
        "--check-sizing needs a writable cgroup cpu controller: run the tests as root, as ./test does on CI; "
            + CpuQuota.problem(CpuQuota.DEFAULT_ROOTS));
    try (CpuQuota quota = CpuQuota.create(CpuQuota.DEFAULT_ROOTS)) {
      assertThrows(IllegalArgumentException.class, () -> quota.limit(0));
    }
  }
}
