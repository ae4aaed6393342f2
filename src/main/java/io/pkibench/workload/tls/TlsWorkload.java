package io.pkibench.workload.tls;

import io.netty.handler.ssl.SslContext;
import io.pkibench.formats.tls.Connection;
import io.pkibench.formats.tls.EchoProtocol;
import io.pkibench.formats.tls.KeyExchangeGroups;
import io.pkibench.plan.Durations;
import io.pkibench.text.OutsideText;
import io.pkibench.workload.api.Operation;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.CRC32;

/**
 * The client side of the netperf-style transactions against {@code serve tlsecho} (or any server
 * speaking {@link EchoProtocol}): {@code tls-rr} request/response on a kept connection, {@code
 * tls-acrr} a new connection with a full handshake per transaction, {@code tls-stream} frames on a
 * kept connection acknowledged in bulk. A transaction counts only when every byte it got back is
 * the one expected; a Stream send is confirmed by the acknowledgement that follows it (frames,
 * bytes and CRC-32 must match), so up to {@code ack - 1} sends per worker at the very end of a run
 * are counted before any acknowledgement could confirm them. {@code tls://} targets speak TLS
 * through the chosen engine, {@code tcp://} plain TCP. {@code tls-rr} also runs against any plain
 * echo (socat, a gateway's echo service): with {@code -p framing=auto} a kept connection whose
 * first request comes back whole, frame header and all, is a plain echo, and from then on each
 * transaction is {@code size} raw bytes each way, every byte compared; {@code -p framing=none}
 * sends raw bytes from the start.
 */
public final class TlsWorkload implements Workload {
  /** The three transaction types of IBM's table 5.6. */
  public enum Kind {
    RR("tls-rr", "request/response on a kept connection (netperf TCP_RR): -p size bytes each way"),
    ACRR(
        "tls-acrr",
        "connect with a full handshake, send -p request bytes, receive -p response bytes, close (netperf TCP_CRR)"),
    STREAM(
        "tls-stream",
        "-p size sends on a kept connection, acknowledged every -p ack sends with a count and CRC-32 (netperf TCP_STREAM)");

    public final String workload;
    final String description;

    Kind(String workload, String description) {
      this.workload = workload;
      this.description = description;
    }
  }

  private final Kind kind;
  private final InetSocketAddress address;
  private final SslContext tls;
  private final String suite;
  private final int timeoutMillis;
  private final int requestBytes;
  private final int responseBytes;
  private final int framesPerAck;
  private final String target;

  /** {@code framesPerAck} for {@code -p ack=echo}: no framing, every send read back. */
  static final int ECHO = -1;

  /**
   * {@code tls-rr}'s framing: tlsecho's frames only, raw bytes only, or tlsecho's until a
   * connection shows itself a plain echo.
   */
  enum Framing {
    TLSECHO,
    NONE,
    AUTO
  }

  private final Framing framing;

  /**
   * The key-exchange groups offered (empty: the engine's); each handshake's group, read from the
   * session, must be one of them.
   */
  private final List<String> groups;

  /** Every worker's kept connection, so closing the workload closes them. */
  private final Set<Connection> kept = ConcurrentHashMap.newKeySet();

  private TlsWorkload(
      Kind kind,
      String target,
      InetSocketAddress address,
      SslContext tls,
      String suite,
      int timeoutMillis,
      int requestBytes,
      int responseBytes,
      int framesPerAck,
      List<String> groups,
      Framing framing) {
    this.kind = kind;
    this.framing = framing;
    this.groups = groups;
    this.target = target;
    this.address = address;
    this.tls = tls;
    this.suite = suite;
    this.timeoutMillis = timeoutMillis;
    this.requestBytes = requestBytes;
    this.responseBytes = responseBytes;
    this.framesPerAck = framesPerAck;
  }

  public static final class Factory implements WorkloadFactory {
    private final Kind kind;

    public Factory(Kind kind) {
      this.kind = kind;
    }

    @Override
    public String name() {
      return kind.workload;
    }

    @Override
    public String description() {
      return kind.description;
    }

    /**
     * True: {@code -p client} takes the client's key from {@code --keys} (software, pkcs11,
     * remote).
     */
    @Override
    public boolean usesKeys() {
      return true;
    }

    @Override
    public List<ParamSpec> params() {
      return EchoParams.specs(kind);
    }

    @Override
    public List<String> workerProblems(Params params, int workers, String level) {
      return WorkerClients.workerProblems(params, workers, level);
    }

