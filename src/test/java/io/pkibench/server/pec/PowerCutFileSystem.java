package io.pkibench.server.pec;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The file system of {@code powercut_fs.py} (FUSE, through Debian's python3-fusepy), mounted for a
 * test: file bytes count as on the disk only once fsynced, and {@link #cut} drops the rest, as a
 * power cut would. Closing it unmounts it and ends its process, whatever the test did.
 */
final class PowerCutFileSystem implements AutoCloseable {
  /** Debian's interpreter: the one python3-fusepy installs into (./test installs both). */
  private static final String PYTHON = "/usr/bin/python3";

  private final Path mountpoint;
  private final Path stderr;
  private final Process process;
  private final OutputStream control;
  private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();

  private PowerCutFileSystem(Path mountpoint, Path stderr, Process process) {
    this.mountpoint = mountpoint;
    this.stderr = stderr;
    this.process = process;
    this.control = process.getOutputStream();
    Thread.ofPlatform()
        .daemon()
        .name("powercut-fs-out")
        .start(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) replies.add(line);
              } catch (IOException e) {
                replies.add("(its output ended: " + e.getMessage() + ")");
              }
            });
  }

  /**
   * Mounts a new, empty file system at {@code mountpoint} (made here), its script and stderr kept
   * in {@code work}; fails the test, saying what is missing, where FUSE or fusepy is not there.
   */
  static PowerCutFileSystem mount(Path mountpoint, Path work) throws Exception {
    if (!Files.exists(Path.of("/dev/fuse")))
      fail("/dev/fuse is missing: the power-cut test needs a kernel with FUSE and its device");
    Process probe =
        new ProcessBuilder(PYTHON, "-c", "import fusepy").redirectErrorStream(true).start();
    String said = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!probe.waitFor(30, TimeUnit.SECONDS) || probe.exitValue() != 0)
      fail(
          "the power-cut test needs Debian's python3-fusepy for "
              + PYTHON
              + " (./test installs it as root; or apt-get install python3-fusepy): "
              + said.strip());
    Files.createDirectories(mountpoint);
    Files.createDirectories(work);
    Path script = work.resolve("powercut_fs.py");
    try (InputStream in = PowerCutFileSystem.class.getResourceAsStream("powercut_fs.py")) {
      Files.write(script, in.readAllBytes());
    }
    Path stderr = work.resolve("powercut_fs.stderr");
    Process p =
        new ProcessBuilder(PYTHON, script.toString(), mountpoint.toString())
            .redirectError(stderr.toFile())
            .start();
    PowerCutFileSystem fs = new PowerCutFileSystem(mountpoint, stderr, p);
    try {
      fs.expect("ready", "mounting");
    } catch (Throwable t) {
      fs.close();
      throw t;
    }
    return fs;
  }

  /** Drops every byte not fsynced and fails every call until {@link #up}; what it dropped. */
  String cut() throws Exception {
    return command("cut");
  }

  /** Power back: the file system serves what was on the disk at the cut. */
  void up() throws Exception {
    command("up");
  }

  /** The fsyncs of files the file system received, by top-level directory (e.g. "mail=31"). */
  String fsyncs() throws Exception {
    return command("stats");
  }

  private String command(String command) throws Exception {
    control.write((command + "\n").getBytes(StandardCharsets.UTF_8));
    control.flush();
    return expect(command.equals("stats") ? "fsyncs" : command, command);
  }

  private String expect(String prefix, String doing) throws Exception {
    String line = replies.poll(20, TimeUnit.SECONDS);
    if (line == null || !line.startsWith(prefix))
      fail(
          "the power-cut file system, "
              + doing
              + ": "
              + (line == null ? "no answer in 20 s" : line)
              + "; its stderr: "
              + (Files.exists(stderr) ? Files.readString(stderr).strip() : "(none)"));
    return line;
  }

  @Override
  public void close() throws Exception {
    try {
      control.write("quit\n".getBytes(StandardCharsets.UTF_8));
      control.close();
    } catch (IOException e) {
      // already gone: unmounted below all the same
    }
    if (!process.waitFor(10, TimeUnit.SECONDS))
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    // its own unmount may not have run (killed, or the kernel still busy): a lazy one, for sure
    if (Files.readString(Path.of("/proc/self/mounts")).contains(" " + mountpoint + " ")) {
      new ProcessBuilder("umount", "-l", mountpoint.toString())
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start()
          .waitFor(10, TimeUnit.SECONDS);
    }
  }
}
