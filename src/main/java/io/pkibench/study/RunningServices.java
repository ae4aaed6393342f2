package io.pkibench.study;

import io.pkibench.measure.CpuAffinity;
import io.pkibench.measure.CpuMeter;
import io.pkibench.measure.ProcessGroupCpuMeter;
import io.pkibench.results.StudyRecord;
import io.pkibench.server.LoopbackPort;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A study's services: each its own JVM on a loopback port chosen before any starts, so that steps
 * can be planned (and validated) with their URLs first. CPU is summed over the pids of all of them,
 * and a restart keeps each port and follows the new pid. Closing stops every one.
 */
public final class RunningServices implements AutoCloseable {
  private final List<String> javaCommand;

  /** The cores' prefix (taskset), empty when services and client share every core. */
  private volatile List<String> launchPrefix;

  private final Map<String, String> env;
  private final Consumer<String> log;
  private volatile CpuSplit cpus;
  private final Map<String, Entry> services = new LinkedHashMap<>();

  /**
   * A step's CPU when its service runs on another machine: none read, so the table says "no CPU
   * measured".
   */
  public static final String NO_CPU = "none";

  /**
   * {@code {port:NAME}} in a service's arguments: another service's port, e.g. a PEC provider's
   * peer.
   */
  private static final Pattern PORT_OF = Pattern.compile("\\{port:([^}]+)}");

  /**
   * Set when the study ends: a fault scheduled on another thread must not start a service after
   * that.
   */
  private volatile boolean closed;

  /**
   * The services' CPU limit ({@code --check-sizing}), made at the first {@link #limitCpu}; null
   * while unlimited.
   */
  private CpuQuota quota;

  private static final class Entry {
    ServiceSpec spec;
    final int port;
    final List<Long> pids = new ArrayList<>();
    ServiceProcess process;

    Entry(ServiceSpec spec, int port) {
      this.spec = spec;
      this.port = port;
    }
  }

  private RunningServices(
      List<String> javaCommand, Map<String, String> env, Consumer<String> log, CpuSplit cpus) {
    this.cpus = cpus;
    this.launchPrefix =
        cpus.isShared() ? List.of() : List.copyOf(CpuAffinity.launchPrefix(cpus.services()));
    this.javaCommand = List.copyOf(javaCommand);
    this.env = Map.copyOf(env);
    this.log = log;
  }

  /**
   * Picks a port for each service; nothing starts until {@link #startAll()}. Services and client
   * share every core.
   */
  public static RunningServices plan(
      List<ServiceSpec> specs,
      List<String> javaCommand,
      Map<String, String> env,
      Consumer<String> log)
      throws IOException {
    return plan(specs, javaCommand, env, log, CpuSplit.shared());
  }

  /**
   * As {@link #plan(List, List, Map, Consumer)}, each service started on {@code cpus}' service
   * cores.
   */
  public static RunningServices plan(
      List<ServiceSpec> specs,
      List<String> javaCommand,
      Map<String, String> env,
      Consumer<String> log,
      CpuSplit cpus)
      throws IOException {
    RunningServices s = new RunningServices(javaCommand, env, log, cpus);
    for (ServiceSpec spec : specs) {
      if (s.services.containsKey(spec.name()))
        throw new IllegalArgumentException("two services are named '" + spec.name() + "'");
      s.services.put(spec.name(), new Entry(spec, s.freeLoopbackPort()));
    }
    for (ServiceSpec spec : specs) {
      for (String arg : spec.args()) {
        Matcher m = PORT_OF.matcher(arg);
        while (m.find()) {
          if (!s.services.containsKey(m.group(1))) {
            throw new IllegalArgumentException(
                spec.name()
                    + ": '"
                    + arg
                    + "' names no service of this study; it has "
                    + s.services.keySet());
          }
        }
      }
    }
    return s;
  }

  /**
   * The ports a served thing takes from its --port up: OpenBao's 7 nodes take 14, Pebble with its
   * DNS 4, tlsecho 2. All free when drawn, below the ephemeral range, so that a service killed in a
   * fault step finds its ports free again ({@link LoopbackPort#freeSpan}).
   */
  static final int PORTS_PER_SERVICE = 16;

  /** A span none of this study's services was given: nothing listens on them until they start. */
  private int freeLoopbackPort() throws IOException {
    for (int attempt = 0; attempt < 100; attempt++) {
      int port = LoopbackPort.freeSpan(PORTS_PER_SERVICE);
      if (services.values().stream().allMatch(e -> Math.abs(e.port - port) >= PORTS_PER_SERVICE))
        return port;
    }
    throw new IOException("no loopback ports apart from the other services' in 100 draws");
  }

  public List<String> names() {
    return List.copyOf(services.keySet());
  }

