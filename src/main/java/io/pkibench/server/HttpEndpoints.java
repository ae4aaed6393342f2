package io.pkibench.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import io.pkibench.server.BodyBytesInFlight.OverBudget;
import io.pkibench.server.BodyBytesInFlight.Reservation;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import javax.net.ssl.SSLContext;

/**
 * The small plain-HTTP servers (TSA, CRL) run on the JDK's HttpServer: one or two fixed endpoints,
 * no TLS (RFC 3161 and CRL distribution points are plain HTTP), no dependency; each exchange runs
 * on a virtual thread. Binds to loopback unless told otherwise. The request bodies held at once are
 * bounded across requests ({@link BodyBytesInFlight}); over HTTPS a client's renegotiation is
 * refused ({@link NoClientRenegotiation}).
 */
public abstract class HttpEndpoints implements ReferenceServer {
  /** Bodies above this are refused with 413 before being read whole (the signer allows more). */
  protected static final int MAX_BODY_BYTES = 64 * 1024;

  /** How long an idle keep-alive connection stays open: three times the JDK HttpClient's 30 s. */
  static final Duration IDLE_KEEP_ALIVE = Duration.ofSeconds(90);

  /**
   * How long a request may take to arrive, from its first byte (a TLS handshake's included) to its
   * body's last.
   */
  static final Duration MAX_REQUEST_TIME = Duration.ofSeconds(60);

  /** Open connections at most, busy and idle. */
  static final int MAX_CONNECTIONS = 2_000;

  /**
   * Request line and headers: past these, 414 or 431 (browsers send about 20 headers and 1-2 KB).
   */
  static final int MAX_URI_CHARS = 8 * 1024;

  static final int MAX_HEADERS = 100;
  static final int MAX_HEADER_BYTES = 32 * 1024;

  /**
   * What a client refused for want of memory is told to wait ({@code Retry-After}): the bodies
   * holding it are read in about that long.
   */
  static final long RETRY_AFTER_SECONDS = 1;

