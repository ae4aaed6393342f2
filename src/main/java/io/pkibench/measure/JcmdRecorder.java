package io.pkibench.measure;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Records another JVM by its pid through {@code jcmd PID JFR.start / JFR.dump / JFR.stop}: the
 * target writes the {@code .jfr} itself, so the file's path must be absolute. {@link #problem}
 * tells up front whether the pid is a JVM jcmd can reach.
 */
public final class JcmdRecorder implements JfrRecorder {
  private static final String NAME = "pkibench-profile";
  private static final long JCMD_TIMEOUT_SECONDS = 60;
  private final Path jcmd;
  private final long pid;

  public JcmdRecorder(Path jcmd, long pid) {
    this.jcmd = jcmd;
    this.pid = pid;
  }

  /** The jcmd of the JDK running this program, beside its {@code java}. */
  public static Path jcmdOfThisJdk() {
    return Path.of(System.getProperty("java.home"), "bin", "jcmd");
  }

  /**
   * Null when {@code pid} is a JVM that {@code jcmd -l} lists (one this user may attach to), else
   * why not, naming {@code flag} and the fix. Asking {@code jcmd -l} is quick; attaching to a
   * process that is not a JVM waits 10 s and more.
   */
  public static String problem(Path jcmd, long pid, String flag) {
    if (!Files.isExecutable(jcmd))
      return flag
          + ": "
          + jcmd
          + " is missing (a JRE without jcmd); run pkibench on a full JDK to profile pid "
          + pid;
    List<String> listed;
    try {
      listed = run(jcmd, List.of("-l"));
    } catch (IOException e) {
      return flag + ": cannot list this machine's JVMs with " + jcmd + " -l: " + e.getMessage();
    }
    boolean jvm =
        listed.stream()
            .map(String::trim)
            .anyMatch(l -> l.equals(String.valueOf(pid)) || l.startsWith(pid + " "));
    if (jvm) return null;
    boolean alive = ProcessHandle.of(pid).isPresent();
    return flag
        + ": pid "
        + pid
        + (alive
            ? " is not a JVM this user can attach to ('jcmd -l' does not list it)"
            : " is not running")
        + "; --profile records JVMs only: give the pid of a Java service (its 'pkibench.ready' line names it), or leave --profile out";
  }

  @Override
  public String side() {
    return "service pid " + pid;
  }

  @Override
  public void start() throws IOException {
    List<String> args =
        new ArrayList<>(
            List.of(String.valueOf(pid), "JFR.start", "name=" + NAME, "settings=profile"));
    args.addAll(
        JfrRecorder
            .secretBearingEventsOff()); // the service's PIN and passwords stay out of the recording
    run(jcmd, args);
  }

  @Override
  public void stopInto(Path jfrFile) throws IOException {
    run(
        jcmd,
        List.of(
            String.valueOf(pid),
            "JFR.dump",
            "name=" + NAME,
            "filename=" + jfrFile.toAbsolutePath()));
    run(jcmd, List.of(String.valueOf(pid), "JFR.stop", "name=" + NAME));
    if (!Files.isRegularFile(jfrFile) || Files.size(jfrFile) == 0)
      throw new IOException("jcmd " + pid + " JFR.dump wrote nothing into " + jfrFile);
  }

  /**
   * Runs jcmd; its output lines, or an exception quoting them when it fails (jcmd says "Exception"
   * and still exits 0 at times).
   */
  private static List<String> run(Path jcmd, List<String> args) throws IOException {
    List<String> command = new ArrayList<>(List.of(jcmd.toString()));
    command.addAll(args);
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out;
    try {
      p.getOutputStream().close();
      out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(JCMD_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(
            String.join(" ", command) + " did not answer within " + JCMD_TIMEOUT_SECONDS + " s");
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException(String.join(" ", command) + " interrupted", e);
    }
    if (p.exitValue() != 0 || out.contains("Exception")) {
      throw new IOException(String.join(" ", command) + " failed: " + out.strip());
    }
    return out.lines().toList();
  }
}
