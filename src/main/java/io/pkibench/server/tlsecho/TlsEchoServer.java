package io.pkibench.server.tlsecho;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.OpenSslSessionContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.pkibench.formats.tls.EchoProtocol;
import io.pkibench.formats.tls.KeyExchangeGroups;
import io.pkibench.formats.tls.TlsEngine;
import io.pkibench.formats.tls.TlsServerKeys;
import io.pkibench.pki.TestPki;
import io.pkibench.server.ReferenceServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * {@code serve tlsecho}: the netperf-style transactions of {@link EchoProtocol} on a TLS port (JSSE
 * or BoringSSL, by the {@link SslContext} it is given) and a plain port. Bounded per connection: a
 * frame over 1 MiB or an unknown kind closes it, a connection idle past the idle timeout or a
 * handshake not done within the handshake timeout is closed, reading pauses while a client does not
 * read its answers, and connections past the cap are refused. Every such event is counted; the
 * {@code C} frame reports the counters.
 */
public final class TlsEchoServer implements ReferenceServer {
  public static final int DEFAULT_PORT = 8444;

  /**
   * Limits, all bounded: a client cannot hold the server's memory or a connection slot for ever.
   * The idle timeout restarts at every byte, so a frame must also arrive whole within {@code
   * frameDeadline} of its first byte (a trickle of one byte every 20 s is cut), and one address
   * holds at most {@code maxConnectionsPerAddress}.
   */
  public record Limits(
      Duration idleTimeout,
      Duration handshakeTimeout,
      int maxConnections,
      Duration frameDeadline,
      int maxConnectionsPerAddress) {
    public static final Limits DEFAULT =
        new Limits(Duration.ofSeconds(30), Duration.ofSeconds(10), 10_000);

    public Limits(Duration idleTimeout, Duration handshakeTimeout, int maxConnections) {
      this(
          idleTimeout,
          handshakeTimeout,
          maxConnections,
          idleTimeout,
          Math.min(maxConnections, 1_000));
    }
  }

  private static final ObjectMapper STATS_JSON = new ObjectMapper();

  /** What the server counts; each transaction once, each failure by cause. */
  public static final class Counters {
    final AtomicLong transactions = new AtomicLong();
    final AtomicLong bytesIn = new AtomicLong();
    final AtomicLong handshakes = new AtomicLong();
    final AtomicLong handshakeFailures = new AtomicLong();
    final AtomicLong timeouts = new AtomicLong();
    final AtomicLong protocolErrors = new AtomicLong();
    final AtomicLong truncated = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong open = new AtomicLong();
    final AtomicLong renegotiationsRefused = new AtomicLong();
    final AtomicLong clientCertificates = new AtomicLong();

    /**
     * What the counters say now, one figure each: the stats request's answer (README, "tlsecho").
     */
    public record Snapshot(
        long transactions,
        long bytesIn,
        long handshakes,
        long handshakeFailures,
        long timeouts,
        long protocolErrors,
        long truncated,
        long refused,
        long open,
        long renegotiationsRefused,
        long clientCertificates) {}

    public Snapshot snapshot() {
      return new Snapshot(
          transactions.get(),
          bytesIn.get(),
          handshakes.get(),
          handshakeFailures.get(),
          timeouts.get(),
          protocolErrors.get(),
          truncated.get(),
          refused.get(),
          open.get(),
          renegotiationsRefused.get(),
          clientCertificates.get());
    }

    public String json() {
      try {
        return STATS_JSON.writeValueAsString(snapshot());
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("a record of numbers always writes as JSON", e);
      }
    }
  }

  private final SslContext tls;
  private final String bind;
  private final int port;
  private final int plainPort;
  private final Limits limits;
  private final boolean resumption;
  private final String engine;
  private final Counters counters = new Counters();
  private final Map<InetAddress, AtomicLong> perAddress = new ConcurrentHashMap<>();
  private EventLoopGroup boss;
  private EventLoopGroup workers;
  private Class<? extends ServerChannel> serverChannel;
  private Channel tlsChannel;
  private Channel plainChannel;

