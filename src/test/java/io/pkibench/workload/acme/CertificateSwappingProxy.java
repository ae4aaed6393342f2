package io.pkibench.workload.acme;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

/**
 * A planted fault between a client and Pebble: an HTTPS reverse proxy on loopback that passes every
 * request on (HTTP/1.0 over TLS, its own Host kept so that Pebble's URLs and the JWS "url" name the
 * proxy) and replaces the body of each certificate download (Pebble's {@code /certZ/}) with {@code
 * swapped}: the client must count those orders failed. {@link #replayingFirst}: every download
 * after the first is answered with the first's certificate (a renewal handed the previous
 * certificate); {@link #droppingRevocations}: each revocation is answered 200 and never sent to
 * Pebble; {@link #watching}: nothing changed, the overlap of new orders and authorization fetches
 * counted.
 */
final class CertificateSwappingProxy implements AutoCloseable {
  private final HttpsServer server;
  private final int pebblePort;
  private final SSLContext clientTls;
  private final String swapped;
  private final boolean replay;
  private final boolean dropRevocations;
  private volatile byte[] first;
  private final ExecutorService handlers = Executors.newFixedThreadPool(8);

  /** New orders and authorization fetches being passed on now, and the most there were at once. */
  private final AtomicInteger inFlight = new AtomicInteger();

  private final AtomicInteger mostInFlight = new AtomicInteger();

  CertificateSwappingProxy(
      SSLContext serverTls, SSLContext clientTls, int pebblePort, String swappedPem)
      throws IOException {
    this(serverTls, clientTls, pebblePort, swappedPem, false, false);
  }

  private CertificateSwappingProxy(
      SSLContext serverTls,
      SSLContext clientTls,
      int pebblePort,
      String swappedPem,
      boolean replay,
      boolean dropRevocations)
      throws IOException {
    this.pebblePort = pebblePort;
    this.clientTls = clientTls;
    this.swapped = swappedPem;
    this.replay = replay;
    this.dropRevocations = dropRevocations;
    server = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
    server.setHttpsConfigurator(new HttpsConfigurator(serverTls));
    server.createContext("/", this::forward);
    server.setExecutor(handlers); // requests passed on at once, as Pebble would take them
    server.start();
  }

  static CertificateSwappingProxy replayingFirst(
      SSLContext serverTls, SSLContext clientTls, int pebblePort) throws IOException {
    return new CertificateSwappingProxy(serverTls, clientTls, pebblePort, null, true, false);
  }

  static CertificateSwappingProxy droppingRevocations(
      SSLContext serverTls, SSLContext clientTls, int pebblePort) throws IOException {
    return new CertificateSwappingProxy(serverTls, clientTls, pebblePort, null, false, true);
  }

  String directoryUrl() {
    return "https://127.0.0.1:" + server.getAddress().getPort() + "/dir";
  }

  /**
   * A proxy that passes everything on unchanged, counting how many new orders and authorization
   * fetches were in Pebble's hands at once ({@link #mostAtOnce()}).
   */
  static CertificateSwappingProxy watching(
      SSLContext serverTls, SSLContext clientTls, int pebblePort) throws IOException {
    return new CertificateSwappingProxy(serverTls, clientTls, pebblePort, null, false, false);
  }

  /** The most new orders and authorization fetches passed on to Pebble at once. */
  int mostAtOnce() {
    return mostInFlight.get();
  }

  private void forward(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      if (dropRevocations && exchange.getRequestURI().getPath().startsWith("/revoke-cert")) {
        exchange.sendResponseHeaders(200, -1); // never sent on
        return;
      }
      String host = "127.0.0.1:" + server.getAddress().getPort();
      StringBuilder head =
          new StringBuilder()
              .append(exchange.getRequestMethod())
              .append(' ')
              .append(exchange.getRequestURI().getRawPath())
              .append(" HTTP/1.0\r\nHost: ")
              .append(host)
              .append("\r\n");
      for (String name : List.of("Content-Type", "Accept")) {
        String value = exchange.getRequestHeaders().getFirst(name);
        if (value != null) head.append(name).append(": ").append(value).append("\r\n");
      }
      head.append("Content-Length: ").append(body.length).append("\r\n\r\n");
      byte[] response;
      // counted while Pebble has it: from before it is sent until Pebble's whole answer is back
      String path = exchange.getRequestURI().getPath();
      boolean watched = path.startsWith("/order-plz") || path.startsWith("/authZ/");
      if (watched) mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      try (SSLSocket socket =
          (SSLSocket) clientTls.getSocketFactory().createSocket("127.0.0.1", pebblePort)) {
        socket.setSoTimeout(10_000);
        OutputStream out = socket.getOutputStream();
        out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
        response = readAll(socket.getInputStream());
      } finally {
        if (watched) inFlight.decrementAndGet();
      }
      int split = indexOf(response, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      String[] lines = new String(response, 0, split, StandardCharsets.ISO_8859_1).split("\r\n");
      int status = Integer.parseInt(lines[0].split(" ")[1]);
      byte[] payload = Arrays.copyOfRange(response, split + 4, response.length);
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        String name = lines[i].substring(0, colon).strip();
        if (name.equalsIgnoreCase("Content-Length") || name.equalsIgnoreCase("Connection"))
          continue;
        exchange.getResponseHeaders().add(name, lines[i].substring(colon + 1).strip());
      }
      if (exchange.getRequestURI().getPath().startsWith("/certZ/") && status == 200) {
        if (replay) {
          if (first == null) first = payload;
          payload = first;
        } else if (swapped != null) payload = swapped.getBytes(StandardCharsets.US_ASCII);
      }
      exchange.sendResponseHeaders(status, payload.length == 0 ? -1 : payload.length);
      exchange.getResponseBody().write(payload);
    }
  }

  private static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    in.transferTo(out);
    return out.toByteArray();
  }

  private static int indexOf(byte[] data, byte[] pattern) throws IOException {
    outer:
    for (int i = 0; i + pattern.length <= data.length; i++) {
      for (int j = 0; j < pattern.length; j++) if (data[i + j] != pattern[j]) continue outer;
      return i;
    }
    throw new IOException("Pebble's answer has no end of headers");
  }

  @Override
  public void close() {
    server.stop(0);
    handlers.shutdownNow();
  }
}
