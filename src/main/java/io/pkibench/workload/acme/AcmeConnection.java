package io.pkibench.workload.acme;

import io.pkibench.text.OutsideText;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * One kept-alive HTTP/1.1 connection to the CA's origin (the directory's scheme, host and port), on
 * the worker's own thread: a request is written, its answer read, nothing handed between threads.
 * An ACME order is seven small requests in a row; a general HTTP client's hand-offs and timers cost
 * the client more CPU than the CA spends answering them.
 *
 * <p>The CA is a stranger: a URL it names on another origin is refused (never followed); a status
 * line, header block or body over its bound, a chunk size that is no number, an answer cut short
 * are each an {@link IOException} naming what was wrong. A connection that fails is closed; the
 * next request opens another.
 */
final class AcmeConnection implements AutoCloseable {
  static final int MOST_BODY_BYTES = 1 << 20;
  static final int MOST_LINE_BYTES = 8 * 1024;
  static final int MOST_HEADERS = 100;

  /** A CA's answer: its status, its headers (names in lower case, the last of each), its body. */
  record Response(int status, Map<String, String> headers, byte[] body) {
    String header(String name) {
      return headers.get(name);
    }

    String bodyText() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  private final URI origin;
  private final SSLContext tls;
  private final int timeoutMillis;
  private Socket socket;
  private InputStream in;

  /** What was read from the socket and not yet taken: buf[pos, limit). */
  private final byte[] buf = new byte[16 * 1024];

  private int pos;
  private int limit;
  private OutputStream out;
  private boolean used;
  private long opened;

  AcmeConnection(URI origin, SSLContext tls, Duration timeout) {
    String scheme = origin.getScheme();
    if (!"https".equals(scheme) && !"http".equals(scheme) || origin.getHost() == null)
      throw new IllegalArgumentException(
          OutsideText.forTerminal(origin.toString()) + ": not an http(s) URL");
    this.origin = origin;
    this.tls = tls;
    this.timeoutMillis = (int) timeout.toMillis();
  }

  /** Connections opened so far: one, unless the CA closed one. */
  long opened() {
    return opened;
  }

  /** {@code url} must be on this connection's origin; else the CA pointed somewhere it may not. */
  void checkOrigin(URI url) throws IOException {
    if (!origin.getScheme().equals(url.getScheme())
        || !origin.getHost().equalsIgnoreCase(String.valueOf(url.getHost()))
        || port(origin) != port(url))
      throw new IOException(
          "the CA named "
              + OutsideText.forTerminal(url.toString(), 200)
              + ", on another origin than its directory's ("
              + origin.getScheme()
              + "://"
              + origin.getHost()
              + ":"
              + port(origin)
              + "): not followed");
  }

  /**
   * {@code method} on {@code url} with {@code body} (null: none), its answer read whole. A request
   * on a connection that was kept alive and turns out closed is sent once more on a new one.
   */
  Response send(String method, URI url, byte[] body, String contentType, String accept)
      throws IOException {
    checkOrigin(url);
    byte[] request = request(method, url, body, contentType, accept);
    boolean reused = socket != null && used;
    try {
      return exchange(request, method);
    } catch (EOFException | java.net.SocketException e) {
      close();
      if (!reused) throw e;
      return exchange(request, method); // the CA had closed the idle connection
    }
  }

