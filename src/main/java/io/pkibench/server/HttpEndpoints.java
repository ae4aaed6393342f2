package io.pkibench.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The small plain-HTTP servers (TSA, CRL) run on the JDK's HttpServer: one or two fixed endpoints,
 * no TLS (RFC 3161 and CRL distribution points are plain HTTP), no dependency; each exchange runs on
 * a virtual thread. Binds to loopback unless told otherwise.
 */
public abstract class HttpEndpoints implements ReferenceServer {
  /** Bodies above this are refused with 413 before being read whole (the signer allows more). */
  protected static final int MAX_BODY_BYTES = 64 * 1024;
  /** How long an idle keep-alive connection stays open: three times the JDK HttpClient's 30 s. */
  static final java.time.Duration IDLE_KEEP_ALIVE = java.time.Duration.ofSeconds(90);
  /** How long a request may take to arrive, from its first byte (a TLS handshake's included) to its body's last. */
  static final java.time.Duration MAX_REQUEST_TIME = java.time.Duration.ofSeconds(60);
  /** Open connections at most, busy and idle. */
  static final int MAX_CONNECTIONS = 2_000;
  /** Request line and headers: past these, 414 or 431 (browsers send about 20 headers and 1-2 KB). */
  static final int MAX_URI_CHARS = 8 * 1024;
  static final int MAX_HEADERS = 100;
  static final int MAX_HEADER_BYTES = 32 * 1024;

