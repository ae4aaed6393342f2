package io.pkibench.testing;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The minimal HTTP front a test puts before a DER service it runs as a command (openssl ts -reply,
 * openssl ocsp): on loopback, POST bodies and RFC 5019 GETs (the last path segment, URL-decoded
 * then base64-decoded) go to the backend, its DER comes back with {@code replyType}. Told a {@link
 * Fault}, it answers as a broken service would, so a test sees what the client makes of each.
 */
public final class DerFront implements AutoCloseable {
  /**
   * How the front misbehaves: not at all, a 500, an HTML page where DER was due, or the DER cut in
   * half.
   */
  public enum Fault {
    NONE,
    HTTP_500,
    HTML,
    TRUNCATED
  }

  @FunctionalInterface
  public interface Backend {
    byte[] answer(byte[] request) throws Exception;
  }

  private final HttpServer server;
  private final ExecutorService threads = Executors.newFixedThreadPool(8);
  private final AtomicReference<Fault> fault = new AtomicReference<>(Fault.NONE);
  private final AtomicLong answered = new AtomicLong();

  public DerFront(String replyType, Backend backend) throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setExecutor(threads);
    server.createContext(
        "/",
        exchange -> {
          try (exchange) {
            byte[] request =
                exchange.getRequestMethod().equals("GET")
                    ? fromPath(exchange)
                    : exchange.getRequestBody().readAllBytes();
            Fault now = fault.get();
            if (now == Fault.HTTP_500) {
              reply(
                  exchange,
                  500,
                  "text/plain",
                  "internal error\n".getBytes(StandardCharsets.US_ASCII));
              return;
            }
            if (now == Fault.HTML) {
              reply(
                  exchange,
                  200,
                  "text/html",
                  "<html><body><h1>Service unavailable</h1></body></html>"
                      .getBytes(StandardCharsets.US_ASCII));
              return;
            }
            byte[] answer = backend.answer(request);
            answered.incrementAndGet();
            reply(
                exchange,
                200,
                replyType,
                now == Fault.TRUNCATED ? Arrays.copyOf(answer, answer.length / 2) : answer);
          } catch (Exception e) {
            reply(
                exchange,
                500,
                "text/plain",
                String.valueOf(e.getMessage()).getBytes(StandardCharsets.UTF_8));
          }
        });
    server.start();
  }

  private static byte[] fromPath(HttpExchange exchange) {
    String path = exchange.getRequestURI().getRawPath();
    return Base64.getDecoder()
        .decode(
            URLDecoder.decode(
                path.substring(path.lastIndexOf('/') + 1), StandardCharsets.US_ASCII));
  }

  private static void reply(HttpExchange exchange, int status, String type, byte[] body)
      throws IOException {
    exchange.getResponseHeaders().set("Content-Type", type);
    exchange.sendResponseHeaders(status, body.length);
    exchange.getResponseBody().write(body);
  }

  public void fault(Fault f) {
    fault.set(f);
  }

  /** Answers the backend gave, faults excluded. */
  public long answered() {
    return answered.get();
  }

  public String url(String path) {
    return "http://127.0.0.1:" + server.getAddress().getPort() + path;
  }

  @Override
  public void close() {
    server.stop(0);
    threads.shutdownNow();
  }
}
