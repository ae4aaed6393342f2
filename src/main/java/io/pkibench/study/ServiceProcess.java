package io.pkibench.study;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A reference service started as its own JVM ({@code pkibench serve …}), so that its CPU can be
 * measured by pid apart from the load generator's. Its URL and pid are read from the line it prints
 * when it listens; it is stopped (SIGTERM, then SIGKILL) on close.
 */
public final class ServiceProcess implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("(https?://\\S+).*\\(pid (\\d+)\\)");
  private final Process process;
  private final String url;
  private final long pid;

  private ServiceProcess(Process process, String url, long pid) {
    this.process = process;
    this.url = url;
    this.pid = pid;
  }

  /** {@code command}: the java command line of this program; {@code args}: e.g. serve signer --port 0. */
  public static ServiceProcess start(List<String> command, List<String> args, Map<String, String> env) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(command);
    cmd.addAll(args);
    ProcessBuilder builder = new ProcessBuilder(cmd).redirectErrorStream(true);
    builder.environment().clear();
    builder.environment().putAll(env);
    Process process = builder.start();
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    CompletableFuture<Matcher> ready = CompletableFuture.supplyAsync(() -> {
      try {
        for (String line = out.readLine(); line != null; line = out.readLine()) {
          Matcher m = LISTENING.matcher(line);
          if (m.find()) return m;
        }
      } catch (IOException e) {
        // the process died: reported below
      }
      return null;
    });
    Matcher m;
    try {
      m = ready.get(60, TimeUnit.SECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      m = null;
    }
    if (m == null) {
      process.destroyForcibly();
      throw new IOException("the service '" + String.join(" ", args) + "' did not start within 60 s (exit " + (process.isAlive() ? "none" : process.exitValue()) + ")");
    }
    // Keep draining its output so that it never blocks on a full pipe.
    Thread drain = new Thread(() -> {
      try {
        while (out.readLine() != null) { }
      } catch (IOException e) {
        // the process ended
      }
    }, "pkibench-service-output");
    drain.setDaemon(true);
    drain.start();
    return new ServiceProcess(process, m.group(1), Long.parseLong(m.group(2)));
  }

  public String url() {
    return url;
  }

  public long pid() {
    return pid;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
  }
}
