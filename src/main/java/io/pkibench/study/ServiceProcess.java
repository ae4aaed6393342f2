package io.pkibench.study;

import io.pkibench.server.ReadyLine;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A reference service started as its own JVM ({@code pkibench serve …}), so that its CPU can be
 * measured by pid apart from the load generator's. It is ready when it prints its {@link
 * ReadyLine}; it is stopped (SIGTERM, then SIGKILL) on close.
 */
public final class ServiceProcess implements AutoCloseable {
  private static final int KEPT_OUTPUT_LINES = 10;
  private final Process process;
  private final ReadyLine ready;

  private ServiceProcess(Process process, ReadyLine ready) {
    this.process = process;
    this.ready = ready;
  }

  /**
   * {@code command}: the java command line of this program; {@code args}: e.g. serve signer --port
   * 0.
   */
  public static ServiceProcess start(
      List<String> command, List<String> args, Map<String, String> env)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(command);
    cmd.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().putAll(env);
    Process process = builder.start();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    Deque<String> lastLines = new ArrayDeque<>();
    CompletableFuture<ReadyLine> started =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                  var r = ReadyLine.parse(line);
                  if (r.isPresent()) return r.get();
                  synchronized (lastLines) {
                    if (lastLines.size() == KEPT_OUTPUT_LINES) lastLines.removeFirst();
                    lastLines.addLast(line);
                  }
                }
              } catch (IOException e) {
                // the process died: reported below
              }
              return null;
            });
    ReadyLine ready;
    try {
      ready = started.get(60, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException e) {
      ready = null;
    }
    if (ready == null) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      String said;
      synchronized (lastLines) {
        said = String.join(" | ", lastLines);
      }
      throw new IOException(
          "the service 'pkibench "
              + String.join(" ", args)
              + "' did not become ready within 60 s (exit "
              + (process.isAlive() ? "none" : process.exitValue())
              + ")"
              + (said.isEmpty() ? "" : "; it said: " + said));
    }
    // Keep draining its output so that it never blocks on a full pipe.
    Thread drain =
        new Thread(
            () -> {
              try {
                while (out.readLine() != null) {}
              } catch (IOException e) {
                // the process ended
              }
            },
            "pkibench-service-output");
    drain.setDaemon(true);
    drain.start();
    return new ServiceProcess(process, ready);
  }

  public String url() {
    return ready.url();
  }

  public long pid() {
    return ready.pid();
  }

  /** SIGKILL, and wait for the process to be gone. */
  public void kill() throws InterruptedException {
    // a serve that runs a server of its own (Pebble, nginx) takes it along, as a crash of the
    // machine's service would: a server left behind would hold the port its restart needs
    List<ProcessHandle> servers = process.descendants().toList();
    servers.forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    for (ProcessHandle server : servers) {
      try {
        server.onExit().get(10, TimeUnit.SECONDS);
      } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
        // gone already, or will be: the restart says so if its port is still taken
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) kill();
  }
}