  /** The service's URL, known before it starts: {@code scheme://127.0.0.1:PORT}. */
  public String url(String name) {
    Entry e = entry(name);
    return e.spec.scheme() + "://127.0.0.1:" + e.port;
  }

  public void startAll() throws IOException, InterruptedException {
    for (Entry e : services.values()) start(e);
  }

  /** Stops and starts every service on its port (a study's "restart the servers"). */
  public void restartAll() throws IOException, InterruptedException {
    for (Entry e : services.values()) stop(e);
    for (Entry e : services.values()) start(e);
  }

  /**
   * SIGKILL to {@code name}'s process, as a crash would be: no shutdown hook runs, connections drop
   * unanswered. {@link #start(String)} brings it back on the same port.
   */
  public synchronized void kill(String name) throws InterruptedException {
    Entry e = entry(name);
    if (e.process == null || closed) return;
    e.process.kill();
    log.accept("service " + name + " killed (SIGKILL, pid " + e.process.pid() + ")");
  }

  /**
   * SIGKILL to the server process {@code name} names in its ready line (OpenBao's {@code bao} under
   * {@code serve openbao}), as its crash would be: the {@code serve} process stays, and does what
   * it does when its server dies (serve openbao starts it again on the same storage).
   */
  public synchronized void killItsServer(String name) {
    Entry e = entry(name);
    if (e.process == null || closed) return;
    long server = e.process.pid();
    ProcessHandle.of(server).ifPresent(ProcessHandle::destroyForcibly);
    log.accept("service " + name + "'s server killed (SIGKILL, pid " + server + ")");
  }

  /** A line for the study's log, from hooks that act on the services. */
  public void say(String line) {
    log.accept(line);
  }

  /**
   * Stops {@code name} and starts it again on its port with {@code args} in place of its spec's,
   * kept for later restarts: a sweep over one of the service's own settings (the PEC providers'
   * --workers).
   */
  public synchronized void restartWith(String name, List<String> args)
      throws IOException, InterruptedException {
    if (closed)
      throw new IllegalStateException("the study has ended; " + name + " is not started again");
    Entry e = entry(name);
    stop(e);
    e.spec = new ServiceSpec(e.spec.name(), args, e.spec.scheme(), e.spec.jvmOptions());
    start(e);
  }

  /**
   * At most {@code cores} of CPU for the services together from now on, by a cgroup of their own
   * under the first of {@code roots} that takes one (made at the first call, their processes moved
   * into it; a service started later joins it too); the group is removed when the study ends,
   * however it ends.
   */
  public synchronized void limitCpu(List<Path> roots, double cores) throws IOException {
    if (quota == null) {
      quota = CpuQuota.create(roots);
      for (Entry e : services.values()) {
        if (e.process != null) for (long pid : withDescendants(e.process.pid())) quota.add(pid);
      }
    }
    quota.limit(cores);
    log.accept("services limited to " + cores + " core: " + quota.describe());
  }

  /**
   * Every service stopped and started again on {@code split}'s service cores, its utilisation
   * measured against them from now on: a sweep over how the cores are split ({@code study pix
   * --core-ratio-sweep}). A restart rather than a move, since a JVM sizes its GC and thread pools
   * by the cores it starts on. The client's cores are the caller's to move.
   */
  public synchronized void moveTo(CpuSplit split) throws IOException, InterruptedException {
    if (split.isShared())
      throw new IllegalArgumentException("the services move to cores of their own, not shared");
    if (closed) throw new IllegalStateException("the study has ended; no service is started again");
    for (Entry e : services.values()) stop(e);
    cpus = split;
    launchPrefix = List.copyOf(CpuAffinity.launchPrefix(split.services()));
    for (Entry e : services.values()) start(e);
  }

  /** The arguments {@code name} runs with now. */
  public List<String> args(String name) {
    return entry(name).spec.args();
  }

  /** Starts {@code name} again on its port after {@link #kill}; a new pid, recorded. */
  public synchronized void start(String name) throws IOException, InterruptedException {
    if (closed)
      throw new IllegalStateException("the study has ended; " + name + " is not started again");
    start(entry(name));
  }

  /** The summed CPU of the services' current processes: what a study sizes. */
  public CpuMeter cpuMeter() {
    return new ProcessGroupCpuMeter(
        () ->
            services.values().stream()
                .filter(e -> e.process != null)
                .flatMap(e -> withDescendants(e.process.pid()).stream())
                .toList(),
        serviceCores());
  }

  /**
   * A service's pid and its descendants': a {@code serve} JVM has none, {@code serve nginx} names
   * nginx's master, whose workers do the work.
   */
  private static List<Long> withDescendants(long pid) {
    List<Long> pids = new ArrayList<>(List.of(pid));
    ProcessHandle.of(pid).ifPresent(p -> p.descendants().forEach(d -> pids.add(d.pid())));
    return pids;
  }