  /**
   * {@code tls} null serves plain TCP on {@code port} only; otherwise TLS on {@code port} and plain
   * on {@code plainPort} (0 for any free one, -1 for none).
   */
  /**
   * What {@code serve tlsecho} is asked for: the engine ({@code jsse}, {@code openssl}, or {@code
   * none} for plain TCP alone), the test PKI key of its certificate, the versions and suites to
   * enable (empty: the engine's), the plain port beside TLS (null: the next one; -1 none), its
   * limits, and whether a client may resume a session ({@code --resumption}: off, every TLS 1.2
   * handshake in full, as nginx's {@code ssl_session_cache off; ssl_session_tickets off}; TLS 1.3's
   * tickets stay the engine's, and the checking run cannot see them: it closes before they come).
   */
  public record Config(
      String bind,
      int port,
      Integer plainPort,
      String engine,
      String key,
      List<String> protocols,
      List<String> suites,
      Limits limits,
      String clientAuth,
      List<String> groups,
      boolean resumption) {
    /**
     * {@code --client-auth}: none, want (ask, take a connection without one), need (refuse a
     * connection without one).
     */
    public static final List<String> CLIENT_AUTH = List.of("none", "want", "need");

    public Config {
      protocols = List.copyOf(protocols);
      suites = List.copyOf(suites);
      groups = List.copyOf(groups);
    }

    /** Sessions resumable, as each engine does by default. */
    public Config(
        String bind,
        int port,
        Integer plainPort,
        String engine,
        String key,
        List<String> protocols,
        List<String> suites,
        Limits limits,
        String clientAuth,
        List<String> groups) {
      this(bind, port, plainPort, engine, key, protocols, suites, limits, clientAuth, groups, true);
    }

    /** These settings with every handshake in full: no session cache, no session ticket. */
    public Config withoutResumption() {
      return new Config(
          bind, port, plainPort, engine, key, protocols, suites, limits, clientAuth, groups, false);
    }

    /** No client certificate asked for, the engine's key-exchange groups. */
    public Config(
        String bind,
        int port,
        Integer plainPort,
        String engine,
        String key,
        List<String> protocols,
        List<String> suites,
        Limits limits) {
      this(bind, port, plainPort, engine, key, protocols, suites, limits, "none", List.of());
    }

    /** Every problem of these settings, each naming the flag of {@code serve tlsecho}. */
    public List<String> problems() {
      List<String> problems = new ArrayList<>();
      TlsEngine tls = null;
      if (!engine.equals("none")) {
        try {
          tls = TlsEngine.parse(engine);
          if (tls.problem() != null) problems.add("--tls " + engine + ": " + tls.problem());
        } catch (IllegalArgumentException e) {
          problems.add("--tls " + engine + ": use jsse, openssl or none");
        }
      }
      if (!CLIENT_AUTH.contains(clientAuth))
        problems.add("--client-auth " + clientAuth + ": use none, want or need");
      else if (!clientAuth.equals("none") && engine.equals("none"))
        problems.add("--client-auth " + clientAuth + ": needs TLS; not with --tls none");
      if (limits.maxConnections() < 1)
        problems.add("--max-connections " + limits.maxConnections() + ": give at least 1");
      if (!TlsServerKeys.ALIASES.containsKey(key)) {
        problems.add(
            "--key " + key + ": use one of " + String.join(", ", TlsServerKeys.ALIASES.keySet()));
      }
      if (tls != null && tls.problem() == null) {
        TlsEngine chosen = tls; // effectively final, for the filter
        List<String> unknown = suites.stream().filter(s -> !chosen.implementsSuite(s)).toList();
        if (!unknown.isEmpty())
          problems.add("--suites: " + engine + " does not implement " + String.join(", ", unknown));
      }
      if (tls != null) problems.addAll(KeyExchangeGroups.problems("--groups", tls, groups));
      if (tls == null && !groups.isEmpty())
        problems.add("--groups: --tls none has no key exchange; use --tls openssl");
      if (tls == null && !resumption)
        problems.add("--resumption off: --tls none has no session to resume; leave it out");
      return problems;
    }
  }

