package io.pkibench.dashboard;

import io.pkibench.measure.CpuAffinity;
import io.pkibench.measure.CpuSet;
import io.pkibench.text.OutsideText;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The measured process's end of its page's process ({@link LivePageServer}): starts it, sends it a
 * reading a second, and stops it. What stays here is one reading a second put on a pipe; drawing
 * and serving the page, and the JIT compiling that code for minutes, are the other process's.
 */
final class LivePageProcess implements AutoCloseable {
  static final Duration START_WITHIN = Duration.ofSeconds(30);

  /** How long the end (the report, a few MB at most) may take to reach the page's process. */
  static final Duration SEND_WITHIN = Duration.ofSeconds(10);

  /**
   * A small JVM: the page keeps 15 minutes of seconds and a report; C1 alone, since compiling the
   * page's code is most of what it costs and C1's compiling is the cheaper.
   */
  static final List<String> JVM_OPTIONS =
      List.of(
          "-Xmx256m",
          "-XX:+UseSerialGC",
          "-XX:TieredStopAtLevel=1",
          "-XX:CICompilerCount=1",
          "-Xss512k",
          "-XX:-UsePerfData");

  private final Process process;
  private final BufferedWriter toPage;
  private final Consumer<String> log;
  private final String url;
  private final CpuSet cpus;
  private final CompletableFuture<Double> cpuSeconds;
  private volatile boolean ended;

  private LivePageProcess(
      Process process,
      String url,
      CpuSet cpus,
      CompletableFuture<Double> cpuSeconds,
      Consumer<String> log) {
    this.process = process;
    this.url = url;
    this.cpus = cpus;
    this.cpuSeconds = cpuSeconds;
    this.log = log;
    this.toPage = pipeWriter(process.getOutputStream());
  }

  /** The writer the readings go through to {@code pipe}: one, so the warm-up runs the same code. */
  static BufferedWriter pipeWriter(OutputStream pipe) {
    return new BufferedWriter(new OutputStreamWriter(pipe, StandardCharsets.UTF_8), 1 << 16);
  }

  /** {@code line} and its end onto {@code to}, flushed: what the page's process reads next. */
  static void writeLine(Writer to, CharSequence line) throws IOException {
    to.append(line);
    to.write('\n');
    to.flush();
  }

  /**
   * The CPUs the page's process is put on: those online that this process may not use, when it is
   * held to some (a run under {@code taskset}) and others are online, so that drawing and answering
   * the page take nothing from the measured process's cores, as a browser on another machine would
   * not; null (where this process may run, as started) otherwise.
   */
  static CpuSet placement(CpuSet mine, CpuSet online) {
    List<Integer> others = online.without(mine);
    return others.isEmpty() ? null : new CpuSet(others);
  }

  /** {@link #placement} on this machine; null where its CPUs cannot be read (not Linux). */
  static CpuSet placementHere() {
    try {
      String online = Files.readString(Path.of("/sys/devices/system/cpu/online"));
      return placement(CpuAffinity.ofThisProcess(), CpuSet.parse(online));
    } catch (IOException | RuntimeException unreadable) {
      return null;
    }
  }

  /**
   * This JVM's java and class path, running {@link LivePageServer} with {@code args}, on {@code
   * cpus} (taskset) unless null.
   */
  static List<String> command(LivePageServer.Args args, CpuSet cpus) {
    List<String> command = new ArrayList<>();
    if (cpus != null) command.addAll(CpuAffinity.launchPrefix(cpus));
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(JVM_OPTIONS);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(LivePageServer.class.getName());
    command.addAll(args.list());
    return command;
  }