    @Override
    public List<String> problems(Params params, String keys) {
      List<String> problems = new ArrayList<>(ClientTlsParams.problems(params));
      String target = params.get(ParamSpec.TARGET);
      if (!target.isBlank() && socketTarget(target).isEmpty()) problems.add(badTarget(target));
      problems.addAll(WorkerClients.problems(params));
      if (!params.get(WorkerClients.IDENTITIES).isEmpty()
          && params.get(ParamSpec.TARGET).startsWith("tcp:")) {
        problems.add(
            "-p identities: "
                + params.get(ParamSpec.TARGET)
                + " is plain TCP, where no certificate is presented; use a tls:// target");
      }
      problems.addAll(
          SourceAddresses.problems(
              "-p " + SourceAddresses.PARAM,
              params.get(SourceAddresses.PARAM),
              hostOf(params.get(ParamSpec.TARGET))));
      return problems;
    }

    @Override
    public long sourceAddresses(Params params) {
      return SourceAddresses.parse(params.get(SourceAddresses.PARAM))
          .count(hostOf(params.get(ParamSpec.TARGET)));
    }

    /** One connection per worker: kept (RR, Stream) or opened per transaction (ACRR). */
    @Override
    public int socketsPerWorker(Params params) {
      return 1;
    }

    @Override
    public Workload create(WorkloadContext context, Params params) throws Exception {
      String target = params.get(ParamSpec.TARGET);
      URI uri =
          socketTarget(target).orElseThrow(() -> new IllegalArgumentException(badTarget(target)));
      boolean secure = "tls".equals(uri.getScheme());
      int request, response, ack = 0;
      switch (kind) {
        case RR -> request = response = params.bytes("size");
        case ACRR -> {
          request = params.bytes("request");
          response = params.bytes("response");
        }
        default -> {
          request = params.bytes("size");
          response = 0;
          if (params.get("ack").equals("echo")) {
            ack = ECHO;
          } else {
            try {
              ack = Integer.parseInt(params.get("ack"));
            } catch (NumberFormatException e) {
              ack = 0;
            }
            if (ack < 1)
              throw new IllegalArgumentException(
                  "-p ack="
                      + params.get("ack")
                      + ": give the sends per acknowledgement, 1 or more, or echo");
          }
        }
      }
      if (request < 1
          || request > EchoProtocol.MAX_FRAME_BYTES
          || response > EchoProtocol.MAX_FRAME_BYTES) {
        throw new IllegalArgumentException(
            "-p sizes: between 1 byte and 1m, the largest frame the echo server takes");
      }
      String suite = params.get("suite");
      String protocol = params.get("protocol");
      List<String> groups = KeyExchangeGroups.parse(params.get("groups"));
      SslContext tls = null;
      WorkerClients clients = null;
      if (secure) {
        var client = ClientTlsParams.read(context, params);
        tls = client.context();
        clients = WorkerClients.of(context, params, client);
      } else if (!suite.isEmpty() || !protocol.isEmpty() || !groups.isEmpty()) {
        throw new IllegalArgumentException(
            "-p suite / -p protocol: " + target + " is plain TCP; use a tls:// target");
      }
      int timeout =
          (int) Math.min(Integer.MAX_VALUE, Durations.parse(params.get("timeout")).toMillis());
      Framing framing =
          kind == Kind.RR
              ? Framing.valueOf(params.get("framing").toUpperCase(Locale.ROOT))
              : Framing.TLSECHO;
      TlsWorkload w =
          new TlsWorkload(
              kind,
              target,
              new InetSocketAddress(uri.getHost(), uri.getPort()),
              tls,
              suite,
              timeout,
              request,
              response,
              ack,
              groups,
              framing);
      w.sources = SourceAddresses.parse(params.get(SourceAddresses.PARAM));
      w.clients = clients;
      w.portsPerAddress = SocketBudget.ofThisProcess().ephemeralPorts();
      w.loopbackTarget = SourceAddresses.isLoopback(uri.getHost());
      return w;
    }
  }

