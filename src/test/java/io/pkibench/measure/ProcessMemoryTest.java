package io.pkibench.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ProcessMemory against /proc read here, independently: the Rss of {@code smaps_rollup} (the
 * kernel's walk of the mappings, not the VmRSS counter the code reads) of a parent and its child,
 * each holding a known block of written memory.
 */
class ProcessMemoryTest {

  /** Parent holds 64 MiB, its child 32 MiB; both wait on stdin so nothing moves while read. */
  private static final String PARENT =
      String.join(
          "\n",
          "import subprocess, sys",
          "child = subprocess.Popen([sys.executable, '-c',",
          "    'import sys\\nb = b\"x\" * (32 << 20)\\nprint(\"up\", flush=True)\\nsys.stdin.readline()'],",
          "    stdin=subprocess.PIPE, stdout=subprocess.PIPE)",
          "child.stdout.readline()",
          "a = b'y' * (64 << 20)",
          "print(child.pid, flush=True)",
          "sys.stdin.readline()",
          "child.stdin.close()",
          "child.wait()");

  @Test
  @Timeout(60)
  void rssKb_parentAndChildHoldingKnownMemory_matchesSmapsRollupOfBoth() throws Exception {
    Process parent =
        new ProcessBuilder("python3", "-c", PARENT)
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    try {
      var out =
          new BufferedReader(
              new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      assertTrue(line != null, "python3 is needed on PATH; the parent printed nothing");
      long child = Long.parseLong(line.trim());

      long before = rollupRssKb(parent.pid()) + rollupRssKb(child);
      long read = ProcessMemory.rssKb(parent.pid());
      long after = rollupRssKb(parent.pid()) + rollupRssKb(child);
      String seen =
          String.format(
              Locale.ROOT,
              "ProcessMemory read %d KB; smaps_rollup of parent + child %d KB before, %d KB after",
              read,
              before,
              after);
      System.out.println(seen);
      assertTrue(before >= 96 * 1024, "the test's own reading sees the 96 MiB held: " + seen);
      assertTrue(read >= 0.95 * Math.min(before, after), "reads too little: " + seen);
      assertTrue(read <= 1.05 * Math.max(before, after), "reads too much: " + seen);
    } finally {
      parent.getOutputStream().close();
      if (!parent.waitFor(10, TimeUnit.SECONDS)) parent.destroyForcibly();
    }
  }

  @Test
  @Timeout(30)
  void rssKb_processGone_failsNamingThePidInsteadOfAFigure() throws Exception {
    Process gone = new ProcessBuilder("python3", "-c", "pass").start();
    assertTrue(gone.waitFor(20, TimeUnit.SECONDS), "python3 -c pass ended");
    assertEquals(0, gone.exitValue(), "python3 is needed on PATH");
    var e = assertThrows(IllegalStateException.class, () -> ProcessMemory.rssKb(gone.pid()));
    assertTrue(e.getMessage().contains(Long.toString(gone.pid())), e.getMessage());
    assertTrue(e.getMessage().contains("unknown"), e.getMessage());
  }

  /** Rss of {@code /proc/PID/smaps_rollup}, in kB, parsed here. */
  static long rollupRssKb(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup"))) {
      String[] f = line.trim().split(" +");
      if (f[0].equals("Rss:")) {
        assertEquals("kB", f[2], line);
        return Long.parseLong(f[1]);
      }
    }
    throw new AssertionError("no Rss line in /proc/" + pid + "/smaps_rollup");
  }
}