  /**
   * Starts the page's process and waits until it listens; its complaints go to {@code log}. A page
   * that cannot listen (the port taken) fails the start with its reason.
   */
  static LivePageProcess start(LivePageServer.Args args, Consumer<String> log) throws IOException {
    CpuSet placed = placementHere();
    Process started;
    try {
      started = new ProcessBuilder(command(args, placed)).start();
    } catch (IOException noTaskset) {
      // taskset is util-linux's, on every Debian; without it, where this process runs
      placed = null;
      started = new ProcessBuilder(command(args, null)).start();
    }
    Process process = started;
    CpuSet cpus = placed;
    CompletableFuture<String> listening = new CompletableFuture<>();
    CompletableFuture<Double> cpu = new CompletableFuture<>();
    List<String> said = new ArrayList<>();
    Thread.ofPlatform()
        .daemon()
        .name("pkibench-dashboard-page-out")
        .start(() -> readOut(process, listening, cpu));
    Thread errors =
        Thread.ofPlatform()
            .daemon()
            .name("pkibench-dashboard-page-err")
            .start(
                () -> {
                  try (BufferedReader err = reader(process)) {
                    for (String line = err.readLine(); line != null; line = err.readLine()) {
                      String safe = OutsideText.forTerminal(line, 500);
                      synchronized (said) {
                        if (said.size() < 20) said.add(safe);
                      }
                      if (listening.isDone()) log.accept("dashboard: " + safe);
                    }
                  } catch (IOException gone) {
                    // the process ended
                  }
                });
    try {
      String url = listening.get(START_WITHIN.toSeconds(), TimeUnit.SECONDS);
      return new LivePageProcess(process, url, cpus, cpu, log);
    } catch (ExecutionException | TimeoutException e) {
      process.destroyForcibly();
      try {
        process.waitFor(5, TimeUnit.SECONDS);
        errors.join(Duration.ofSeconds(2)); // what it said before it ended: its reason
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
      String why;
      synchronized (said) {
        why = String.join("; ", said);
      }
      if (!why.isEmpty()) throw new IOException(why);
      throw new IOException(
          e instanceof TimeoutException
              ? "--dashboard: the page's process did not listen within "
                  + START_WITHIN.toSeconds()
                  + " s"
              : "--dashboard: the page's process ended before it listened, saying nothing");
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new IOException("--dashboard: interrupted while the page's process started", e);
    }
  }

  private static BufferedReader reader(Process process) {
    return new BufferedReader(
        new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
  }

  /** Its standard output: {@code listening URL} first, {@code cpu SECONDS} as it ends. */
  private static void readOut(
      Process process, CompletableFuture<String> listening, CompletableFuture<Double> cpu) {
    try (BufferedReader out =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith("listening ")) listening.complete(line.substring(10).strip());
        else if (line.startsWith("cpu ")) cpu.complete(Double.parseDouble(line.substring(4)));
      }
    } catch (IOException | RuntimeException gone) {
      // the process ended: what it did not say stays unknown
    }
    listening.completeExceptionally(new IOException("ended before it listened"));
    cpu.complete(Double.NaN);
  }

  String url() {
    return url;
  }

  long pid() {
    return process.pid();
  }

  /** Where it was put: the CPUs, or null where this process runs. */
  CpuSet cpus() {
    return cpus;
  }

  /**
   * One message; when the page's process has gone, said once and the run goes on without its page.
   */
  void send(PageMessage message) {
    String line;
    try {
      line = message.line();
    } catch (IOException e) {
      throw new IllegalStateException("a page message Jackson cannot write", e);
    }
    send(line);
  }

  /** One line as written ({@link PageMessage#readingLine}); as {@link #send(PageMessage)}. */
  synchronized void send(CharSequence line) {
    if (ended) return;
    try {
      writeLine(toPage, line);
    } catch (IOException e) {
      ended = true;
      log.accept(
          "dashboard: the page's process has ended ("
              + (process.isAlive() ? e.getMessage() : "exit " + process.exitValue())
              + "); the run goes on without its page");
    }
  }

  /** {@link #send}, waiting at most {@link #SEND_WITHIN}: a page that stopped reading is ended. */
  void sendWithin(PageMessage message) {
    CompletableFuture<Void> sent = CompletableFuture.runAsync(() -> send(message));
    try {
      sent.get(SEND_WITHIN.toSeconds(), TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      log.accept("dashboard: the page's process took no more input; it is stopped");
      process.destroyForcibly();
    } catch (ExecutionException e) {
      log.accept("dashboard: the end could not be sent to the page (" + e.getCause() + ")");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Ends its input, so that it stops serving and ends; stopped by force after 5 s. Returns the CPU
   * seconds it said it used, NaN when it did not say.
   */
  double stop() {
    // not under send's lock: a send blocked on a page that stopped reading fails as this closes
    ended = true;
    try {
      process.getOutputStream().close();
    } catch (IOException gone) {
      // ended already
    }
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) process.destroyForcibly();
      }
      return cpuSeconds.get(2, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
      return Double.NaN;
    } catch (ExecutionException | TimeoutException e) {
      return Double.NaN;
    }
  }

  @Override
  public void close() {
    stop();
  }
}