  /**
   * The server {@code config} asks for, its certificate from {@code pki}; {@code notes} hears what
   * the engine will do otherwise than asked.
   */
  public static TlsEchoServer open(Config config, TestPki pki, Consumer<String> notes)
      throws Exception {
    if (config.engine().equals("none"))
      return new TlsEchoServer(null, "plain", config.bind(), config.port(), -1, config.limits());
    var tls = TlsEngine.parse(config.engine());
    List<String> tls13 = config.suites().stream().filter(s -> !s.contains("_WITH_")).toList();
    if (tls == TlsEngine.OPENSSL && !tls13.isEmpty()) {
      notes.accept(
          "note: --suites "
              + String.join(",", tls13)
              + ": BoringSSL offers all three TLS 1.3 suites whatever is chosen;"
              + " TLS 1.3 connections negotiate as if none were chosen");
    }
    var identity = TlsServerKeys.of(pki, config.key());
    var clientAuth =
        switch (config.clientAuth()) {
          case "want" -> ClientAuth.OPTIONAL;
          case "need" -> ClientAuth.REQUIRE;
          default -> ClientAuth.NONE;
        };
    // a client certificate must chain to the test PKI's root, as the key server's clients do
    SslContext context;
    String ticketsBefore = System.getProperty(JSSE_TICKETS);
    try {
      // JSSE has no per-context switch for RFC 5077 tickets: its server reads this property as
      // each SSLContext is made, so it is set for the making of this one and put back after.
      if (!config.resumption() && tls == TlsEngine.JSSE) System.setProperty(JSSE_TICKETS, "false");
      context =
          tls.server(
              identity.privateKey(),
              identity.chain(),
              config.protocols(),
              config.suites(),
              clientAuth,
              clientAuth == ClientAuth.NONE ? null : pki.certificate("root-ca"),
              config.groups());
    } finally {
      if (ticketsBefore == null) System.clearProperty(JSSE_TICKETS);
      else System.setProperty(JSSE_TICKETS, ticketsBefore);
    }
    // netty's BoringSSL sends no TLS 1.2 ticket unless asked (SSL_OP_NO_TICKET); its session
    // cache is the other way back in
    if (!config.resumption() && context.sessionContext() instanceof OpenSslSessionContext cache)
      cache.setSessionCacheEnabled(false);
    int plain =
        config.plainPort() != null
            ? config.plainPort()
            : config.port() == 0 ? 0 : config.port() + 1;
    String groups =
        config.groups().isEmpty() ? "" : ", groups " + String.join(",", config.groups());
    return new TlsEchoServer(
        context,
        tls.describe()
            + ", "
            + config.key()
            + " key"
            + groups
            + (config.clientAuth().equals("none")
                ? ""
                : ", client certificate "
                    + (config.clientAuth().equals("need") ? "required" : "asked for"))
            + (config.resumption() ? "" : ", no session resumption"),
        config.bind(),
        config.port(),
        plain,
        config.limits(),
        config.resumption());
  }

  /** The JDK's switch for its server's session tickets (RFC 5077). */
  private static final String JSSE_TICKETS = "jdk.tls.server.enableSessionTicketExtension";

  public TlsEchoServer(
      SslContext tls, String engine, String bind, int port, int plainPort, Limits limits) {
    this(tls, engine, bind, port, plainPort, limits, true);
  }

  /**
   * {@code resumption} false: each session is invalidated as its handshake completes, so a client
   * offering it again is given a full handshake (with no cache and no tickets, see {@link #open}).
   */
  public TlsEchoServer(
      SslContext tls,
      String engine,
      String bind,
      int port,
      int plainPort,
      Limits limits,
      boolean resumption) {
    this.resumption = resumption;
    this.tls = tls;
    this.engine = engine;
    this.bind = bind;
    this.port = port;
    this.plainPort = tls == null ? -1 : plainPort;
    this.limits = limits;
  }

