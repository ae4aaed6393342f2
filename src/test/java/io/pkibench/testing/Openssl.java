package io.pkibench.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Runs the openssl command line, the independent checker of what pkibench produces. */
public final class Openssl {
  private Openssl() {}

  /**
   * "EXIT:OUTPUT" (stdout and stderr together), so that a failed assertion shows what openssl said.
   */
  public static String run(Path workDir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
    if (workDir != null) builder.directory(workDir.toFile());
    Process p = builder.start();
    String output = new String(p.getInputStream().readAllBytes());
    return p.waitFor() + ":" + output;
  }

  public static String run(String... args) throws Exception {
    return run(null, args);
  }

  public static boolean succeeded(String result) {
    return result.startsWith("0:");
  }
}
