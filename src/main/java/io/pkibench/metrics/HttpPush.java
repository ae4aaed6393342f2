package io.pkibench.metrics;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * POSTs one body to a receiver and sorts the outcome: 2xx delivered; no connection, a timeout, 5xx or 429 worth
 * retrying; any other status refused (the receiver says why, and sending again would not help). A redirect is refused
 * too: a push is never re-POSTed elsewhere.
 *
 * <p>HTTP/1.1 written on one socket kept open between pushes, on the calling thread, which measures itself. The JDK's
 * {@code HttpURLConnection} took 1.2 ms of CPU per push (measured on this machine with pushes 200 ms apart): a push
 * every few seconds runs its large code in the interpreter, and the JIT kept compiling it through a run, on threads the
 * exporter's own reading does not see. Here a push is the request's head and body in one write (up to 16 KB) and a status
 * line and headers read back. The answer's body is read whole, by its {@code Content-Length} or chunks, so the connection can carry
 * the next push; an answer that ends the connection, or has neither, closes it after.
 */
final class HttpPush implements AutoCloseable {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
  /** As much of a refusal's body as a message quotes; the rest is read and dropped so the connection can be reused. */
  private static final int QUOTED_BYTES = 4096;
  /** A status line and headers longer than this are not a receiver's answer. */
  private static final int MAX_HEAD_BYTES = 64 * 1024;
  private Socket socket;
  private InputStream in;
  private OutputStream out;
  /** Whether a byte of the current push's answer has come. */
  private boolean answerStarted;
  /** Where {@link #socket} is connected: scheme, host and port. */
  private String connectedTo;

  /** POSTs the first {@code length} bytes of {@code body}: a buffer its sender reuses from push to push. */
  void post(URI uri, Map<String, String> headers, byte[] body, int length) throws MetricsSink.PushException {
    byte[] head = head(uri, headers, length);
    boolean reused = socket != null && endpoint(uri).equals(connectedTo);
    if (!reused) connect(uri);
    Answer answer;
    try {
      answer = exchange(head, body, length);
    } catch (IOException e) {
      // A kept-alive connection the receiver closed while idle: the write breaks, or the answer never starts, and the
      // receiver read nothing of this push. Once more on a new connection; a timeout is not that (it may be working on it).
      if (!reused || answerStarted || e instanceof SocketTimeoutException) throw failed(e);
      connect(uri);
      try {
        answer = exchange(head, body, length);
      } catch (IOException again) {
        throw failed(again);
      }
    }
    if (answer.status / 100 == 2) return;
    String said = answer.said.strip();
    if (said.length() > 200) said = said.substring(0, 200) + "…";
    said = printable(said);
    throw new MetricsSink.PushException("HTTP " + answer.status + (said.isEmpty() ? "" : ": " + said),
        answer.status >= 500 || answer.status == 429);
  }

  private record Answer(int status, String said) {}

  private MetricsSink.PushException failed(IOException e) {
    close();
    if (e instanceof SocketTimeoutException) return new MetricsSink.PushException("no answer within " + REQUEST_TIMEOUT.toSeconds() + " s", true);
    return new MetricsSink.PushException(reason(e), true);
  }

  private static String endpoint(URI uri) {
    return uri.getScheme().toLowerCase(Locale.ROOT) + "://" + uri.getHost() + ":" + port(uri);
  }

  /** The host without an IPv6 literal's brackets, as a socket and a certificate name it. */
  private static String bareHost(URI uri) {
    String host = uri.getHost();
    return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
  }

  private static int port(URI uri) {
    return uri.getPort() >= 0 ? uri.getPort() : uri.getScheme().equalsIgnoreCase("https") ? 443 : 80;
  }

  private void connect(URI uri) throws MetricsSink.PushException {
    close();
    Socket plain = new Socket();
    try {
      plain.connect(new InetSocketAddress(bareHost(uri), port(uri)), (int) CONNECT_TIMEOUT.toMillis());
      plain.setTcpNoDelay(true);
      plain.setSoTimeout((int) REQUEST_TIMEOUT.toMillis());
      Socket s = plain;
      if (uri.getScheme().equalsIgnoreCase("https")) {
        SSLSocket tls = (SSLSocket) ((SSLSocketFactory) SSLSocketFactory.getDefault()).createSocket(plain, bareHost(uri), port(uri), true);
        SSLParameters parameters = tls.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS"); // the receiver's certificate names its host, as HttpsURLConnection checks
        tls.setSSLParameters(parameters);
        tls.startHandshake();
        s = tls;
      }
      socket = s;
      in = new BufferedInputStream(s.getInputStream()); // the head is read byte by byte: not a system call each
      out = new BufferedOutputStream(s.getOutputStream(), 16 * 1024); // head and body in one write when they fit
      connectedTo = endpoint(uri);
    } catch (SocketTimeoutException e) {
      closeQuietly(plain);
      throw new MetricsSink.PushException(plain.isConnected() ? "no TLS handshake within " + REQUEST_TIMEOUT.toSeconds() + " s"
          : "no connection within " + CONNECT_TIMEOUT.toSeconds() + " s", true);
    } catch (ConnectException e) {
      closeQuietly(plain);
      throw new MetricsSink.PushException("connection refused", true);
    } catch (IOException | IllegalArgumentException e) {
      closeQuietly(plain);
      throw new MetricsSink.PushException(reason(e), true);
    }
  }