  /** The transports {@code --transport} takes. */
  public static final List<String> TRANSPORTS = List.of("auto", "epoll", "nio");

  /** What {@code --transport} asked: auto (epoll where it loads, else NIO), epoll or nio. */
  private String transportAsked = "auto";

  /** The transport the event loops run on, once started: epoll or nio, with why. */
  private volatile String transport;

  /**
   * This server on {@code asked}'s transport: {@code auto}, Linux's epoll through netty's native
   * library where it loads (the selector's wake-ups and copies of Java's NIO are not TLS's cost),
   * else NIO; {@code epoll} fails to start where it cannot load; {@code nio}, Java's.
   */
  public TlsEchoServer onTransport(String asked) {
    if (!TRANSPORTS.contains(asked))
      throw new IllegalArgumentException(
          "--transport " + asked + ": choose " + String.join(", ", TRANSPORTS));
    transportAsked = asked;
    return this;
  }

  /** epoll or nio, and why where it is not what was asked; null before the start. */
  public String transport() {
    return transport;
  }

  public Counters counters() {
    return counters;
  }

  @Override
  public void start() throws InterruptedException {
    boolean epoll = !transportAsked.equals("nio") && Epoll.isAvailable();
    if (transportAsked.equals("epoll") && !epoll)
      throw new IllegalStateException(
          "--transport epoll: netty's native epoll does not load here ("
              + Epoll.unavailabilityCause().getMessage()
              + "); leave --transport out (auto) or give nio");
    transport =
        epoll
            ? "epoll"
            : transportAsked.equals("nio")
                ? "nio"
                : "nio (epoll does not load here: "
                    + Epoll.unavailabilityCause().getMessage()
                    + ")";
    IoHandlerFactory loops = epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
    serverChannel = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    boss = new MultiThreadIoEventLoopGroup(1, loops);
    workers = new MultiThreadIoEventLoopGroup(Runtime.getRuntime().availableProcessors(), loops);
    try {
      tlsChannel = bootstrap(tls).bind(bind, port).sync().channel();
      if (plainPort >= 0) plainChannel = bootstrap(null).bind(bind, plainPort).sync().channel();
    } catch (Exception e) {
      close();
      throw new IllegalStateException(
          "cannot listen on "
              + bind
              + ":"
              + (tlsChannel == null ? port : plainPort)
              + ": "
              + e.getMessage()
              + "; choose another --port"
              + (tlsChannel == null ? "" : " or --plain-port"),
          e);
    }
  }

  private ServerBootstrap bootstrap(SslContext context) {
    return new ServerBootstrap()
        .group(boss, workers)
        .channel(serverChannel)
        .option(ChannelOption.SO_BACKLOG, 1024)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(
            new ChannelInitializer<SocketChannel>() {
              @Override
              protected void initChannel(SocketChannel ch) {
                if (counters.open.incrementAndGet() > limits.maxConnections()) {
                  counters.open.decrementAndGet();
                  counters.refused.incrementAndGet();
                  ch.close();
                  return;
                }
                InetAddress source = ch.remoteAddress().getAddress();
                AtomicLong fromSource = perAddress.computeIfAbsent(source, a -> new AtomicLong());
                if (fromSource.incrementAndGet() > limits.maxConnectionsPerAddress()) {
                  release(source, fromSource);
                  counters.open.decrementAndGet();
                  counters.refused.incrementAndGet();
                  ch.close();
                  return;
                }
                ch.closeFuture()
                    .addListener(
                        f -> {
                          counters.open.decrementAndGet();
                          release(source, fromSource);
                        });
                if (context != null) {
                  ch.pipeline().addLast(new NoRenegotiation(counters));
                  SslHandler ssl = context.newHandler(ch.alloc());
                  ssl.setHandshakeTimeoutMillis(limits.handshakeTimeout().toMillis());
                  if (!resumption)
                    ssl.handshakeFuture()
                        .addListener(
                            done -> {
                              if (done.isSuccess()) ssl.engine().getSession().invalidate();
                            });
                  ch.pipeline().addLast(ssl);
                }
                ch.pipeline()
                    .addLast(
                        new IdleStateHandler(
                            limits.idleTimeout().toMillis(), 0, 0, TimeUnit.MILLISECONDS));
                ch.pipeline().addLast(new Transactions(counters, limits.frameDeadline()));
              }
            });
  }

