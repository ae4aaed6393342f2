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
public abstract class HttpEndpoints implements AutoCloseable {
  /** Bodies above this are refused with 413 before being read whole. */
  protected static final int MAX_BODY_BYTES = 64 * 1024;
  private final HttpServer server;
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();

  protected HttpEndpoints(String bindAddress, int port) throws IOException {
    server = HttpServer.create(new InetSocketAddress(bindAddress, port), 512);
    server.setExecutor(executor);
  }

  protected void route(String path, Handler handler) {
    server.createContext(path, exchange -> {
      try (exchange) {
        handler.handle(exchange);
      } catch (IOException e) {
        // the client went away mid-answer: nothing to tell it
      } catch (RuntimeException e) {
        send(exchange, 500, "text/plain", ("internal error: " + e.getClass().getSimpleName()).getBytes(StandardCharsets.UTF_8));
      }
    });
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
    return "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port();
  }

  @Override
  public void close() {
    server.stop(0);
    executor.shutdownNow();
  }

  /** The request body, or null after answering 413 when it exceeds {@link #MAX_BODY_BYTES}. */
  protected static byte[] body(HttpExchange exchange) throws IOException {
    try (InputStream in = exchange.getRequestBody()) {
      byte[] data = in.readNBytes(MAX_BODY_BYTES + 1);
      if (data.length > MAX_BODY_BYTES) {
        send(exchange, 413, "text/plain", ("request body over " + MAX_BODY_BYTES + " bytes").getBytes(StandardCharsets.UTF_8));
        return null;
      }
      return data;
    }
  }

  protected static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    if (body.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  protected static void refuse(HttpExchange exchange, int status, String why) throws IOException {
    send(exchange, status, "text/plain; charset=utf-8", (why + "\n").getBytes(StandardCharsets.UTF_8));
  }
}