  /**
   * The CPU a step's plan names: {@code services} sums every service, {@code service:NAME} is one
   * service alone (a study whose steps each size a different server), {@code client} this JVM, the
   * load generator (a study that sizes the client's side too).
   */
  public CpuMeter cpuMeter(String planCpu) {
    if (planCpu == null || planCpu.equals("services")) return cpuMeter();
    if (planCpu.equals(NO_CPU))
      return new ProcessGroupCpuMeter(
          List::of); // a service running elsewhere: its CPU cannot be read here
    if (planCpu.equals("client"))
      return clientMeter(); // the load generator itself: a client's cost per operation
    if (planCpu.startsWith("pid:"))
      return CpuMeter.of(
          planCpu); // a service this study did not start, on this machine (ca's --cpu)
    if (planCpu.startsWith("service:")) {
      Entry e = entry(planCpu.substring("service:".length()));
      return new ProcessGroupCpuMeter(
          () -> e.process == null ? List.of() : withDescendants(e.process.pid()), serviceCores());
    }
    throw new IllegalArgumentException(
        "a study step's CPU is 'services', 'service:NAME', 'client' or 'pid:N', not '"
            + planCpu
            + "'");
  }

  /** The cores the services run on: all of them when shared. */
  public int serviceCores() {
    return cpus.isShared() ? Runtime.getRuntime().availableProcessors() : cpus.services().size();
  }

  /** This JVM, measured against the client's cores when the study split them. */
  private CpuMeter clientMeter() {
    CpuMeter jvm = CpuMeter.of("jvm");
    if (cpus.isShared()) return jvm;
    int cores = cpus.client().size();
    return new CpuMeter() {
      @Override
      public long cpuNanos() {
        return jvm.cpuNanos();
      }

      @Override
      public String describe() {
        return jvm.describe();
      }

      @Override
      public int cores() {
        return cores;
      }
    };
  }

  /** What the result records: each service's command, port and every pid it had. */
  public List<StudyRecord.ServiceRecord> records() {
    List<StudyRecord.ServiceRecord> list = new ArrayList<>();
    for (Entry e : services.values())
      list.add(new StudyRecord.ServiceRecord(e.spec.name(), command(e), e.port, e.pids));
    return list;
  }

  private List<String> command(Entry e) {
    List<String> args = new ArrayList<>(List.of("serve"));
    for (String arg : e.spec.args())
      args.add(
          PORT_OF.matcher(arg).replaceAll(m -> Integer.toString(services.get(m.group(1)).port)));
    args.addAll(List.of("--port", Integer.toString(e.port)));
    return args;
  }

  private void start(Entry e) throws IOException, InterruptedException {
    e.process = ServiceProcess.start(launchCommand(e.spec), command(e), env);
    e.pids.add(e.process.pid());
    if (quota != null)
      quota.add(e.process.pid()); // a restarted service stays under the study's CPU limit
    // A service whose root is a path under its address (DSS's /services/rest) still listens where
    // planned.
    if (!e.process.url().equals(url(e.spec.name()))
        && !e.process.url().startsWith(url(e.spec.name()) + "/")) {
      throw new IOException(
          "service "
              + e.spec.name()
              + " listens on "
              + e.process.url()
              + ", not on "
              + url(e.spec.name())
              + " as planned");
    }
    log.accept(
        "service " + e.spec.name() + " at " + e.process.url() + " (pid " + e.process.pid() + ")");
  }

  /**
   * The cores' prefix, the java binary, the service's own JVM options, then the rest of the java
   * command.
   */
  private List<String> launchCommand(ServiceSpec spec) {
    List<String> command = new ArrayList<>(launchPrefix);
    command.add(javaCommand.get(0));
    command.addAll(spec.jvmOptions());
    command.addAll(javaCommand.subList(1, javaCommand.size()));
    return command;
  }

  private void stop(Entry e) throws InterruptedException {
    if (e.process != null) e.process.close();
  }

  private Entry entry(String name) {
    Entry e = services.get(name);
    if (e == null)
      throw new IllegalArgumentException(
          "no service named '" + name + "'; this study has " + services.keySet());
    return e;
  }

  @Override
  public void close() throws InterruptedException {
    closed = true;
    synchronized (this) { // a kill or start under way on a fault's thread finishes first
      try {
        if (quota != null)
          quota.close(); // first: the processes back to the parent group, then the group removed
      } catch (IOException e) {
        log.accept(
            "could not remove the services' CPU group "
                + quota.group()
                + " ("
                + e.getMessage()
                + "); remove it by hand: rmdir "
                + quota.group());
      }
      for (Entry e : services.values()) stop(e);
    }
  }
}