  private void release(InetAddress source, AtomicLong count) {
    if (count.decrementAndGet() <= 0) perAddress.remove(source, count);
  }

  @Override
  public String baseUrl() {
    return (tls == null ? "tcp" : "tls") + "://" + address(tlsChannel);
  }

  /** The plain port's URL when TLS is served too, else null. */
  public String plainUrl() {
    return plainChannel == null ? null : "tcp://" + address(plainChannel);
  }

  private static String address(Channel channel) {
    InetSocketAddress a = (InetSocketAddress) channel.localAddress();
    String host = a.getAddress().getHostAddress();
    return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
  }

  @Override
  public String details() {
    String plain =
        tls == null
            ? "plain TCP only"
            : plainChannel == null
                ? engine + ", no plain port"
                : engine + ", plain TCP at " + plainUrl();
    return plain
        + "; transport "
        + transport
        + "; idle timeout "
        + limits.idleTimeout().toSeconds()
        + " s, a frame whole within "
        + limits.frameDeadline().toSeconds()
        + " s, at most "
        + limits.maxConnections()
        + " connections, "
        + limits.maxConnectionsPerAddress()
        + " per address; client renegotiation refused";
  }

  @Override
  public void close() {
    if (tlsChannel != null) tlsChannel.close().syncUninterruptibly();
    if (plainChannel != null) plainChannel.close().syncUninterruptibly();
    if (workers != null) workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    if (boss != null) boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /**
   * Refuses a client's renegotiation on either engine by reading the TLS record headers ahead of
   * the engine: up to TLS 1.2 a client sends one handshake record (its Finished) after its
   * ChangeCipherSpec, so a further handshake record is a new handshake it started, and the
   * connection is closed before the engine sees it. TLS 1.3 has no renegotiation and hides record
   * types after its handshake, so nothing there is refused. (JSSE would renegotiate without limit:
   * 126 handshakes in 10 s on one connection, issue 25.)
   */
  static final class NoRenegotiation extends ChannelInboundHandlerAdapter {
    private static final int CHANGE_CIPHER_SPEC = 20;
    private static final int HANDSHAKE = 22;
    private final Counters counters;
    private final byte[] recordHeader = new byte[5];
    private int headerFilled;
    private int bodyLeft;
    private boolean changeCipherSpecSeen;
    private int handshakeRecordsAfterIt;
    private boolean notTls;

    NoRenegotiation(Counters counters) {
      this.counters = counters;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (notTls || !(msg instanceof ByteBuf in)) {
        ctx.fireChannelRead(msg);
        return;
      }
      int i = in.readerIndex();
      int end = in.writerIndex();
      while (i < end) {
        if (bodyLeft > 0) {
          int skip = Math.min(bodyLeft, end - i);
          bodyLeft -= skip;
          i += skip;
          continue;
        }
        recordHeader[headerFilled++] = in.getByte(i++);
        if (headerFilled < recordHeader.length) continue;
        headerFilled = 0;
        int type = recordHeader[0] & 0xff;
        bodyLeft = ((recordHeader[3] & 0xff) << 8) | (recordHeader[4] & 0xff);
        if (type < 20 || type > 24) {
          notTls = true; // not a TLS record stream: the engine refuses it as it always has
          break;
        }
        if (type == CHANGE_CIPHER_SPEC) changeCipherSpecSeen = true;
        else if (type == HANDSHAKE && changeCipherSpecSeen && ++handshakeRecordsAfterIt > 1) {
          counters.renegotiationsRefused.incrementAndGet();
          in.release();
          ctx.close();
          return;
        }
      }
      ctx.fireChannelRead(msg);
    }
  }
}
