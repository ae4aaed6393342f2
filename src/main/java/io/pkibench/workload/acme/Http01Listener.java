package io.pkibench.workload.acme;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code -p challenge=http-01}: pkibench's own answer to the CA's http-01 validation (RFC 8555
 * §8.3), a plain-HTTP listener on 127.0.0.1:{@code port} (the port the CA's validation connects to:
 * Pebble's {@code httpPort}), started before the run and closed at its end. It serves only what it
 * was given: a GET of {@code /.well-known/acme-challenge/TOKEN} for a token an order of this run
 * offered, while its challenge is pending; anything else is 404 (405 for another method), and it
 * never holds more than {@link #MOST_TOKENS} tokens at once.
 */
final class Http01Listener implements Http01Answers {
  static final String PATH = "/.well-known/acme-challenge/";

  /** Tokens held at once, at most: one per order in flight, bounded whatever the workers do. */
  static final int MOST_TOKENS = 10_000;

  private final HttpServer server;
  private final Map<String, byte[]> answers = new ConcurrentHashMap<>();
  private final AtomicLong served = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();

  /** Listens on 127.0.0.1:{@code port} at once; throws naming the port when it is taken. */
  Http01Listener(int port) throws IOException {
    try {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
    } catch (BindException e) {
      throw new IOException(
          "-p http-port="
              + port
              + ": 127.0.0.1:"
              + port
              + " is taken; give the free port the CA's http-01 validation connects to (serve pebble --http-port)",
          e);
    }
    server.createContext("/", this::answer);
    server.start(); // the JDK's one dispatcher thread: the CA fetches one token per order
  }

  int port() {
    return server.getAddress().getPort();
  }

  @Override
  public void offer(String token, String keyAuthorization) {
    if (answers.size() >= MOST_TOKENS)
      throw new IllegalStateException(
          MOST_TOKENS + " http-01 tokens held at once: orders are not ending");
    answers.put(token, keyAuthorization.getBytes(StandardCharsets.US_ASCII));
  }

  @Override
  public void withdraw(String token) {
    answers.remove(token);
  }

  /** What it answered: tokens served, requests refused (not GET, or a token it does not hold). */
  Map<String, Long> counts() {
    return Map.of("http-01 tokens served", served.get(), "http-01 requests refused", refused.get());
  }

  private void answer(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getRawPath();
      byte[] body =
          path.startsWith(PATH) ? answers.get(path.substring(PATH.length())) : (byte[]) null;
      int status = !"GET".equals(exchange.getRequestMethod()) ? 405 : body == null ? 404 : 200;
      if (status != 200) {
        refused.incrementAndGet();
        exchange.sendResponseHeaders(status, -1);
        return;
      }
      served.incrementAndGet();
      exchange.getResponseHeaders().set("Content-Type", "application/octet-stream");
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  @Override
  public void close() {
    server.stop(0);
    answers.clear();
  }
}