  private Response exchange(byte[] request, String method) throws IOException {
    if (socket == null) open();
    try {
      out.write(request);
      out.flush();
      Response r = read(method);
      used = true;
      String connection = r.header("connection");
      if (connection != null && connection.toLowerCase(Locale.ROOT).contains("close")) close();
      return r;
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
  }

  private void open() throws IOException {
    String host = origin.getHost();
    int port = port(origin);
    Socket s;
    if ("https".equals(origin.getScheme())) {
      SSLSocket ssl = (SSLSocket) tls.getSocketFactory().createSocket();
      SSLParameters p = ssl.getSSLParameters();
      p.setEndpointIdentificationAlgorithm("HTTPS"); // the CA's certificate must name its host
      p.setApplicationProtocols(new String[] {"http/1.1"});
      ssl.setSSLParameters(p);
      s = ssl;
    } else {
      s = new Socket();
    }
    try {
      s.setTcpNoDelay(true);
      s.setSoTimeout(timeoutMillis);
      s.connect(new InetSocketAddress(host, port), timeoutMillis);
      if (s instanceof SSLSocket ssl) ssl.startHandshake();
    } catch (IOException e) {
      s.close();
      throw e;
    }
    socket = s;
    in = s.getInputStream();
    pos = limit = 0;
    out = s.getOutputStream();
    used = false;
    opened++;
  }

  private byte[] request(String method, URI url, byte[] body, String contentType, String accept) {
    String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
    if (url.getRawQuery() != null) path += "?" + url.getRawQuery();
    StringBuilder head = new StringBuilder(256);
    head.append(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: ");
    head.append(origin.getHost()).append(':').append(port(origin)).append("\r\n");
    head.append("User-Agent: pkibench\r\nAccept: ").append(accept).append("\r\n");
    if (body != null) {
      head.append("Content-Type: ").append(contentType).append("\r\n");
      head.append("Content-Length: ").append(body.length).append("\r\n");
    }
    head.append("\r\n");
    byte[] h = head.toString().getBytes(StandardCharsets.US_ASCII);
    if (body == null) return h;
    byte[] all = new byte[h.length + body.length];
    System.arraycopy(h, 0, all, 0, h.length);
    System.arraycopy(body, 0, all, h.length, body.length);
    return all;
  }

  private Response read(String method) throws IOException {
    // a CA that trickles its answer a byte at a time, each within the socket's timeout, is cut off
    deadlineNanos = System.nanoTime() + 3L * timeoutMillis * 1_000_000L;
    for (int interim = 0; interim <= MOST_INTERIM; interim++) {
      Response r = readOne(method);
      if (r != null) return r;
    }
    throw new IOException(
        "the CA sent over " + MOST_INTERIM + " interim (1xx) answers to one request");
  }

  /** Interim answers (100 Continue) taken before the real one. */
  static final int MOST_INTERIM = 8;

  private long deadlineNanos = Long.MAX_VALUE;

  /** One answer; null for an interim one (1xx), after which the real one follows. */
  private Response readOne(String method) throws IOException {
    String statusLine = line();
    // "HTTP/1.1 201 Created": the version, a space, three digits
    if (!statusLine.startsWith("HTTP/1.")
        || statusLine.length() < 12
        || statusLine.charAt(8) != ' ')
      throw new IOException(
          "the CA answered "
              + OutsideText.forTerminal(statusLine, 80)
              + ", not an HTTP/1.x status");
    int status;
    try {
      status = Integer.parseInt(statusLine.substring(9, 12));
    } catch (NumberFormatException e) {
      throw new IOException(
          "the CA's status line " + OutsideText.forTerminal(statusLine, 80) + " has no status");
    }
    Map<String, String> headers = new HashMap<>();
    for (int n = 0; ; n++) {
      String line = line();
      if (line.isEmpty()) break;
      if (n == MOST_HEADERS)
        throw new IOException("the CA sent over " + MOST_HEADERS + " headers in one answer");
      int colon = line.indexOf(':');
      if (colon <= 0)
        throw new IOException(
            "the CA sent a header line without a name: " + OutsideText.forTerminal(line, 80));
      headers.put(
          line.substring(0, colon).strip().toLowerCase(Locale.ROOT),
          line.substring(colon + 1).strip());
    }
    if (status / 100 == 1) return null; // an interim answer (100 Continue)
    byte[] body;
    if (method.equals("HEAD") || status == 204 || status == 304) body = new byte[0];
    else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) body = chunked();
    else if (headers.containsKey("content-length"))
      body = fixed(length(headers.get("content-length")));
    else {
      body = toEnd();
      headers.put("connection", "close");
    }
    return new Response(status, headers, body);
  }

  private static int length(String text) throws IOException {
    long n;
    try {
      n = Long.parseLong(text.strip());
    } catch (NumberFormatException e) {
      throw new IOException(
          "the CA's Content-Length " + OutsideText.forTerminal(text, 40) + " is no number");
    }
    if (n < 0 || n > MOST_BODY_BYTES)
      throw new IOException(
          "the CA's answer is " + n + " bytes long, over the " + MOST_BODY_BYTES + " taken");
    return (int) n;
  }

  private byte[] fixed(int length) throws IOException {
    byte[] body = new byte[length];
    int have = 0;
    while (have < length) {
      if (pos == limit && !fill())
        throw new EOFException(
            "the CA closed the connection " + have + " bytes into a " + length + "-byte answer");
      int n = Math.min(length - have, limit - pos);
      System.arraycopy(buf, pos, body, have, n);
      pos += n;
      have += n;
    }
    return body;
  }

  /** More bytes from the socket into the buffer; false at its end. */
  private boolean fill() throws IOException {
    if (System.nanoTime() > deadlineNanos)
      throw new java.net.SocketTimeoutException(
          "the CA took over " + 3L * timeoutMillis / 1000 + " s to send one answer");
    int n = in.read(buf);
    if (n <= 0) return false;
    pos = 0;
    limit = n;
    return true;
  }

  private byte[] chunked() throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = line();
      int semicolon = sizeLine.indexOf(';'); // chunk extensions: ignored
      String hex = (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).strip();
      int size;
      try {
        size = hex.length() > 8 ? -1 : Integer.parseInt(hex, 16);
      } catch (NumberFormatException e) {
        size = -1;
      }
      if (size < 0)
        throw new IOException(
            "the CA sent the chunk size " + OutsideText.forTerminal(sizeLine, 40) + ", no number");
      if (size == 0) break;
      if (body.size() + (long) size > MOST_BODY_BYTES)
        throw new IOException(
            "the CA's chunked answer runs over the " + MOST_BODY_BYTES + " bytes taken");
      body.write(fixed(size));
      if (!line().isEmpty()) throw new IOException("the CA's chunk does not end where it said");
    }
    for (int n = 0; !line().isEmpty(); n++) // trailers: read past, not kept
    if (n == MOST_HEADERS) throw new IOException("the CA sent over " + MOST_HEADERS + " trailers");
    return body.toByteArray();
  }