  /** The request line and headers; the URL's query is kept (a receiver may take a tenant there), its user info never sent. */
  private static byte[] head(URI uri, Map<String, String> headers, int length) {
    String path = (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
        + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    String host = uri.getHost() + (uri.getPort() >= 0 ? ":" + uri.getPort() : ""); // getHost keeps an IPv6 literal's brackets
    StringBuilder head = new StringBuilder(256).append("POST ").append(path).append(" HTTP/1.1\r\nHost: ").append(host)
        .append("\r\nContent-Length: ").append(length).append("\r\n");
    headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
    return head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  private Answer exchange(byte[] head, byte[] body, int length) throws IOException {
    answerStarted = false;
    out.write(head);
    out.write(body, 0, length);
    out.flush();
    Head answer = readHead();
    while (answer.status / 100 == 1) answer = readHead(); // an interim answer (100 Continue unasked, 103): the final one follows
    boolean bodyless = answer.status == 204 || answer.status == 304;
    ByteArrayOutputStream said = new ByteArrayOutputStream();
    boolean reusable = answer.keepAlive;
    if (bodyless) {
      // nothing follows the head
    } else if (answer.chunked) {
      readChunks(said);
    } else if (answer.contentLength >= 0) {
      readBody(answer.contentLength, said);
    } else {
      readBody(Long.MAX_VALUE, said); // to the end of the connection
      reusable = false;
    }
    if (!reusable) close();
    return new Answer(answer.status, said.toString(StandardCharsets.UTF_8));
  }

  private record Head(int status, long contentLength, boolean chunked, boolean keepAlive) {}

  private Head readHead() throws IOException {
    String statusLine = line();
    String[] parts = statusLine.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) throw new IOException("the receiver's answer is not HTTP/1.x");
    int status;
    try {
      status = Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      throw new IOException("the receiver's answer has no status code");
    }
    long contentLength = -1;
    boolean chunked = false;
    boolean keepAlive = parts[0].equals("HTTP/1.1");
    int headBytes = statusLine.length();
    for (String header = line(); !header.isEmpty(); header = line()) {
      headBytes += header.length();
      if (headBytes > MAX_HEAD_BYTES) throw new IOException("the receiver's answer has over " + MAX_HEAD_BYTES + " bytes of headers");
      int colon = header.indexOf(':');
      if (colon <= 0) continue;
      String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = header.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
      switch (name) {
        case "content-length" -> {
          try {
            contentLength = Long.parseLong(value);
          } catch (NumberFormatException e) {
            throw new IOException("the receiver's answer has a Content-Length that is not a number");
          }
        }
        case "transfer-encoding" -> chunked = value.endsWith("chunked");
        case "connection" -> {
          if (value.contains("close")) keepAlive = false;
          else if (value.contains("keep-alive")) keepAlive = true;
        }
        default -> { }
      }
    }
    return new Head(status, contentLength, chunked, keepAlive);
  }

  /** One line without its CRLF. */
  private String line() throws IOException {
    StringBuilder line = new StringBuilder(64);
    for (int c; (c = in.read()) != '\n'; ) {
      if (c < 0) throw new EOFException(answerStarted ? "the receiver's answer ended in its headers" : "the receiver closed the connection");
      answerStarted = true;
      if (line.length() >= MAX_HEAD_BYTES) throw new IOException("the receiver's answer has a line over " + MAX_HEAD_BYTES + " bytes");
      if (c != '\r') line.append((char) c);
    }
    return line.toString();
  }

  private void readChunks(ByteArrayOutputStream said) throws IOException {
    while (true) {
      String size = line();
      int semicolon = size.indexOf(';');
      long n;
      try {
        n = Long.parseLong((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
      } catch (NumberFormatException e) {
        throw new IOException("the receiver's chunked answer has a chunk size that is not hexadecimal");
      }
      if (n == 0) {
        while (!line().isEmpty()) { } // trailers
        return;
      }
      readBody(n, said);
      line(); // the chunk's CRLF
    }
  }

  /** Reads {@code n} bytes (or to the end when n is Long.MAX_VALUE), keeping the first {@link #QUOTED_BYTES}. */
  private void readBody(long n, ByteArrayOutputStream said) throws IOException {
    byte[] buffer = new byte[4096];
    long left = n;
    while (left > 0) {
      int got = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (got < 0) {
        if (n == Long.MAX_VALUE) return;
        throw new EOFException("the receiver's answer ended before its body did");
      }
      if (said.size() < QUOTED_BYTES) said.write(buffer, 0, Math.min(got, QUOTED_BYTES - said.size()));
      left -= got;
    }
  }

  /**
   * The receiver's words as a terminal may show them: a control character (an escape sequence, a line break that would
   * forge a log line) is written as its code, e.g. {@code \x1b}.
   */
  static String printable(String said) {
    StringBuilder shown = new StringBuilder(said.length());
    for (int i = 0; i < said.length(); i++) {
      char c = said.charAt(i);
      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) shown.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
      else shown.append(c);
    }
    return shown.toString();
  }

  private static String reason(Exception e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // closing a socket that failed to connect: nothing left to release
    }
  }

  /** Closes the kept connection, if any; the next push opens a new one. */
  @Override
  public void close() {
    if (socket != null) closeQuietly(socket);
    socket = null;
    in = null;
    out = null;
    connectedTo = null;
  }
}
