package io.pkibench.keys.remote;

import io.grpc.ChannelCredentials;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.pkibench.keys.KeyNodeTally;
import io.pkibench.keyserver.protocol.KeyServerGrpc;
import io.pkibench.keyserver.protocol.SignRequest;
import io.pkibench.keyserver.protocol.SignResponse;
import io.pkibench.keyserver.protocol.v2.SignResult;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The client's view of the key-server nodes: one HTTP/2 connection per node carries every pending
 * call. Each call goes to the node with the fewest pending calls per unit of weight (weighted
 * least-pending): with equal nodes the shares follow the weights, as round robin's would, and a
 * node that slows down (a busy HSM behind it) gets less until it catches up, which round robin
 * cannot do. A node is taken out when a call to it finds it unavailable or a health check (every
 * 250 ms, the standard gRPC health service) fails, and rejoins when a health check answers SERVING
 * again. Calls in flight to a node that dies fail and are counted; they are not retried elsewhere,
 * so a run sees the fault instead of a slower success.
 *
 * <p>Signatures go on contract v2's stream, one per node ({@link SignStream}): the calls a v1
 * client would make one by one, each a new HTTP/2 stream with its headers and its deadline timer,
 * share one stream and, when they queue up, one message. A node that does not serve v2 answers
 * UNIMPLEMENTED once; from then on its signatures go through v1.
 */
final class Cluster implements AutoCloseable {
  static final Duration CALL_DEADLINE = Duration.ofSeconds(10);
  static final Duration HEALTH_INTERVAL = Duration.ofMillis(250);
  static final Duration HEALTH_DEADLINE = Duration.ofMillis(500);

  /** The first check includes the TLS handshake of a cold JVM. */
  static final Duration FIRST_CHECK_DEADLINE = Duration.ofSeconds(5);

  static final class Node {
    final NodeAddress address;
    final ManagedChannel channel;
    final KeyServerGrpc.KeyServerBlockingStub stub;
    final HealthGrpc.HealthBlockingStub health;

    /** False once the node answered that it does not serve contract v2. */
    volatile boolean servesV2 = true;

    private volatile SignStream signStream; // replaced under this lock
    final AtomicInteger pending = new AtomicInteger();
    final LongAdder calls = new LongAdder();
    final LongAdder failures = new LongAdder();
    volatile boolean up;

    /** When the client took this node out or saw it rejoin, for the report of a fault. */
    final List<KeyNodeTally.Transition> transitions =
        Collections.synchronizedList(new ArrayList<>());

    int slowChecks; // consecutive health checks past their deadline; only the checker thread

    // touches it

    Node(NodeAddress address, ChannelCredentials credentials) {
      this.address = address;
      this.channel =
          Grpc.newChannelBuilderForAddress(address.host(), address.port(), credentials)
              .maxInboundMessageSize(4 << 20)
              // v2's answers complete a future where they are read, without a hop to another
              // thread; blocking stubs bring
              // their own executor per call
              .directExecutor()
              .build();
      this.stub = KeyServerGrpc.newBlockingStub(channel);
      this.health = HealthGrpc.newBlockingStub(channel);
    }

    /**
     * The open signature stream, a new one if the last has ended. Every signature asks, from every
     * worker: the open stream is read without the lock, which 16 workers contending for would make
     * them queue and park on.
     */
    SignStream signStream() {
      SignStream open = signStream;
      if (open != null && open.open()) return open;
      synchronized (this) {
        if (signStream == null || !signStream.open()) signStream = new SignStream(channel);
        return signStream;
      }
    }

    synchronized void closeSignStream() {
      if (signStream != null) signStream.close();
    }
  }

  private final List<Node> nodes;
  private final Consumer<String> log;
  private final InstantSource clock;
  private final AtomicInteger rotation = new AtomicInteger();
  private final ScheduledExecutorService checker;