  static {
    // The JDK's HttpServer and HttpClient both drop idle keep-alive connections after 30 s, so a
    // client could send a request on a connection the server was closing that instant (an EOF on
    // 1 of 13,818 CAdES-T in a study). A server should outwait its clients. The JDK reads this
    // once, when the first server of the process is made, which is why it is set here, before
    // any; an operator's own -Dsun.net.httpserver.idleInterval wins.
    if (System.getProperty("sun.net.httpserver.idleInterval") == null) {
      System.setProperty("sun.net.httpserver.idleInterval", String.valueOf(IDLE_KEEP_ALIVE.toSeconds()));
    }
    // A client that sends its request slowly or not at all (slowloris: headers a line at a time, half a
    // TLS ClientHello, nothing after connecting) is cut off after this long; the JDK server otherwise
    // waits forever. In seconds, as the JDK reads it. Generous for a 32 MB upload; an operator's -D wins.
    if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
      System.setProperty("sun.net.httpserver.maxReqTime", String.valueOf(MAX_REQUEST_TIME.toSeconds()));
    }
    // Past this many open connections the JDK server closes a new one as soon as it is accepted: a flood
    // of idle or slow connections cannot use up the process's file descriptors.
    if (System.getProperty("jdk.httpserver.maxConnections") == null) {
      System.setProperty("jdk.httpserver.maxConnections", String.valueOf(MAX_CONNECTIONS));
    }
  }
  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final java.util.random.RandomGenerator incidents = new java.security.SecureRandom();
  private volatile java.util.function.Consumer<String> log = line -> {};

  protected HttpEndpoints(String bindAddress, int port) throws IOException {
    this(bindAddress, port, null);
  }

  /** With {@code tls}, HTTPS (the signing service); without, plain HTTP (TSA, CRLs). */
  protected HttpEndpoints(String bindAddress, int port, javax.net.ssl.SSLContext tls) throws IOException {
    InetSocketAddress address = new InetSocketAddress(bindAddress, port);
    if (tls == null) {
      server = HttpServer.create(address, 512);
    } else {
      com.sun.net.httpserver.HttpsServer https = com.sun.net.httpserver.HttpsServer.create(address, 512);
      https.setHttpsConfigurator(new com.sun.net.httpserver.HttpsConfigurator(tls));
      server = https;
    }
    server.setExecutor(executor);
  }

  /**
   * Every request gets an answer: a fault of ours (an exception no handler turned into a refusal) is
   * answered 500 with an incident id, and the id is logged with the cause, so that the reply tells the
   * client nothing of our insides and the operator everything. The exchange is closed only after that; a
   * fault after the status was sent cuts the connection, so that the client cannot take the part for the whole.
   */
  protected void route(String path, Handler handler) {
    server.createContext(path, exchange -> {
      boolean cutMidAnswer = false;
      try {
        String oversized = oversized(exchange);
        if (oversized != null) {
          refuseOversized(exchange, oversized.startsWith("URI") ? 414 : 431, oversized);
          return;
        }
        handler.handle(exchange);
      } catch (IOException e) {
        // the client went away mid-answer: nothing to tell it
      } catch (RuntimeException | StackOverflowError e) {
        String incident = Long.toHexString(incidents.nextLong() & 0xffff_ffffL);
        log.accept("internal error " + incident + " on " + exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath() + ": " + e
            + (e.getStackTrace().length > 0 ? " at " + e.getStackTrace()[0] : ""));
        if (exchange.getResponseCode() == -1) { // nothing sent yet: the client can still be told
          try {
            internalError(exchange, incident);
          } catch (IOException gone) {
            // the client went away
          }
        } else {
          // The answer had begun: closing the exchange would end it as if it were whole (a chunked
          // "partial" read as complete). Thrown out of the handler, the JDK's server cuts the connection instead.
          cutMidAnswer = true;
          throw new IllegalStateException("internal error " + incident + " mid-answer: connection cut", e);
        }
      } finally {
        if (!cutMidAnswer) exchange.close();
      }
    });
  }

  /**
   * What is too large in the request line or headers, or null. Answered 414 or 431 here, well below the
   * JDK's own limits (200 headers, 380 KB: past those it closes the connection unanswered, and raising them
   * would let each of 2,000 connections hold megabytes while its headers are parsed).
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

  /** The answer to a request line or headers over the limits; a service with its own error format overrides it. */
  protected void refuseOversized(HttpExchange exchange, int status, String why) throws IOException {
    refuse(exchange, status, why);
  }

  /** The answer to a fault of ours, by incident id; a service with its own error format overrides it. */
  protected void internalError(HttpExchange exchange, String incident) throws IOException {
    refuse(exchange, 500, "internal error " + incident + "; the server's log has its cause");
  }

  /** A line for the service's log. */
  protected void log(String line) {
    log.accept(line);
  }

  /** Where internal errors are logged (with their incident id); nowhere until told. */
  public HttpEndpoints logTo(java.util.function.Consumer<String> log) {
    this.log = java.util.Objects.requireNonNull(log);
    return this;
  }

  @FunctionalInterface
  protected interface Handler {
    void handle(HttpExchange exchange) throws IOException;
  }

  public void start() {
    server.start();
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public String baseUrl() {
    String host = server.getAddress().getAddress().getHostAddress();
    String scheme = server instanceof com.sun.net.httpserver.HttpsServer ? "https" : "http";
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
   * The request body, or null when it exceeds {@code limit}: the caller answers 413 in its own format. The stream is
   * left open (the exchange closes it): closed here, the answer's check for an unread body read a closed stream, and
   * the JDK's server answers that with an IOException, made with its stack trace, on every request.
   */
  protected static byte[] bodyUpTo(HttpExchange exchange, int limit) throws IOException {
    byte[] data = exchange.getRequestBody().readNBytes(limit + 1);
    return data.length > limit ? null : data;
  }

  private static byte[] body(HttpExchange exchange, int limit) throws IOException {
    byte[] data = bodyUpTo(exchange, limit);
    if (data == null) send(exchange, 413, "text/plain", ("request body over " + limit + " bytes").getBytes(StandardCharsets.UTF_8));
    return data;
  }

  protected static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
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
   * Reads what the handler left unread of the request body before the answer goes out: a refusal sent
   * first (414, 405…) let the client send its next request at once, and the JDK server, draining the old
   * body over TLS afterwards, could read that request into its buffer and then wait on the socket for it
   * (a 90 s stall, seen in a test). A body longer than this is not read: the connection is closed instead.
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
      // the handler closed the body (which read what was left) or the client is gone: nothing to wait for
    }
  }

  private static final long UNREAD_BODY_DRAINED_BYTES = 64 * 1024;

  protected static void refuse(HttpExchange exchange, int status, String why) throws IOException {
    send(exchange, status, "text/plain; charset=utf-8", (why + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
