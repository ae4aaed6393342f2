package io.pkibench.metrics;

import io.pkibench.text.OutsideText;
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
import java.util.concurrent.locks.LockSupport;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * POSTs one body to a receiver and sorts the outcome: 2xx delivered; no connection, a timeout, 5xx
 * or 429 worth retrying; any other status refused (the receiver says why, and sending again would
 * not help). A redirect is refused too: a push is never re-POSTed elsewhere.
 *
 * <p>HTTP/1.1 written on one socket kept open between pushes, on the calling thread, which measures
 * itself. The JDK's {@code HttpURLConnection} took 1.2 ms of CPU per push (measured on this machine
 * with pushes 200 ms apart): a push every few seconds runs its large code in the interpreter, and
 * the JIT kept compiling it through a run, on threads the exporter's own reading does not see. Here
 * a push is the request's head and body in one write (up to 16 KB) and a status line and headers
 * read back. The answer's body is read by its {@code Content-Length} or chunks, so the connection
 * can carry the next push; an answer that ends the connection, has neither, or is longer than
 * {@link #MAX_BODY_BYTES} closes it after.
 *
 * <p>The receiver is outside pkibench and may answer without end: a push as a whole (connection,
 * TLS handshake, request, status, headers, body) ends within {@link #PUSH_WITHIN} however the
 * receiver paces its bytes, and everything it reads is bounded: interim answers, header lines and
 * their count, the head's and the body's bytes.
 */
final class HttpPush implements AutoCloseable {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);

  /**
   * A whole push, from connecting to the answer's last byte; a receiver that sends a byte per
   * read-timeout ends here.
   */
  static final Duration PUSH_WITHIN = Duration.ofSeconds(5);

  /**
   * Interim answers (100 Continue, 103) before the final one; a receiver sending them without end
   * is not answering.
   */
  static final int MAX_INTERIM_ANSWERS = 8;

  /** One line of the head or of a chunked body's framing, every byte counted, its CR and LF too. */
  static final int MAX_LINE_BYTES = 8 * 1024;

  static final int MAX_HEADERS = 100;

  /** The status lines and headers of an answer's interim and final heads together. */
  static final int MAX_HEAD_BYTES = 64 * 1024;

  /**
   * An answer's body as read (a chunked one's framing counted); past it the connection is closed,
   * not drained.
   */
  static final int MAX_BODY_BYTES = 64 * 1024;

  /**
   * As much of a refusal's body as a message keeps; the terminal shows its first 200 characters.
   */
  private static final int QUOTED_BYTES = 4096;

  private static final int QUOTED_CHARS = 200;
  private Socket socket;

  /**
   * The TCP socket under {@link #socket} (the same one without TLS): what the push's deadline
   * closes.
   */
  private Socket plain;

  private InputStream in;
  private OutputStream out;

  /** Whether a byte of the current push's answer has come. */
  private boolean answerStarted;

  /** Where {@link #socket} is connected: scheme, host and port. */
  private String connectedTo;

  /** Bytes the part of the answer being read (its heads, then its body) may still take. */
  private long readLeft;

  /**
   * POSTs the first {@code length} bytes of {@code body}: a buffer its sender reuses from push to
   * push.
   */
  void post(URI uri, Map<String, String> headers, byte[] body, int length)
      throws MetricsSink.PushException {
    byte[] head = head(uri, headers, length);
    Answer answer;
    try (Deadline deadline = new Deadline(PUSH_WITHIN)) {
      boolean reused = socket != null && endpoint(uri).equals(connectedTo);
      if (reused) deadline.guard(plain);
      else connect(uri, deadline);
      try {
        answer = exchange(head, body, length);
      } catch (IOException e) {
        // A kept-alive connection the receiver closed while idle: the write breaks, or the answer
        // never starts, and the
        // receiver read nothing of this push. Once more on a new connection; a timeout is not that
        // (it may be working on it).
        if (!reused || answerStarted || e instanceof SocketTimeoutException || deadline.expired())
          throw failed(e, deadline);
        connect(uri, deadline);
        try {
          answer = exchange(head, body, length);
        } catch (IOException again) {
          throw failed(again, deadline);
        }
      }
    }
    if (answer.status / 100 == 2) return;
    String said = OutsideText.forTerminal(answer.said.strip(), QUOTED_CHARS);
    throw new MetricsSink.PushException(
        "HTTP " + answer.status + (said.isEmpty() ? "" : ": " + said),
        answer.status >= 500 || answer.status == 429);
  }

  private record Answer(int status, String said) {}

  private MetricsSink.PushException failed(IOException e, Deadline deadline) {
    close();
    if (e instanceof SocketTimeoutException || deadline.expired()) {
      return new MetricsSink.PushException(
          "no whole answer within " + PUSH_WITHIN.toSeconds() + " s", true);
    }
    return new MetricsSink.PushException(reason(e), true);
  }

  /**
   * Closes the push's TCP socket when its time is up, from a virtual thread of its own: a socket's
   * read timeout is per read, so a receiver sending a byte within each would hold a read loop for
   * ever, and a write the receiver never takes has no timeout at all. The TCP socket, not the TLS
   * one above it: closing TLS would first try to write its close_notify.
   */
  private static final class Deadline implements AutoCloseable {
    private final long atNanos;
    private final Thread watching;
    private volatile Socket socket;
    private volatile boolean expired, over;

    Deadline(Duration within) {
      atNanos = System.nanoTime() + within.toNanos();
      watching = Thread.ofVirtual().name("pkibench-metrics-deadline").start(this::watch);
    }

    private void watch() {
      for (long left; !over && (left = atNanos - System.nanoTime()) > 0; )
        LockSupport.parkNanos(left);
      if (over) return;
      expired = true;
      Socket s = socket;
      if (s != null) closeQuietly(s);
    }

    /** Puts {@code s} under this deadline: closed when it passes (at once if it has). */
    void guard(Socket s) {
      socket = s;
      if (expired) closeQuietly(s);
    }

    boolean expired() {
      return expired;
    }

    /** What is left of the deadline, at least 1 ms (0 would be no timeout to a socket). */
    int millisLeft() {
      return (int) Math.max(1, (atNanos - System.nanoTime()) / 1_000_000);
    }

    @Override
    public void close() {
      over = true;
      LockSupport.unpark(watching);
    }
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
    return uri.getPort() >= 0
        ? uri.getPort()
        : uri.getScheme().equalsIgnoreCase("https") ? 443 : 80;
  }

  private void connect(URI uri, Deadline deadline) throws MetricsSink.PushException {
    close();
    Socket tcp = new Socket();
    deadline.guard(tcp);
    try {
      tcp.connect(
          new InetSocketAddress(bareHost(uri), port(uri)),
          (int) Math.min(CONNECT_TIMEOUT.toMillis(), deadline.millisLeft()));
      tcp.setTcpNoDelay(true);
      // A read never waits past the push's deadline; the deadline's closing ends one that keeps
      // getting bytes.
      tcp.setSoTimeout(deadline.millisLeft());
      Socket s = tcp;
      if (uri.getScheme().equalsIgnoreCase("https")) {
        SSLSocket tls =
            (SSLSocket)
                ((SSLSocketFactory) SSLSocketFactory.getDefault())
                    .createSocket(tcp, bareHost(uri), port(uri), true);
        SSLParameters parameters = tls.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm(
            "HTTPS"); // the receiver's certificate names its host, as HttpsURLConnection checks
        tls.setSSLParameters(parameters);
        tls.startHandshake();
        s = tls;
      }
      socket = s;
      plain = tcp;
      in =
          new BufferedInputStream(
              s.getInputStream()); // the head is read byte by byte: not a system call each
      out =
          new BufferedOutputStream(
              s.getOutputStream(), 16 * 1024); // head and body in one write when they fit
      connectedTo = endpoint(uri);
    } catch (SocketTimeoutException e) {
      closeQuietly(tcp);
      throw new MetricsSink.PushException(
          tcp.isConnected()
              ? "no TLS handshake within " + PUSH_WITHIN.toSeconds() + " s"
              : "no connection within " + CONNECT_TIMEOUT.toSeconds() + " s",
          true);
    } catch (ConnectException e) {
      closeQuietly(tcp);
      throw new MetricsSink.PushException("connection refused", true);
    } catch (IOException | IllegalArgumentException e) {
      closeQuietly(tcp);
      if (deadline.expired()) {
        throw new MetricsSink.PushException(
            tcp.isConnected()
                ? "no TLS handshake within " + PUSH_WITHIN.toSeconds() + " s"
                : "no connection within " + PUSH_WITHIN.toSeconds() + " s",
            true);
      }
      throw new MetricsSink.PushException(reason(e), true);
    }
  }

  /**
   * The request line and headers; the URL's query is kept (a receiver may take a tenant there), its
   * user info never sent.
   */
  private static byte[] head(URI uri, Map<String, String> headers, int length) {
    String path =
        (uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath())
            + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
    String host =
        uri.getHost()
            + (uri.getPort() >= 0
                ? ":" + uri.getPort()
                : ""); // getHost keeps an IPv6 literal's brackets
    StringBuilder head =
        new StringBuilder(256)
            .append("POST ")
            .append(path)
            .append(" HTTP/1.1\r\nHost: ")
            .append(host)
            .append("\r\nContent-Length: ")
            .append(length)
            .append("\r\n");
    headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
    return head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * The answer ran past its cap of bytes: for a head the answer is refused, for a body the rest is
   * left unread.
   */
  private static final class OverCap extends IOException {
    OverCap() {
      super("the receiver's answer is longer than pkibench reads");
    }
  }

  private Answer exchange(byte[] head, byte[] body, int length) throws IOException {
    answerStarted = false;
    out.write(head);
    out.write(body, 0, length);
    out.flush();
    readLeft = MAX_HEAD_BYTES;
    Head answer;
    try {
      answer = readHead();
      // An interim answer (100 Continue unasked, 103): the final one follows, after a few at most.
      for (int interim = 0; answer.status / 100 == 1; interim++) {
        if (interim >= MAX_INTERIM_ANSWERS) {
          throw new IOException(
              "the receiver's answer has over "
                  + MAX_INTERIM_ANSWERS
                  + " interim (1xx) answers before its status");
        }
        answer = readHead();
      }
    } catch (OverCap e) {
      throw new IOException(
          "the receiver's answer has over " + MAX_HEAD_BYTES + " bytes of headers");
    }
    boolean bodyless = answer.status == 204 || answer.status == 304;
    ByteArrayOutputStream said = new ByteArrayOutputStream();
    boolean reusable = answer.keepAlive;
    readLeft = MAX_BODY_BYTES;
    try {
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
    } catch (OverCap e) {
      reusable = false; // what follows is left unread: the connection cannot carry the next push
    }
    if (!reusable) close();
    return new Answer(answer.status, said.toString(StandardCharsets.UTF_8));
  }

  private record Head(int status, long contentLength, boolean chunked, boolean keepAlive) {}

  private Head readHead() throws IOException {
    String statusLine = line();
    String[] parts = statusLine.split(" ", 3);
    if (parts.length < 2 || !parts[0].startsWith("HTTP/1."))
      throw new IOException("the receiver's answer is not HTTP/1.x");
    int status;
    try {
      status = Integer.parseInt(parts[1]);
    } catch (NumberFormatException e) {
      throw new IOException("the receiver's answer has no status code");
    }
    long contentLength = -1;
    boolean chunked = false;
    boolean keepAlive = parts[0].equals("HTTP/1.1");
    int headers = 0;
    for (String header = line(); !header.isEmpty(); header = line()) {
      if (++headers > MAX_HEADERS)
        throw new IOException("the receiver's answer has over " + MAX_HEADERS + " headers");
      int colon = header.indexOf(':');
      if (colon <= 0) continue;
      String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = header.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
      switch (name) {
        case "content-length" -> {
          try {
            contentLength = Long.parseLong(value);
          } catch (NumberFormatException e) {
            throw new IOException(
                "the receiver's answer has a Content-Length that is not a number");
          }
        }
        case "transfer-encoding" -> chunked = value.endsWith("chunked");
        case "connection" -> {
          if (value.contains("close")) keepAlive = false;
          else if (value.contains("keep-alive")) keepAlive = true;
        }
        default -> {}
      }
    }
    return new Head(status, contentLength, chunked, keepAlive);
  }

  /**
   * One line without its CRLF; every byte counts against the line's and the answer part's caps, a
   * CR as any other.
   */
  private String line() throws IOException {
    StringBuilder line = new StringBuilder(64);
    int bytes = 0;
    for (int c; ; ) {
      if (readLeft-- <= 0) throw new OverCap();
      if ((c = in.read()) == '\n') break;
      if (c < 0)
        throw new EOFException(
            answerStarted
                ? "the receiver's answer ended in its headers"
                : "the receiver closed the connection");
      answerStarted = true;
      if (++bytes > MAX_LINE_BYTES)
        throw new IOException("the receiver's answer has a line over " + MAX_LINE_BYTES + " bytes");
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
        throw new IOException(
            "the receiver's chunked answer has a chunk size that is not hexadecimal");
      }
      if (n < 0) throw new IOException("the receiver's chunked answer has a negative chunk size");
      if (n == 0) {
        for (int trailers = 0; !line().isEmpty(); trailers++) {
          if (trailers >= MAX_HEADERS)
            throw new IOException("the receiver's answer has over " + MAX_HEADERS + " trailers");
        }
        return;
      }
      readBody(n, said);
      line(); // the chunk's CRLF
    }
  }

  /**
   * Reads {@code n} bytes (or to the end when n is Long.MAX_VALUE), keeping the first {@link
   * #QUOTED_BYTES}; past the body's cap it stops with {@link OverCap}, the rest unread.
   */
  private void readBody(long n, ByteArrayOutputStream said) throws IOException {
    byte[] buffer = new byte[4096];
    long left = n;
    while (left > 0) {
      if (readLeft <= 0) throw new OverCap();
      int got = in.read(buffer, 0, (int) Math.min(Math.min(buffer.length, left), readLeft));
      if (got < 0) {
        if (n == Long.MAX_VALUE) return;
        throw new EOFException("the receiver's answer ended before its body did");
      }
      if (said.size() < QUOTED_BYTES)
        said.write(buffer, 0, Math.min(got, QUOTED_BYTES - said.size()));
      left -= got;
      readLeft -= got;
    }
  }

  /**
   * An exception's message, which may hold what the receiver sent (a name, a header), as a terminal
   * may show it.
   */
  private static String reason(Exception e) {
    return OutsideText.forTerminal(
        e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // closing a socket that failed to connect, or that the deadline closed: nothing left to
      // release
    }
  }

  /** Closes the kept connection, if any; the next push opens a new one. */
  @Override
  public void close() {
    if (socket != null) closeQuietly(socket);
    if (plain != null) closeQuietly(plain);
    socket = null;
    plain = null;
    in = null;
    out = null;
    connectedTo = null;
  }
}
