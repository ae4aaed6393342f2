package io.pkibench.workload.tls;

import io.netty.handler.ssl.SslContext;
import io.pkibench.formats.tls.Connection;
import io.pkibench.formats.tls.EchoProtocol;
import io.pkibench.formats.tls.Http1;
import io.pkibench.measure.ProcessMemory;
import io.pkibench.plan.Durations;
import io.pkibench.workload.api.CountedOutcomes;
import io.pkibench.workload.api.LiveCounts;
import io.pkibench.workload.api.Operation;
import io.pkibench.workload.api.Paced;
import io.pkibench.workload.api.ParamSpec;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.SocketBudget;
import io.pkibench.workload.api.SourceAddresses;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code tls-hold}: how many TLS connections a server holds open, and what each costs it. A level
 * is N connections, one per worker ({@code --concurrency N}): they open no faster than {@code -p
 * handshake-rate} in all (the ramp), stay open, and each sends one request every {@code -p
 * interval} ({@code tls://}: a {@code -p size}-byte request/response of tlsecho's protocol; {@code
 * https://HOST:PORT/PATH}: a kept-alive GET, e.g. nginx's {@code /bytes/128}). An operation is one
 * request/response; a connection's first is its handshake and first request together. A held
 * connection that fails (the server closed it, a reset, a wrong answer) is a failed operation,
 * counted as lost, and opened again in the ramp's next free slot. Per level the result counts: the
 * most connections open at once, handshakes per second during the ramp, failed handshakes and lost
 * connections, and with {@code -p server-pid} the server's RSS growth per open connection (its
 * process and every descendant, read from /proc when the series ends, all connections still open).
 */
public final class HoldWorkload implements Workload, CountedOutcomes, LiveCounts {
  public static final String NAME = "tls-hold";

  private final InetSocketAddress address;
  private final String target;
  private final SslContext tls;
  private final String suite;
  private final int timeoutMillis;

  /**
   * tls:// targets: request bytes of tlsecho's protocol; https:// targets: the GET's head, and
   * {@code size} is ignored.
   */
  private final int size;

  private final byte[] httpHead;
  private final double handshakeNanos;
  private final long intervalNanos;
  private final SourceAddresses sources;
  private final int portsPerAddress;
  private final boolean loopbackTarget;
  private final long serverPid;

  /**
   * The server's RSS before this series opened anything, in KB (-1: no -p server-pid). A server
   * gone by then fails the series up front, naming the flag.
   */
  private final long serverRssBeforeKb;

  private final AtomicLong rampSlots = new AtomicLong();
  private volatile long rampStartNanos;
  private final AtomicInteger workers = new AtomicInteger();
  private final AtomicLong open = new AtomicLong();
  private final AtomicLong mostOpen = new AtomicLong();
  private final AtomicLong handshakes = new AtomicLong();
  private final AtomicLong handshakeFailures = new AtomicLong();
  private final AtomicLong lost = new AtomicLong();

  /** When the last of the first N handshakes (one per worker) ended: the ramp's end. */
  private final AtomicLong firstRoundEndNanos = new AtomicLong();

  /** Of those first N, how many opened. */
  private final AtomicLong firstRoundOpened = new AtomicLong();

  private final Set<Connection> held = ConcurrentHashMap.newKeySet();

  private HoldWorkload(
      String target,
      InetSocketAddress address,
      SslContext tls,
      String suite,
      int timeoutMillis,
      int size,
      byte[] httpHead,
      double handshakesPerSecond,
      long intervalNanos,
      SourceAddresses sources,
      boolean loopbackTarget,
      long serverPid) {
    this.target = target;
    this.address = address;
    this.tls = tls;
    this.suite = suite;
    this.timeoutMillis = timeoutMillis;
    this.size = size;
    this.httpHead = httpHead;
    this.handshakeNanos = 1e9 / handshakesPerSecond;
    this.intervalNanos = intervalNanos;
    this.sources = sources;
    this.portsPerAddress = SocketBudget.ofThisProcess().ephemeralPorts();
    this.loopbackTarget = loopbackTarget;
    this.serverPid = serverPid;
    this.serverRssBeforeKb = serverPid > 0 ? rssBeforeKb(serverPid) : -1;
  }

  public static final class Factory implements WorkloadFactory {
    @Override
    public String name() {
      return NAME;
    }

    @Override
    public String description() {
      return "hold --concurrency N TLS connections open (opened at -p handshake-rate), each a -p size request/response every -p interval;"
          + " counts connections held, handshakes/s and, with -p server-pid, the server's memory per connection";
    }

    @Override
    public List<ParamSpec> params() {
      List<ParamSpec> params =
          new ArrayList<>(
              List.of(
                  ParamSpec.free(
                      ParamSpec.TARGET,
                      "",
                      "tls://HOST:PORT ('pkibench serve tlsecho') or https://HOST:PORT/PATH (a GET per request, e.g."
                          + " nginx's https://127.0.0.1:8453/bytes/128)"),
                  ParamSpec.free(
                      "handshake-rate",
                      "200",
                      "connections opened per second, in all, while the ramp runs"),
                  ParamSpec.free(
                      "interval", "1s", "each held connection sends one request this often"),
                  ParamSpec.free("size", "128", "bytes each way of a tls:// request"),
                  ParamSpec.free(
                      "server-pid",
                      "",
                      "the server's process id: its RSS (with its descendants') growth per held connection is reported"),
                  ParamSpec.free("timeout", "10s", "connect and read timeout")));
      params.addAll(ClientTlsParams.specs());
      params.add(WorkerClients.spec());
      params.add(SourceAddresses.spec());
      return params;
    }

    @Override
    public List<String> workerProblems(Params params, int workers, String level) {
      return WorkerClients.workerProblems(params, workers, level);
    }

    @Override
    public List<String> problems(Params params, String keys) {
      List<String> problems = new ArrayList<>(ClientTlsParams.problems(params));
      problems.addAll(WorkerClients.problems(params));
      String target = params.get(ParamSpec.TARGET);
      URI uri = uri(target);
      if (uri == null && !target.isBlank())
        problems.add(
            "-p target="
                + target
                + ": write tls://HOST:PORT or https://HOST:PORT/PATH, e.g. tls://127.0.0.1:8444");
      try {
        if (rate(params) <= 0)
          problems.add(
              "-p handshake-rate="
                  + params.get("handshake-rate")
                  + ": give a rate above 0, e.g. 200");
      } catch (NumberFormatException e) {
        problems.add(
            "-p handshake-rate="
                + params.get("handshake-rate")
                + ": give connections per second, e.g. 200 or 200/s");
      }
      try {
        if (Durations.parse(params.get("interval")).toMillis() < 1)
          problems.add("-p interval=" + params.get("interval") + ": give at least 1ms");
      } catch (IllegalArgumentException e) {
        problems.add("-p interval=" + params.get("interval") + ": " + e.getMessage());
      }
      try {
        int size = params.bytes("size");
        if (size < 1 || size > EchoProtocol.MAX_FRAME_BYTES)
          problems.add("-p size=" + params.get("size") + ": between 1 byte and 1m");
      } catch (IllegalArgumentException e) {
        problems.add("-p size=" + params.get("size") + ": " + e.getMessage());
      }
      String pid = params.get("server-pid");
      if (!pid.isEmpty()) {
        if (!pid.matches("[1-9][0-9]{0,9}"))
          problems.add(
              "-p server-pid="
                  + pid
                  + ": give a process id, e.g. the ready line's pid of 'serve tlsecho'");
        else if (!Files.isReadable(Path.of("/proc", pid, "status")))
          problems.add("-p server-pid=" + pid + ": no such process to read the memory of");
      }
      problems.addAll(
          SourceAddresses.problems(
              "-p " + SourceAddresses.PARAM,
              params.get(SourceAddresses.PARAM),
              uri == null ? null : uri.getHost()));
      return problems;
    }

    @Override
    public int socketsPerWorker(Params params) {
      return 1;
    }

    @Override
    public long sourceAddresses(Params params) {
      URI uri = uri(params.get(ParamSpec.TARGET));
      return SourceAddresses.parse(params.get(SourceAddresses.PARAM))
          .count(uri == null ? null : uri.getHost());
    }

    @Override
    public List<String> notes(Params params) {
      return List.of(
          "tls-hold: one connection per worker; a level's warm-up should last the ramp (--concurrency / -p handshake-rate seconds),"
              + " so that its measured iterations see every connection held");
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      List<String> problems = problems(params, "");
      if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("\n", problems));
      String target = params.get(ParamSpec.TARGET);
      URI uri = uri(target);
      boolean https = uri.getScheme().equals("https");
      int port = uri.getPort() >= 0 ? uri.getPort() : 443;
      byte[] head = null;
      if (https) {
        String path =
            uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        head = Http1.head("GET", path, uri.getHost() + ":" + port, true, -1);
      }
      var client = ClientTlsParams.read(context, params);
      SslContext tls = client.context();
      int timeout =
          (int) Math.min(Integer.MAX_VALUE, Durations.parse(params.get("timeout")).toMillis());
      String pid = params.get("server-pid");
      HoldWorkload w =
          new HoldWorkload(
              target,
              new InetSocketAddress(uri.getHost(), port),
              tls,
              params.get("suite"),
              timeout,
              params.bytes("size"),
              head,
              rate(params),
              Durations.parse(params.get("interval")).toNanos(),
              SourceAddresses.parse(params.get(SourceAddresses.PARAM)),
              SourceAddresses.isLoopback(uri.getHost()),
              pid.isEmpty() ? 0 : Long.parseLong(pid));
      w.clients = WorkerClients.of(context, params, client);
      return w;
    }

    private static double rate(Params params) {
      String r = params.get("handshake-rate").strip();
      return Double.parseDouble(r.endsWith("/s") ? r.substring(0, r.length() - 2) : r);
    }

    private static URI uri(String target) {
      try {
        URI uri = URI.create(target);
        boolean known = "tls".equals(uri.getScheme()) || "https".equals(uri.getScheme());
        if (!known || uri.getHost() == null || ("tls".equals(uri.getScheme()) && uri.getPort() < 0))
          return null;
        return uri;
      } catch (IllegalArgumentException e) {
        return null;
      }
    }
  }

  /**
   * The next slot of the ramp's timetable, shared by every worker: the first claim starts the ramp.
   */
  private long claimSlot() {
    long slot = rampSlots.getAndIncrement();
    if (slot == 0) rampStartNanos = System.nanoTime();
    long start;
    while ((start = rampStartNanos) == 0)
      Thread.onSpinWait(); // the first claimant sets it in a moment
    return start + (long) (slot * handshakeNanos);
  }

  /**
   * With -p identities, each worker's own client (its held connection presents that worker's
   * certificate); else all share {@link #tls}.
   */
  private WorkerClients clients;

  @Override
  public Operation newOperation(int worker) throws Exception {
    SslContext context =
        clients == null || !clients.perWorker() ? tls : clients.forWorker(worker).context();
    workers.accumulateAndGet(worker + 1, Math::max);
    return new Held(worker, context);
  }

  /**
   * One held connection: opened in its slot of the ramp, then one request every interval; reopened
   * after a failure.
   */
  private final class Held implements Paced {
    private final int worker;
    private final SslContext context;
    private final byte[] frame;
    private final byte[] response;
    private Connection connection;
    private Http1 http;
    private long due = -1;
    private long sequence;
    private boolean firstRound = true;

    Held(int worker, SslContext context) {
      this.worker = worker;
      this.context = context;
      this.frame = new byte[EchoProtocol.HEADER_BYTES + size];
      new SplittableRandom(0x5eed + worker).nextBytes(frame);
      System.arraycopy(
          EchoProtocol.header(EchoProtocol.REQUEST, size, size),
          0,
          frame,
          0,
          EchoProtocol.HEADER_BYTES);
      this.response = new byte[size];
    }

    @Override
    public long dueNanos() {
      if (due == -1) due = claimSlot();
      return due;
    }

    @Override
    public void execute() throws Exception {
      if (connection == null) open();
      try {
        request();
        due = System.nanoTime() + intervalNanos;
      } catch (IOException | RuntimeException e) {
        lost.incrementAndGet();
        drop();
        throw new IOException("a held connection failed: " + e.getMessage(), e);
      }
    }

    private void open() throws IOException {
      try {
        connection =
            Dialer.connect(
                address,
                sources.forWorker(worker, portsPerAddress, loopbackTarget),
                target,
                context,
                suite,
                List.of(),
                timeoutMillis);
      } catch (IOException | RuntimeException e) {
        handshakeFailures.incrementAndGet();
        due = -1; // the next attempt takes a slot of the ramp, so reopening never outruns -p
        // handshake-rate
        if (firstRound) firstRoundEnded(false);
        throw e;
      }
      handshakes.incrementAndGet();
      held.add(connection);
      if (httpHead != null) http = new Http1(connection);
      mostOpen.accumulateAndGet(open.incrementAndGet(), Math::max);
      if (firstRound) firstRoundEnded(true);
    }

    private void firstRoundEnded(boolean opened) {
      firstRound = false;
      firstRoundEndNanos.accumulateAndGet(System.nanoTime(), Math::max);
      if (opened) firstRoundOpened.incrementAndGet();
    }

    private void request() throws IOException {
      if (http != null) {
        Http1.Response r = http.exchange(httpHead, null);
        if (r.status() != 200) throw new IOException(target + " answered HTTP " + r.status());
        if (!r.keepAlive())
          throw new IOException(
              target
                  + " closes the connection after each answer (Connection: close): nothing to hold");
        return;
      }
      ByteBuffer.wrap(frame, EchoProtocol.HEADER_BYTES, Math.min(8, size))
          .put(longBytes(++sequence), 0, Math.min(8, size));
      connection.write(frame, 0, frame.length);
      try {
        connection.readFully(response, 0, size);
      } catch (EOFException e) {
        throw new EOFException("the server closed it (" + e.getMessage() + ")");
      }
      if (!Arrays.equals(
          response, 0, size, frame, EchoProtocol.HEADER_BYTES, EchoProtocol.HEADER_BYTES + size)) {
        throw new IOException(
            "the answer differs from the request (not serve tlsecho's protocol? against a web server use an https:// target)");
      }
    }

    private void drop() {
      held.remove(connection);
      connection.close();
      connection = null;
      http = null;
      open.decrementAndGet();
      due = -1;
    }
  }

  private static byte[] longBytes(long v) {
    return ByteBuffer.allocate(8).putLong(v).array();
  }

  @Override
  public Map<String, Long> liveCounts() {
    Map<String, Long> live = new LinkedHashMap<>();
    live.put("open", open.get());
    live.put("failed", handshakeFailures.get() + lost.get());
    return live;
  }

  /**
   * This series' figures, named with its level so that levels do not add up: read when the series
   * ends, every connection still open, so the server's RSS is read with all of them held.
   */
  @Override
  public Map<String, Long> outcomes() {
    String level = String.format(Locale.ROOT, "%,d held: ", workers.get());
    Map<String, Long> out = new LinkedHashMap<>();
    out.put(level + "most open at once", mostOpen.get());
    out.put(level + "open at the end", open.get());
    long rampNanos = firstRoundEndNanos.get() - rampStartNanos;
    if (rampStartNanos != 0 && rampNanos > 0)
      out.put(
          level + "handshakes/s in the ramp", Math.round(firstRoundOpened.get() * 1e9 / rampNanos));
    out.put(level + "failed handshakes", handshakeFailures.get());
    out.put(level + "held connections lost", lost.get());
    if (serverRssBeforeKb >= 0) {
      long openNow = open.get();
      long now;
      try {
        now = ProcessMemory.rssKb(serverPid);
      } catch (IllegalStateException gone) {
        // said in so many words: no growth or per-connection figure from a server that ended
        out.put(level + "server memory unknown: pid " + serverPid + " gone", 1L);
        return out;
      }
      out.put(level + "server RSS growth KB", now - serverRssBeforeKb);
      if (openNow > 0)
        out.put(
            level + "server KB per connection",
            Math.round((now - serverRssBeforeKb) / (double) openNow));
    }
    return out;
  }

  private static long rssBeforeKb(long serverPid) {
    try {
      return ProcessMemory.rssKb(serverPid);
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException("-p server-pid=" + serverPid + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void close() {
    for (Connection c : held) c.close();
    held.clear();
  }
}
