package io.pkibench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Another program run as a peer (Go's client, openssl), bounded in time. */
public final class Commands {
  private Commands() {}

  /**
   * Runs {@code command} in {@code dir}, asserts it ends within a minute with {@code expectedExit},
   * and returns its stdout and stderr together.
   */
  public static String run(Path dir, List<String> command, int expectedExit) throws Exception {
    Process p =
        new ProcessBuilder(command).redirectErrorStream(true).directory(dir.toFile()).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), command + " did not finish");
    assertEquals(expectedExit, p.exitValue(), command + " -> " + out);
    return out;
  }
}