  /**
   * The host of a {@code scheme://HOST:PORT} target, or null when there is none or it cannot be
   * read.
   */
  /** A {@code tls://HOST:PORT} or {@code tcp://HOST:PORT} target, or empty when it is not one. */
  static Optional<URI> socketTarget(String target) {
    try {
      URI uri = URI.create(target);
      boolean known = "tls".equals(uri.getScheme()) || "tcp".equals(uri.getScheme());
      return known && uri.getHost() != null && uri.getPort() >= 0
          ? Optional.of(uri)
          : Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  static String badTarget(String target) {
    return "--target "
        + OutsideText.forTerminal(target)
        + ": write tls://HOST:PORT or tcp://HOST:PORT, e.g. tls://127.0.0.1:8444";
  }

  static String hostOf(String target) {
    try {
      return target == null || target.isEmpty() ? null : URI.create(target).getHost();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private Connection connect(int worker, SslContext context) throws IOException {
    return Dialer.connect(
        address,
        sources.forWorker(worker, portsPerAddress, loopbackTarget),
        target,
        context,
        suite,
        groups,
        timeoutMillis);
  }

  /**
   * With -p identities, each worker's own client; else (or over tcp://) every worker shares {@link
   * #tls}.
   */
  private WorkerClients clients;

  /**
   * The context worker {@code worker}'s connections handshake with: its own identity's with -p
   * identities, else the shared one.
   */
  private SslContext contextFor(int worker) throws Exception {
    return clients == null || !clients.perWorker() ? tls : clients.forWorker(worker).context();
  }

  /**
   * Where the connections leave from ({@code -p source-addresses}); the ports one address has;
   * whether the target is on loopback.
   */
  private SourceAddresses sources = SourceAddresses.parse(SourceAddresses.AUTO);

  private int portsPerAddress = Integer.MAX_VALUE;
  private boolean loopbackTarget;

  @Override
  public Operation newOperation(int worker) throws Exception {
    SslContext context = contextFor(worker);
    SplittableRandom random = new SplittableRandom(0x5eed + worker);
    byte[] frame = new byte[EchoProtocol.HEADER_BYTES + requestBytes];
    random.nextBytes(frame);
    byte kindByte = kind == Kind.STREAM ? EchoProtocol.STREAM : EchoProtocol.REQUEST;
    System.arraycopy(
        EchoProtocol.header(kindByte, requestBytes, responseBytes),
        0,
        frame,
        0,
        EchoProtocol.HEADER_BYTES);
    // a short request's random first byte must not be the header's first, or tlsecho's answer would
    // pass for a plain echo's
    if (frame[EchoProtocol.HEADER_BYTES] == frame[0]) frame[EchoProtocol.HEADER_BYTES] ^= 1;
    return switch (kind) {
      case RR ->
          new KeptConnection(worker, context, frame) {
            private final byte[] sent =
                Arrays.copyOfRange(frame, EchoProtocol.HEADER_BYTES, frame.length);
            private final byte[] back = new byte[requestBytes];

            /**
             * This connection answers by echoing bytes: framing=none, or auto once it sent a frame
             * back whole.
             */
            private boolean plainEcho;

            @Override
            void reset() {
              plainEcho = framing == Framing.NONE;
            }

            @Override
            void transact(Connection c, long sequence) throws IOException {
              if (plainEcho) echoRaw(c, sent, back, sequence);
              else plainEcho = !exchange(c, frame, sequence);
            }
          };
      case ACRR ->
          () -> {
            try (Connection c = connect(worker, context)) {
              exchange(c, frame, System.nanoTime());
            }
          };
      case STREAM ->
          framesPerAck == ECHO
              ? new KeptConnection(worker, context, frame) {
                private final byte[] sent =
                    Arrays.copyOfRange(frame, EchoProtocol.HEADER_BYTES, frame.length);
                private final byte[] back = new byte[requestBytes];

                @Override
                void transact(Connection c, long sequence) throws IOException {
                  echoRaw(c, sent, back, sequence);
                }
              }
              : new KeptConnection(worker, context, frame) {
                private final CRC32 crc = new CRC32();
                private int frames;
                private long bytes;
                private final byte[] ack = new byte[EchoProtocol.ACK_BYTES];

                @Override
                void reset() {
                  // a new connection is a new stream on the server: count afresh
                  crc.reset();
                  frames = 0;
                  bytes = 0;
                }

                @Override
                void transact(Connection c, long sequence) throws IOException {
                  stamp(frame, sequence);
                  c.write(frame, 0, frame.length);
                  crc.update(frame, EchoProtocol.HEADER_BYTES, requestBytes);
                  frames++;
                  bytes += requestBytes;
                  if (frames < framesPerAck) return;
                  byte[] ask = EchoProtocol.header(EchoProtocol.ACKNOWLEDGE, 0, 0);
                  c.write(ask, 0, ask.length);
                  c.readFully(ack, 0, ack.length);
                  EchoProtocol.Ack got = EchoProtocol.Ack.decode(ack),
                      sent = EchoProtocol.Ack.of(frames, crc, bytes);
                  frames = 0;
                  bytes = 0;
                  crc.reset();
                  if (!got.equals(sent)) {
                    throw new IOException(
                        "stream acknowledgement differs: sent "
                            + sent.frames()
                            + " frames, "
                            + sent.bytes()
                            + " bytes, CRC-32 "
                            + Integer.toHexString(sent.crc32())
                            + "; the server got "
                            + got.frames()
                            + ", "
                            + got.bytes()
                            + ", "
                            + Integer.toHexString(got.crc32()));
                  }
                }
              };
    };
  }

  @Override
  public void close() {
    for (Connection c : kept) c.close();
    kept.clear();
  }

  /**
   * Part of a response, read in two parts; a server closing within it is said of the whole
   * response.
   */
  private static void readResponse(Connection c, byte[] response, int offset, int length)
      throws IOException {
    try {
      c.readFully(response, offset, length);
    } catch (EOFException e) {
      throw new EOFException(
          "the server closed the connection within the "
              + response.length
              + "-byte response, "
              + offset
              + " bytes in ("
              + e.getMessage()
              + ")");
    }
  }

  /**
   * Raw bytes, no header, to a plain echo server, which returns exactly what it got: every byte
   * read back and compared.
   */
  private void echoRaw(Connection c, byte[] sent, byte[] back, long sequence) throws IOException {
    if (sent.length >= 8) ByteBuffer.wrap(sent, 0, 8).putLong(sequence);
    c.write(sent, 0, sent.length);
    try {
      c.readFully(back, 0, back.length);
    } catch (EOFException e) {
      throw new EOFException(
          "the server closed the connection within the "
              + back.length
              + "-byte echo ("
              + e.getMessage()
              + ")"
              + (kind == Kind.RR
                  ? "; -p framing=none sends raw bytes, which serve tlsecho refuses: use framing=auto"
                  : ""));
    }
    int differs = Arrays.mismatch(sent, back);
    if (differs >= 0)
      throw new IOException(
          "the echo differs from what was sent at byte " + differs + " of " + sent.length);
  }

  /**
   * One request/response: the answer must be the request repeated, byte for byte. Returns false
   * when the server sent the frame back whole instead (a plain echo; tls-rr with -p framing=auto),
   * every byte of it compared.
   */
  private boolean exchange(Connection c, byte[] frame, long sequence) throws IOException {
    stamp(frame, sequence);
    c.write(frame, 0, frame.length);
    byte[] response = new byte[responseBytes];
    // the first bytes alone first: a plain echo sends back fewer than a long response, and would
    // leave us waiting out the timeout
    int header = Math.min(EchoProtocol.HEADER_BYTES, responseBytes);
    readResponse(c, response, 0, header);
    if (Arrays.equals(response, 0, header, frame, 0, header)) {
      // our own frame header came back: the server echoes bytes, it does not speak tlsecho's
      // request/response frames
      if (kind == Kind.RR && framing == Framing.AUTO) {
        byte[] echoed = Arrays.copyOf(response, frame.length);
        readResponse(c, echoed, header, frame.length - header);
        int differs = Arrays.mismatch(echoed, frame);
        if (differs >= 0)
          throw new IOException(
              "the echo differs from what was sent at byte " + differs + " of " + frame.length);
        return false;
      }
      throw new IOException(
          "the server sent the request frame back, header and all: a plain echo, not serve tlsecho's protocol; "
              + (kind == Kind.RR
                  ? "-p framing=auto (the default) or none runs tls-rr against a plain echo"
                  : "tls-acrr needs serve tlsecho's protocol; against a web server use https-acrr"));
    }
    readResponse(c, response, header, responseBytes - header);
    for (int i = 0; i < responseBytes; i += requestBytes) {
      int n = Math.min(requestBytes, responseBytes - i);
      if (!Arrays.equals(
          response, i, i + n, frame, EchoProtocol.HEADER_BYTES, EchoProtocol.HEADER_BYTES + n)) {
        throw new IOException(
            "the response differs from the request at byte " + i + " of " + responseBytes);
      }
    }
    return true;
  }

  /**
   * Each transaction's bytes differ from the last (a sequence number first), so a stale or replayed
   * answer shows.
   */
  private static void stamp(byte[] frame, long sequence) {
    if (frame.length >= EchoProtocol.HEADER_BYTES + 8)
      ByteBuffer.wrap(frame, EchoProtocol.HEADER_BYTES, 8).putLong(sequence);
  }

  /** A worker's one connection, opened when first used and again after it failed. */
  private abstract class KeptConnection implements Operation {
    final byte[] frame;
    private final int worker;
    private final SslContext context;
    private Connection connection;
    private long sequence;

    KeptConnection(int worker, SslContext context, byte[] frame) {
      this.worker = worker;
      this.context = context;
      this.frame = frame;
    }

    abstract void transact(Connection c, long sequence) throws IOException;

    void reset() {}

    @Override
    public void execute() throws Exception {
      if (connection == null) {
        connection = connect(worker, context);
        kept.add(connection);
        reset();
      }
      try {
        transact(connection, ++sequence);
      } catch (IOException | RuntimeException e) {
        kept.remove(connection);
        connection.close();
        connection = null;
        throw e;
      }
    }
  }
}