  private byte[] toEnd() throws IOException {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    do {
      body.write(buf, pos, limit - pos);
      pos = limit;
      if (body.size() > MOST_BODY_BYTES)
        throw new IOException("the CA's answer runs over the " + MOST_BODY_BYTES + " bytes taken");
    } while (fill());
    return body.toByteArray();
  }

  /** One line, without its CRLF (or bare LF), at most {@link #MOST_LINE_BYTES}. */
  private String line() throws IOException {
    StringBuilder line = new StringBuilder(64);
    while (true) {
      int b = pos < limit || fill() ? buf[pos++] & 0xff : -1;
      if (b < 0)
        throw new EOFException(
            line.isEmpty()
                ? "the CA closed the connection"
                : "the CA closed the connection mid-line");
      if (b == '\n') break;
      if (line.length() == MOST_LINE_BYTES)
        throw new IOException("the CA sent a line over " + MOST_LINE_BYTES + " bytes");
      line.append((char) b);
    }
    int end = line.length();
    if (end > 0 && line.charAt(end - 1) == '\r') line.setLength(end - 1);
    return line.toString();
  }

  private static int port(URI u) {
    return u.getPort() >= 0 ? u.getPort() : "https".equals(u.getScheme()) ? 443 : 80;
  }

  @Override
  public void close() {
    Socket s = socket;
    socket = null;
    in = null;
    out = null;
    if (s != null)
      try {
        s.close();
      } catch (IOException e) {
        // closing a connection that failed: nothing more to say
      }
  }
}
