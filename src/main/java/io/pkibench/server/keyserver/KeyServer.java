package io.pkibench.server.keyserver;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.Attributes;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerTransportFilter;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsServerCredentials;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.pkibench.formats.rsfn.CaCodes;
import io.pkibench.formats.rsfn.Protocol3;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.ProviderChoice;
import io.pkibench.keys.SigningKey;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.TlsContexts;
import io.pkibench.keyserver.protocol.KeyServerGrpc;
import io.pkibench.pki.TestPki;
import io.pkibench.server.ReferenceServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.Certificate;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.logging.Logger;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * A key-server node: gRPC over mutual TLS (its identity the test PKI's {@code keyserver}
 * certificate, clients must chain to the test PKI's root), the {@link KeyService} and the standard
 * health service. Calls are multiplexed on one HTTP/2 connection per client and run on a fixed pool
 * sized to the cores, so 512 pending calls need neither 512 connections nor 512 threads.
 */
public final class KeyServer implements ReferenceServer {
  public static final int DEFAULT_PORT = 9443;

  /**
   * What the node accepts: request size, time to finish a TLS handshake, idle time before a
   * connection is closed, worker threads, and calls in flight on one connection. The last bounds
   * what one client can make the node hold: at most {@code maxCallsPerConnection × maxRequestBytes}
   * of requests per connection (32 MiB by default); HTTP/2 tells the client, whose further calls
   * wait on its side.
   *
   * <p>Contract v2's stream counts calls, not only bytes: at most {@code maxCallsPerStream} calls
   * of one stream are unanswered at once (read, and their answers not yet taken by the client's
   * flow control), and at most {@code maxQueuedCalls} calls of every stream of the node wait for or
   * are being signed; see {@link SignStreams}.
   */
  public record Limits(
      int maxRequestBytes,
      Duration handshakeTimeout,
      Duration idleTimeout,
      int threads,
      int maxCallsPerConnection,
      int maxCallsPerStream,
      int maxQueuedCalls) {
    public static final int DEFAULT_MAX_CALLS_PER_CONNECTION = 32;

    /**
     * Twice the 512 calls a client of 512 workers has in flight to one node, as the remote-key
     * tests do.
     */
    public static final int DEFAULT_MAX_CALLS_PER_STREAM = 1024;

    /**
     * Seconds of RSA-2048 signatures on a few cores: past it a node is too far behind for a 10 s
     * client deadline.
     */
    public static final int DEFAULT_MAX_QUEUED_CALLS = 8192;

    public Limits {
      if (maxCallsPerStream < SignStreams.MOST_CALLS_PER_MESSAGE) {
        throw new IllegalArgumentException(
            "calls per stream "
                + maxCallsPerStream
                + ": give at least "
                + SignStreams.MOST_CALLS_PER_MESSAGE
                + ", the calls one message may carry");
      }
      if (maxQueuedCalls < 1)
        throw new IllegalArgumentException(
            "queued calls per node " + maxQueuedCalls + ": give at least 1");
    }

    public Limits(
        int maxRequestBytes,
        Duration handshakeTimeout,
        Duration idleTimeout,
        int threads,
        int maxCallsPerConnection) {
      this(
          maxRequestBytes,
          handshakeTimeout,
          idleTimeout,
          threads,
          maxCallsPerConnection,
          DEFAULT_MAX_CALLS_PER_STREAM,
          DEFAULT_MAX_QUEUED_CALLS);
    }

    public Limits(
        int maxRequestBytes, Duration handshakeTimeout, Duration idleTimeout, int threads) {
      this(
          maxRequestBytes,
          handshakeTimeout,
          idleTimeout,
          threads,
          DEFAULT_MAX_CALLS_PER_CONNECTION);
    }

    public static Limits defaults() {
      return new Limits(
          1 << 20,
          Duration.ofSeconds(10),
          Duration.ofMinutes(5),
          Runtime.getRuntime().availableProcessors());
    }
  }

  private final KeyService service;
  private final SigningKey identity;
  private final X509Certificate root;
  private final List<X509CRL> crls;
  private final String bind;
  private final int requestedPort;
  private final Limits limits;
  private final HealthStatusManager health = new HealthStatusManager();
  private final AtomicInteger openConnections = new AtomicInteger();
  private final AtomicLong acceptedConnections = new AtomicLong();
  private ExecutorService workers;
  private boolean servesV2 = true;
  private SignStreams signStreams;
  private ExecutorService healthThread;
  private Server server;

  /**
   * What {@code serve keyserver} is asked for: the keys it serves (empty: every key of its source),
   * who may use which ({@code grants} file; null: the test PKI's tls-client the signer keys and its
   * own), the RSFN CA codes it packs and unpacks with, and its limits.
   */
  public record Config(
      String bind, int port, List<String> aliases, Path grants, CaCodes caCodes, Limits limits) {
    public Config {
      aliases = List.copyOf(aliases);
    }
  }

  /**
   * A node serving {@code source}'s keys as {@code config} says, its TLS identity the test PKI's
   * {@code keyserver} key; refuses, naming the flag, aliases the source does not hold and a grants
   * file it cannot read.
   */
  public static KeyServer open(
      Config config, TestPki pki, KeySource source, InstantSource clock, Consumer<String> log)
      throws Exception {
    KeyGrants granted;
    try {
      granted =
          config.grants() == null
              ? KeyGrants.signerKeysFor(pki.certificate("tls-client"))
              : KeyGrants.read(config.grants());
    } catch (IOException e) {
      throw new IllegalArgumentException("--grants " + config.grants() + ":\n" + e.getMessage());
    }
    List<String> held = source.aliases();
    List<String> unknown = config.aliases().stream().filter(a -> !held.contains(a)).toList();
    if (!unknown.isEmpty()) {
      throw new IllegalArgumentException(
          "--aliases: "
              + source.describe()
              + " has no key "
              + String.join(", ", unknown)
              + "; it has "
              + String.join(", ", held));
    }
    var rsfn = Protocol3.forTestPki(pki, config.caCodes(), clock, KeyService.localProvider());
    var service =
        new KeyService(
            source, config.aliases().isEmpty() ? held : config.aliases(), granted, rsfn, log);
    var identity = new SoftwareKeySource(() -> pki, ProviderChoice.JDK).key("keyserver");
    // a client's certificate is checked against the test PKI's CRLs too: a revoked one fails the
    // handshake
    List<X509CRL> crls =
        List.of(pki.crlOf("root-ca"), pki.crlOf("intermediate-a"), pki.crlOf("intermediate-b"));
    return new KeyServer(
        service,
        identity,
        pki.certificate("root-ca"),
        crls,
        config.bind(),
        config.port(),
        config.limits());
  }

  /**
   * A node that trusts clients chaining to {@code root} without checking revocation (tests that
   * make their own clients).
   */
  public KeyServer(
      KeyService service,
      SigningKey identity,
      X509Certificate root,
      String bind,
      int port,
      Limits limits) {
    this(service, identity, root, null, bind, port, limits);
  }

  /**
   * A node that also checks each client certificate (and its chain) against {@code crls}, which
   * must cover every CA of the chain: a revoked client fails the handshake, whatever a grant by
   * name says.
   */
  public KeyServer(
      KeyService service,
      SigningKey identity,
      X509Certificate root,
      List<X509CRL> crls,
      String bind,
      int port,
      Limits limits) {
    this.crls = crls == null ? null : List.copyOf(crls);
    this.service = service;
    this.identity = identity;
    this.root = root;
    this.bind = bind;
    this.requestedPort = port;
    this.limits = limits;
  }

  /**
   * gRPC parses a request on the application's executor and, when the bytes are not the message,
   * closes the call with INTERNAL (the client is told) and then logs the parse failure with its
   * stack trace through this logger, once per such request. Those records are turned into one line
   * in the node's log; anything else the logger says passes. Held here: a JUL logger nobody
   * references can be collected with its filter.
   */
  private static final Logger GRPC_EXECUTOR_LOG =
      Logger.getLogger("io.grpc.internal.SerializingExecutor");

  private static volatile KeyService malformedTo;

  static {
    GRPC_EXECUTOR_LOG.setFilter(
        record -> {
          if (!(record.getThrown() instanceof StatusRuntimeException e)
              || e.getStatus().getCode() != Status.Code.INTERNAL
              || !(e.getCause() instanceof InvalidProtocolBufferException)) {
            return true;
          }
          KeyService to = malformedTo;
          if (to != null)
            to.refusedMalformed(
                e.getStatus().getDescription()
                    + ": "
                    + e.getCause().getMessage().lines().findFirst().orElse(""));
          return false;
        });
  }

  @Override
  public void start() throws IOException, GeneralSecurityException {
    malformedTo = service;
    TlsServerCredentials credentials =
        (TlsServerCredentials)
            TlsServerCredentials.newBuilder()
                .keyManager(TlsContexts.keyManagers(identity))
                .trustManager(
                    crls == null
                        ? TlsContexts.trustManagers(root)
                        : TlsContexts.trustManagersCheckingRevocation(root, crls))
                .clientAuth(TlsServerCredentials.ClientAuth.REQUIRE)
                .build();
    AtomicInteger n = new AtomicInteger();
    workers =
        Executors.newFixedThreadPool(
            limits.threads(),
            r -> {
              Thread t = new Thread(r, "keyserver-worker-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    healthThread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "keyserver-health");
              t.setDaemon(true);
              return t;
            });
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(bind, requestedPort), credentials);
    if (servesV2) {
      signStreams =
          new SignStreams(
              service,
              workers,
              limits.threads(),
              (long) limits.maxCallsPerConnection() * limits.maxRequestBytes(),
              limits.maxCallsPerStream(),
              limits.maxQueuedCalls());
      builder.addService(ServerInterceptors.intercept(signStreams, new CallerFromCertificate()));
    }
    server =
        builder
            .executor(workers)
            // Health checks answer on their own thread: queued behind hundreds of pending
            // signatures they
            // would miss their deadline and a busy node would look dead.
            .callExecutor(
                new ServerCallExecutorSupplier() {
                  @Override
                  public <Q, R> Executor getExecutor(ServerCall<Q, R> call, Metadata metadata) {
                    String service = call.getMethodDescriptor().getServiceName();
                    // v2's stream only reads each message and hands its requests to the workers:
                    // done where the bytes arrive,
                    // that is one thread hop less per message than through a worker
                    if (service.equals(SignStreams.SERVICE)) return Runnable::run;
                    return service.equals(HealthGrpc.SERVICE_NAME) ? healthThread : null;
                  }
                })
            .maxInboundMessageSize(limits.maxRequestBytes())
            .maxConcurrentCallsPerConnection(limits.maxCallsPerConnection())
            // one request's worth of window per stream and per connection: a client cannot push
            // more ahead of what is read
            .flowControlWindow(Math.max(64 * 1024, limits.maxRequestBytes()))
            .maxInboundMetadataSize(16 * 1024)
            .handshakeTimeout(limits.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS)
            .maxConnectionIdle(limits.idleTimeout().toMillis(), TimeUnit.MILLISECONDS)
            .permitKeepAliveTime(10, TimeUnit.SECONDS)
            .addService(ServerInterceptors.intercept(service, new CallerFromCertificate()))
            .addService(health.getHealthService())
            .addTransportFilter(
                new ServerTransportFilter() {
                  @Override
                  public Attributes transportReady(Attributes attributes) {
                    openConnections.incrementAndGet();
                    acceptedConnections.incrementAndGet();
                    return attributes;
                  }

                  @Override
                  public void transportTerminated(Attributes attributes) {
                    // Called for connections that never became ready too; count down only what was
                    // counted up.
                    if (attributes != null
                        && attributes.get(Grpc.TRANSPORT_ATTR_SSL_SESSION) != null)
                      openConnections.decrementAndGet();
                  }
                })
            .build()
            .start();
    health.setStatus(KeyServerGrpc.SERVICE_NAME, HealthCheckResponse.ServingStatus.SERVING);
  }

  /**
   * Serves contract v1 only, as a node from before v2 does: for the tests of a client meeting one.
   * Before {@link #start}.
   */
  KeyServer withoutV2() {
    servesV2 = false;
    return this;
  }

  /**
   * Contract v2's streams, for the tests of their limits (null before {@link #start} and without
   * v2).
   */
  SignStreams signStreams() {
    return signStreams;
  }

  /** Connections open now (after their handshake) and since start. */
  public int openConnections() {
    return openConnections.get();
  }

  public long acceptedConnections() {
    return acceptedConnections.get();
  }

  public KeyService.Counts counts() {
    return service.counts();
  }

  /**
   * Key uses granted per client certificate subject, since start: as many subjects as a run's
   * workers with identities=per-worker.
   */
  public Map<String, Long> usesByClient() {
    return service.usesByClient();
  }

  public int port() {
    return server.getPort();
  }

  @Override
  public String baseUrl() {
    String host = bind.contains(":") ? "[" + bind + "]" : bind;
    return "grpcs://" + host + ":" + port();
  }

  @Override
  public String details() {
    return "mutual TLS as "
        + identity.alias()
        + ", "
        + limits.threads()
        + " worker threads, requests up to "
        + limits.maxRequestBytes() / 1024
        + " KiB, "
        + limits.maxCallsPerConnection()
        + " calls in flight per connection, "
        + limits.maxCallsPerStream()
        + " unanswered calls per signature stream, "
        + limits.maxQueuedCalls()
        + " calls queued to sign, idle connections closed after "
        + limits.idleTimeout().toSeconds()
        + " s";
  }

  @Override
  public synchronized void close() {
    if (server == null || server.isShutdown()) return;
    health.enterTerminalState();
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS))
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    workers.shutdownNow();
    healthThread.shutdownNow();
  }

  /**
   * Puts the client's certificate, which the TLS layer has verified, in the call's context for the
   * grants.
   */
  private static final class CallerFromCertificate implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      SSLSession session = call.getAttributes().get(Grpc.TRANSPORT_ATTR_SSL_SESSION);
      X509Certificate caller = null;
      if (session != null) {
        try {
          Certificate[] chain = session.getPeerCertificates();
          if (chain.length > 0 && chain[0] instanceof X509Certificate x) caller = x;
        } catch (SSLPeerUnverifiedException e) {
          caller = null; // refused by the grants as "(none)"
        }
      }
      return Contexts.interceptCall(
          Context.current().withValue(KeyService.CALLER, caller), call, headers, next);
    }
  }
}