  static {
    // The JDK's HttpServer and HttpClient both drop idle keep-alive connections after 30 s, so a
    // client could send a request on a connection the server was closing that instant (an EOF on
    // 1 of 13,818 CAdES-T in a study). A server should outwait its clients. The JDK reads this
    // once, when the first server of the process is made, which is why it is set here, before
    // any; an operator's own -Dsun.net.httpserver.idleInterval wins.
    if (System.getProperty("sun.net.httpserver.idleInterval") == null) {
      System.setProperty(
          "sun.net.httpserver.idleInterval", String.valueOf(IDLE_KEEP_ALIVE.toSeconds()));
    }
    // A client that sends its request slowly or not at all (slowloris: headers a line at a time,
    // half a
    // TLS ClientHello, nothing after connecting) is cut off after this long; the JDK server
    // otherwise
    // waits forever. In seconds, as the JDK reads it. Generous for a 32 MB upload; an operator's -D
    // wins.
    if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
      System.setProperty(
          "sun.net.httpserver.maxReqTime", String.valueOf(MAX_REQUEST_TIME.toSeconds()));
    }
    // Past this many open connections the JDK server closes a new one as soon as it is accepted: a
    // flood
    // of idle or slow connections cannot use up the process's file descriptors.
    if (System.getProperty("jdk.httpserver.maxConnections") == null) {
      System.setProperty("jdk.httpserver.maxConnections", String.valueOf(MAX_CONNECTIONS));
    }
  }

  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final RandomGenerator incidents = new SecureRandom();
  private volatile Consumer<String> log = line -> {};
  private final BodyBytesInFlight inFlight;
  private final AtomicLong renegotiationsRefused = new AtomicLong();

  protected HttpEndpoints(String bindAddress, int port) throws IOException {
    this(bindAddress, port, null);
  }

  /** With {@code tls}, HTTPS (the signing service); without, plain HTTP (TSA, CRLs). */
  protected HttpEndpoints(String bindAddress, int port, SSLContext tls) throws IOException {
    this(bindAddress, port, tls, bodyBytesInFlightForThisHeap());
  }

  /**
   * What a server holds of request bodies at once unless told: {@link BodyBytesInFlight#forHeap} of
   * this JVM's heap.
   */
  protected static long bodyBytesInFlightForThisHeap() {
    return BodyBytesInFlight.forHeap(Runtime.getRuntime().maxMemory());
  }

  /**
   * As {@link #HttpEndpoints(String, int, javax.net.ssl.SSLContext)}, holding at most {@code
   * maxBodyBytesInFlight} of request bodies at once (tests make it small).
   */
  protected HttpEndpoints(String bindAddress, int port, SSLContext tls, long maxBodyBytesInFlight)
      throws IOException {
    inFlight = new BodyBytesInFlight(maxBodyBytesInFlight);
    InetSocketAddress address = new InetSocketAddress(bindAddress, port);
    if (tls == null) {
      server = HttpServer.create(address, 512);
    } else {
      HttpsServer https = HttpsServer.create(address, 512);
      // The JDK's HttpsServer renegotiates whenever a client asks (testssl.sh rates that HIGH):
      // refused as tlsecho refuses it.
      https.setHttpsConfigurator(
          new HttpsConfigurator(NoClientRenegotiation.refusing(tls, this::renegotiationRefused)));
      server = https;
    }
    server.setExecutor(executor);
  }

  private void renegotiationRefused() {
    long refused = renegotiationsRefused.incrementAndGet();
    if (refused == 1 || refused % 1000 == 0)
      log.accept(
          "a TLS client's renegotiation refused and its connection closed: " + refused + " so far");
  }

  /**
   * Every request gets an answer: a fault of ours (an exception no handler turned into a refusal)
   * is answered 500 with an incident id, and the id is logged with the cause, so that the reply
   * tells the client nothing of our insides and the operator everything. The exchange is closed
   * only after that; a fault after the status was sent cuts the connection, so that the client
   * cannot take the part for the whole.
   */
  protected void route(String path, Handler handler) {
    route(path, MAX_BODY_BYTES, handler);
  }

  /**
   * As {@link #route(String, Handler)}, for a handler that reads bodies of up to {@code
   * maxBodyBytes} with {@link #bodyUpTo}. Before the handler runs, the body's declared length is
   * reserved from the bytes in flight (a chunked body's bytes as they arrive); a request that does
   * not fit is answered 503 with Retry-After, its body read and dropped first, and the reservation
   * is given back when the request is done. The heap running out all the same is answered 503 too,
   * and that connection closed.
   */
  protected void route(String path, int maxBodyBytes, Handler handler) {
    server.createContext(
        path,
        exchange -> {
          boolean cutMidAnswer = false;
          Reservation reservation = null;
          try {
            String oversized = oversized(exchange);
            if (oversized != null) {
              refuseOversized(exchange, oversized.startsWith("URI") ? 414 : 431, oversized);
              return;
            }
            reservation = reserve(exchange, maxBodyBytes);
            if (reservation == null) return; // refused, and answered
            handler.handle(exchange);
          } catch (OverBudget e) {
            if (exchange.getResponseCode() == -1) {
              try {
                refuseBusy(exchange, reservation.body, maxBodyBytes);
              } catch (IOException gone) {
                // the client went away
              }
            }
          } catch (IOException e) {
            // the client went away mid-answer: nothing to tell it
          } catch (OutOfMemoryError e) {
            // Bodies are bounded, not all that handling them allocates: a request that met the end
            // of the heap is still
            // answered (the JDK's server would drop it unanswered), and its connection closed.
            String incident = incident();
            log.accept(
                "out of memory "
                    + incident
                    + " on "
                    + exchange.getRequestMethod()
                    + " "
                    + exchange.getRequestURI().getPath()
                    + ": "
                    + e
                    + " (request bodies in flight: "
                    + inFlight.held() / (1024 * 1024)
                    + " MB of "
                    + inFlight.maxBytes() / (1024 * 1024)
                    + " MB); answered 503");
            if (exchange.getResponseCode() == -1) {
              try {
                exchange.getResponseHeaders().set("Connection", "close");
                refuseForMemory(
                    exchange,
                    503,
                    "the server ran out of memory handling this request (incident "
                        + incident
                        + "); try again later",
                    RETRY_AFTER_SECONDS);
              } catch (IOException | OutOfMemoryError gone) {
                // the client went away, or there is not even memory to answer: the connection is
                // closed below
              }
            } else {
              cutMidAnswer = true;
              throw new IllegalStateException(
                  "out of memory " + incident + " mid-answer: connection cut", e);
            }
          } catch (RuntimeException | Error e) {
            String incident = incident();
            log.accept(
                "internal error "
                    + incident
                    + " on "
                    + exchange.getRequestMethod()
                    + " "
                    + exchange.getRequestURI().getPath()
                    + ": "
                    + e
                    + (e.getStackTrace().length > 0 ? " at " + e.getStackTrace()[0] : ""));
            if (exchange.getResponseCode()
                == -1) { // nothing sent yet: the client can still be told
              try {
                internalError(exchange, incident);
              } catch (IOException gone) {
                // the client went away
              }
            } else {
              // The answer had begun: closing the exchange would end it as if it were whole (a
              // chunked
              // "partial" read as complete). Thrown out of the handler, the JDK's server cuts the
              // connection instead.
              cutMidAnswer = true;
              throw new IllegalStateException(
                  "internal error " + incident + " mid-answer: connection cut", e);
            }
          } finally {
            if (reservation != null) inFlight.release(reservation.bytes);
            if (!cutMidAnswer) exchange.close();
          }
        });
  }

  private String incident() {
    return Long.toHexString(incidents.nextLong() & 0xffff_ffffL);
  }

  /**
   * Reserves the request's body from the budget, or answers it and returns null: 503 when the body
   * does not fit now, 413 when it could never fit. A body declared longer than {@code maxBodyBytes}
   * reserves nothing: {@link #bodyUpTo} refuses it without keeping a byte.
   */
  private Reservation reserve(HttpExchange exchange, int maxBodyBytes) throws IOException {
    InputStream body = exchange.getRequestBody();
    long declared = declaredLength(exchange);
    if (declared < 0) {
      Reservation growing = new Reservation(body, 0);
      exchange.setStreams(inFlight.budgeted(body, growing), null);
      return growing;
    }
    if (declared == 0 || declared > maxBodyBytes) return new Reservation(body, 0);
    if (declared > inFlight.maxBytes()) {
      // read and dropped first, as for a 503 (see refuseBusy): the client, still sending, must not
      // be reset before it reads the answer
      if (!dropUpTo(body, maxBodyBytes + 1L))
        exchange.getResponseHeaders().set("Connection", "close");
      refuseForMemory(
          exchange,
          413,
          "a request body of "
              + declared
              + " bytes; this server holds at most "
              + inFlight.maxBytes()
              + " bytes of request bodies at once (an eighth of its heap): send a smaller one, or give the server a larger -Xmx",
          0);
      return null;
    }
    if (!inFlight.tryReserve(declared)) {
      refuseBusy(exchange, body, maxBodyBytes);
      return null;
    }
    return new Reservation(body, declared);
  }

  /**
   * 503 with Retry-After. The body is read to its end and dropped first (no more than {@code
   * maxBodyBytes} of it, or the connection is closed after): a server that closes a connection its
   * client is still sending on resets it, and the client can lose the answer with it.
   */
  private void refuseBusy(HttpExchange exchange, InputStream body, long maxBodyBytes)
      throws IOException {
    long refused = inFlight.refused();
    if (refused == 1 || refused % 1000 == 0) {
      log.accept(
          "request bodies in flight at their budget ("
              + inFlight.held() / (1024 * 1024)
              + " MB of "
              + inFlight.maxBytes() / (1024 * 1024)
              + " MB): requests refused with 503, "
              + refused
              + " so far");
    }
    if (!dropUpTo(body, maxBodyBytes + 1)) exchange.getResponseHeaders().set("Connection", "close");
    refuseForMemory(
        exchange,
        503,
        "the server holds as many request bodies as its memory allows ("
            + inFlight.maxBytes() / (1024 * 1024)
            + " MB); try again in "
            + RETRY_AFTER_SECONDS
            + " s",
        RETRY_AFTER_SECONDS);
  }

  /** Reads and drops up to {@code limit} bytes of {@code in}: true when it ended within them. */
  private static boolean dropUpTo(InputStream in, long limit) throws IOException {
    byte[] dropped = new byte[8192];
    for (long left = limit; left > 0; ) {
      int n = in.read(dropped, 0, (int) Math.min(dropped.length, left));
      if (n < 0) return true;
      left -= n;
    }
    return in.read() < 0;
  }

  /**
   * What is too large in the request line or headers, or null. Answered 414 or 431 here, well below
   * the JDK's own limits (200 headers, 380 KB: past those it closes the connection unanswered, and
   * raising them would let each of 2,000 connections hold megabytes while its headers are parsed).
   */
  static String oversized(HttpExchange exchange) {
    int uri = exchange.getRequestURI().toString().length();
    if (uri > MAX_URI_CHARS) return "URI of " + uri + " characters; at most " + MAX_URI_CHARS;
    int count = 0;
    long bytes = 0;
    for (var header : exchange.getRequestHeaders().entrySet()) {
      for (String value : header.getValue()) {
        count++;
        bytes += header.getKey().length() + value.length() + 4;
      }
    }
    if (count > MAX_HEADERS) return count + " header lines; at most " + MAX_HEADERS;
    if (bytes > MAX_HEADER_BYTES) return bytes + " bytes of headers; at most " + MAX_HEADER_BYTES;
    return null;
  }

  /**
   * The answer to a request line or headers over the limits; a service with its own error format
   * overrides it.
   */
  protected void refuseOversized(HttpExchange exchange, int status, String why) throws IOException {
    refuse(exchange, status, why);
  }

  /**
   * The answer to a request refused for want of memory (503, or 413 for a body larger than the
   * server ever holds), with {@code Retry-After} when {@code retryAfterSeconds} is above 0; a
   * service with its own error format overrides it.
   */
  protected void refuseForMemory(
      HttpExchange exchange, int status, String why, long retryAfterSeconds) throws IOException {
    if (retryAfterSeconds > 0)
      exchange.getResponseHeaders().set("Retry-After", Long.toString(retryAfterSeconds));
    refuse(exchange, status, why);
  }

  /**
   * The answer to a fault of ours, by incident id; a service with its own error format overrides
   * it.
   */
  protected void internalError(HttpExchange exchange, String incident) throws IOException {
    refuse(exchange, 500, "internal error " + incident + "; the server's log has its cause");
  }

  /** A line for the service's log. */
  protected void log(String line) {
    log.accept(line);
  }

  /** Where internal errors are logged (with their incident id); nowhere until told. */
  public HttpEndpoints logTo(Consumer<String> log) {
    this.log = Objects.requireNonNull(log);
    return this;
  }

  @FunctionalInterface
  protected interface Handler {
    void handle(HttpExchange exchange) throws IOException;
  }

  public void start() {
    server.start();
  }

  /** Client renegotiations refused since the start (HTTPS only). */
  public long renegotiationsRefused() {
    return renegotiationsRefused.get();
  }

  /** The bytes of request bodies reserved now. */
  public long bodyBytesInFlight() {
    return inFlight.held();
  }

  /**
   * Requests refused 503 since the start because their bodies did not fit in the bytes in flight.
   */
  public long refusedOverBudget() {
    return inFlight.refused();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public String baseUrl() {
    String host = server.getAddress().getAddress().getHostAddress();
    String scheme = server instanceof HttpsServer ? "https" : "http";
    return scheme + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  /** The request body, or null after answering 413 when it exceeds {@link #MAX_BODY_BYTES}. */
  protected static byte[] body(HttpExchange exchange) throws IOException {
    return body(exchange, MAX_BODY_BYTES);
  }

  /**
   * The request body, or null when it exceeds {@code limit}: the caller answers 413 in its own
   * format. The stream is left open (the exchange closes it): closed here, the answer's check for
   * an unread body read a closed stream, and the JDK's server answers that with an IOException,
   * made with its stack trace, on every request. A body declared longer than {@code limit} is read
   * that far and dropped, not kept; a declared one is read into one array of its length
   * (readNBytes(limit + 1) holds it twice over while it reads, in pieces and then whole).
   */
  protected static byte[] bodyUpTo(HttpExchange exchange, int limit) throws IOException {
    InputStream in = exchange.getRequestBody();
    long declared = declaredLength(exchange);
    if (declared > limit) {
      dropUpTo(in, limit + 1L);
      return null;
    }
    if (declared >= 0) {
      byte[] data = new byte[(int) declared];
      int n = in.readNBytes(data, 0, data.length);
      return n == data.length ? data : Arrays.copyOf(data, n);
    }
    byte[] data = in.readNBytes(limit + 1);
    return data.length > limit ? null : data;
  }

  /**
   * The request's Content-Length as the JDK's server reads it: -1 when the body is chunked, 0 when
   * no length is given.
   */
  static long declaredLength(HttpExchange exchange) {
    String encoding = exchange.getRequestHeaders().getFirst("Transfer-Encoding");
    if (encoding != null && encoding.equalsIgnoreCase("chunked")) return -1;
    String length = exchange.getRequestHeaders().getFirst("Content-Length");
    if (length == null) return 0;
    try {
      return Long.parseLong(length.strip());
    } catch (NumberFormatException e) {
      return -1; // the JDK's server refused it before: treated as unknown, budgeted as it comes
    }
  }

  private static byte[] body(HttpExchange exchange, int limit) throws IOException {
    byte[] data = bodyUpTo(exchange, limit);
    if (data == null)
      send(
          exchange,
          413,
          "text/plain",
          ("request body over " + limit + " bytes").getBytes(StandardCharsets.UTF_8));
    return data;
  }

  protected static void send(HttpExchange exchange, int status, String contentType, byte[] body)
      throws IOException {
    finishReadingRequest(exchange);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /**
   * Reads what the handler left unread of the request body before the answer goes out: a refusal
   * sent first (414, 405…) let the client send its next request at once, and the JDK server,
   * draining the old body over TLS afterwards, could read that request into its buffer and then
   * wait on the socket for it (a 90 s stall, seen in a test). A body longer than this is not read:
   * the connection is closed instead.
   */
  private static void finishReadingRequest(HttpExchange exchange) {
    try {
      InputStream in = exchange.getRequestBody();
      if (in.read() < 0) return; // the usual case, the handler read it all: no buffer for it
      byte[] skipped = new byte[8192];
      for (long left = UNREAD_BODY_DRAINED_BYTES - 1; left > 0; ) {
        int n = in.read(skipped, 0, (int) Math.min(skipped.length, left));
        if (n < 0) return;
        left -= n;
      }
      exchange.getResponseHeaders().set("Connection", "close");
    } catch (IOException readOrClosedAlready) {
      // the handler closed the body (which read what was left) or the client is gone: nothing to
      // wait for
    }
  }

  private static final long UNREAD_BODY_DRAINED_BYTES = 64 * 1024;

  protected static void refuse(HttpExchange exchange, int status, String why) throws IOException {
    send(
        exchange,
        status,
        "text/plain; charset=utf-8",
        (why + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