  Cluster(
      List<NodeAddress> addresses,
      ChannelCredentials credentials,
      InstantSource clock,
      Consumer<String> log) {
    this.nodes = addresses.stream().map(a -> new Node(a, credentials)).toList();
    this.log = log;
    this.clock = clock;
    List<String> down = new ArrayList<>();
    for (Node n : nodes) n.channel.getState(true); // all connect at once
    for (Node n : nodes) {
      String problem = check(n, FIRST_CHECK_DEADLINE);
      n.up = problem == null;
      if (problem != null) down.add(n.address + " (" + problem + ")");
    }
    if (down.size() == nodes.size()) {
      close(nodes);
      throw new IllegalStateException(
          "no key-server node answers: "
              + String.join(", ", down)
              + "; start one with 'pkibench serve keyserver --port PORT'");
    }
    for (String d : down) log.accept("key server " + d + " is down; it joins when it answers");
    checker =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "keyserver-health");
              t.setDaemon(true);
              return t;
            });
    checker.scheduleWithFixedDelay(
        this::checkAll,
        HEALTH_INTERVAL.toMillis(),
        HEALTH_INTERVAL.toMillis(),
        TimeUnit.MILLISECONDS);
  }

  /**
   * Runs {@code call} on the chosen node's stub, with the call deadline; a refusal or failure names
   * the node.
   */
  <T> T call(Function<KeyServerGrpc.KeyServerBlockingStub, T> call) throws KeyServerException {
    return call(pick(), call);
  }

  private <T> T call(Node node, Function<KeyServerGrpc.KeyServerBlockingStub, T> call)
      throws KeyServerException {
    node.pending.incrementAndGet();
    try {
      T value =
          call.apply(node.stub.withDeadlineAfter(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS));
      node.calls.increment();
      return value;
    } catch (StatusRuntimeException e) {
      throw failed(node, e.getStatus());
    } finally {
      node.pending.decrementAndGet();
    }
  }

  /**
   * A signature from the chosen node: on its v2 stream when it serves v2 and the request is small
   * (a digest), else through v1's Sign; the deadline, refusals and failures as {@link #call}'s.
   */
  SignResponse sign(SignRequest request) throws KeyServerException {
    if (request.getSerializedSize() > SignStream.LARGEST_STREAMED_BYTES)
      return call(stub -> stub.sign(request));
    Node node = pick();
    if (!node.servesV2) return call(node, stub -> stub.sign(request));
    node.pending.incrementAndGet();
    SignStream stream = node.signStream();
    SignStream.Call call = stream.send(request);
    SignResult result;
    try {
      result = call.answer().get(CALL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Status status = Status.fromThrowable(e.getCause());
      if (status.getCode() == Status.Code.UNIMPLEMENTED) {
        // a node from before v2: nothing was signed; this call and the node's next ones go through
        // v1
        node.servesV2 = false;
        log.accept(
            "key server "
                + node.address
                + " does not serve contract v2 ("
                + status.getDescription()
                + "); signing through v1");
        node.pending.decrementAndGet();
        return call(node, stub -> stub.sign(request));
      }
      node.pending.decrementAndGet();
      throw failed(node, status);
    } catch (TimeoutException e) {
      stream.forget(call.id());
      node.pending.decrementAndGet();
      throw failed(
          node,
          Status.DEADLINE_EXCEEDED.withDescription(
              "no answer within " + CALL_DEADLINE.toMillis() + " ms on the signature stream"));
    } catch (InterruptedException e) {
      stream.forget(call.id());
      node.pending.decrementAndGet();
      Thread.currentThread().interrupt();
      throw failed(
          node, Status.CANCELLED.withDescription("interrupted while waiting for the node"));
    }
    node.pending.decrementAndGet();
    if (result.getStatus() != Status.Code.OK.value())
      throw failed(
          node, Status.fromCodeValue(result.getStatus()).withDescription(result.getMessage()));
    node.calls.increment();
    return SignResponse.newBuilder().setSignature(result.getSignature()).build();
  }

  /**
   * A call to {@code node} that did not succeed, counted and, when it found the node unavailable,
   * taking it out.
   */
  private KeyServerException failed(Node node, Status status) {
    node.failures.increment();
    if (status.getCode() == Status.Code.UNAVAILABLE)
      markDown(node, "a call found it unavailable: " + status.getDescription());
    return new KeyServerException(node.address, status.asRuntimeException());
  }

  private Node pick() throws KeyServerException {
    Node best = null;
    double bestLoad = Double.MAX_VALUE;
    int start = Math.floorMod(rotation.getAndIncrement(), nodes.size()); // ties go round
    for (int i = 0; i < nodes.size(); i++) {
      Node n = nodes.get((start + i) % nodes.size());
      if (!n.up) continue;
      double load = (n.pending.get() + 1.0) / n.address.weight();
      if (load < bestLoad) {
        best = n;
        bestLoad = load;
      }
    }
    if (best == null)
      throw new KeyServerException(
          "no key-server node is up ("
              + nodes.stream().map(n -> n.address.toString()).toList()
              + ")");
    return best;
  }

  /**
   * A refused connection or a node not SERVING takes it out at once; a check past its deadline only
   * the second time running, since a node saturated by the run (or a client starved of CPU) answers
   * late without being down.
   */
  private void checkAll() {
    for (Node n : nodes) {
      String problem = check(n, HEALTH_DEADLINE);
      if (problem == null) {
        n.slowChecks = 0;
        markUp(n);
      } else if (problem.startsWith(Status.Code.DEADLINE_EXCEEDED.name()) && ++n.slowChecks < 2) {
        continue;
      } else {
        markDown(n, problem);
      }
    }
  }

  /** Null when the node answers SERVING, else why not. */
  private static String check(Node n, Duration deadline) {
    if (!n.up)
      n.channel
          .resetConnectBackoff(); // a node that comes back is found at the next check, not after
    // gRPC's backoff
    try {
      HealthCheckResponse r =
          n.health
              .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
              .check(
                  HealthCheckRequest.newBuilder().setService(KeyServerGrpc.SERVICE_NAME).build());
      return r.getStatus() == HealthCheckResponse.ServingStatus.SERVING
          ? null
          : "health " + r.getStatus();
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode()
          + (e.getStatus().getDescription() == null ? "" : ": " + e.getStatus().getDescription());
    }
  }

  private void markDown(Node n, String why) {
    synchronized (n) {
      if (!n.up) return;
      n.up = false;
    }
    n.transitions.add(new KeyNodeTally.Transition(clock.instant(), false, why));
    log.accept("key server " + n.address + " taken out: " + why);
  }

  private void markUp(Node n) {
    synchronized (n) {
      if (n.up) return;
      n.up = true;
    }
    n.transitions.add(
        new KeyNodeTally.Transition(clock.instant(), true, "health check answered SERVING"));
    log.accept("key server " + n.address + " rejoined");
  }

  /**
   * Checks every node that is down until it answers SERVING or {@code within} runs out, without
   * waiting for the next scheduled check: a level that starts right after its nodes restarted
   * starts with all of them, not with the first one back. Returns the nodes still down, each with
   * why.
   */
  List<String> awaitUp(Duration within) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      List<String> down = new ArrayList<>();
      for (Node n : nodes) {
        if (n.up) continue;
        String problem = check(n, HEALTH_DEADLINE);
        if (problem == null) markUp(n);
        else down.add(n.address + " (" + problem + ")");
      }
      if (down.isEmpty() || System.nanoTime() - deadline >= 0) return down;
      Thread.sleep(AWAIT_UP_POLL.toMillis());
    }
  }

  private static final Duration AWAIT_UP_POLL = Duration.ofMillis(50);

  /**
   * Each node, its calls and failures so far, whether it is up, and its transitions: what the
   * result records.
   */
  List<KeyNodeTally> nodes() {
    List<KeyNodeTally> list = new ArrayList<>();
    for (Node n : nodes) {
      List<KeyNodeTally.Transition> transitions;
      synchronized (n.transitions) {
        transitions = List.copyOf(n.transitions);
      }
      list.add(
          new KeyNodeTally(
              n.address.toString(),
              n.address.weight(),
              n.calls.sum(),
              n.failures.sum(),
              n.up,
              transitions));
    }
    return list;
  }

  @Override
  public void close() {
    checker.shutdownNow();
    close(nodes);
  }

  private static void close(List<Node> nodes) {
    for (Node n : nodes) n.closeSignStream();
    for (Node n : nodes) n.channel.shutdownNow();
    for (Node n : nodes) {
      try {
        n.channel.awaitTermination(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
