package io.pkibench.formats.tls;

import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A minimal HTTP/1.1 client over a {@link Connection} (plain or TLS, either engine): one request at
 * a time, the response's status, headers and body length, the body counted and dropped. Why not the
 * JDK's HttpClient: it pools connections out of the caller's reach (a new connection and a full
 * handshake per request, https-acrr, cannot be forced) and runs JSSE only; this one runs on the
 * same connections, engines and client identities as the other TLS workloads, so a TLS figure and
 * an HTTPS figure differ by HTTP alone. Bodies by Content-Length, chunked, or until the server
 * closes.
 */
public final class Http1 {
  /** Longest status line plus headers taken; a server sending more is refused. */
  public static final int MAX_HEAD_BYTES = 64 * 1024;

  /**
   * What a response said: its status, its body's length, and whether the connection may carry
   * another request.
   */
  public record Response(int status, long bodyBytes, boolean keepAlive, String bodyStart) {}

  private final Connection connection;
  private final byte[] buffer = new byte[16 * 1024];
  private int start;
  private int end;

  public Http1(Connection connection) {
    this.connection = connection;
  }

  /** A request's head: method, path, Host, Connection, and Content-Length when it has a body. */
  public static byte[] head(
      String method, String path, String host, boolean keepAlive, long contentLength) {
    StringBuilder b =
        new StringBuilder(method)
            .append(' ')
            .append(path)
            .append(" HTTP/1.1\r\nHost: ")
            .append(host)
            .append("\r\n");
    if (!keepAlive) b.append("Connection: close\r\n");
    if (contentLength >= 0)
      b.append("Content-Length: ")
          .append(contentLength)
          .append("\r\nContent-Type: application/octet-stream\r\n");
    return b.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
  }

  /** Sends {@code head} and {@code body}, then reads the whole response. */
  public Response exchange(byte[] head, byte[] body) throws IOException {
    if (body == null || body.length == 0) {
      connection.write(head, 0, head.length);
    } else {
      byte[] both =
          new byte
              [head.length
                  + body.length]; // one write: head and body in as few TLS records as the engine
      // makes
      System.arraycopy(head, 0, both, 0, head.length);
      System.arraycopy(body, 0, both, head.length, body.length);
      connection.write(both, 0, both.length);
    }
    return response();
  }

  private Response response() throws IOException {
    String statusLine = line();
    if (!statusLine.startsWith("HTTP/1."))
      throw new IOException("not an HTTP response: '" + printable(statusLine) + "'");
    String[] parts = statusLine.split(" ", 3);
    int status;
    try {
      status = Integer.parseInt(parts[1]);
    } catch (RuntimeException e) {
      throw new IOException("no status code in '" + printable(statusLine) + "'");
    }
    boolean keepAlive = statusLine.startsWith("HTTP/1.1");
    long contentLength = -1;
    boolean chunked = false;
    int headBytes = statusLine.length();
    for (String h = line(); !h.isEmpty(); h = line()) {
      headBytes += h.length() + 2;
      if (headBytes > MAX_HEAD_BYTES)
        throw new IOException("response headers over " + MAX_HEAD_BYTES + " bytes");
      int colon = h.indexOf(':');
      if (colon < 0) continue;
      String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT),
          value = h.substring(colon + 1).trim();
      switch (name) {
        case "content-length" -> {
          try {
            contentLength = Long.parseLong(value);
          } catch (NumberFormatException e) {
            throw new IOException("Content-Length '" + printable(value) + "' is not a number");
          }
        }
        case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
        case "connection" -> {
          if (value.equalsIgnoreCase("close")) keepAlive = false;
          else if (value.equalsIgnoreCase("keep-alive")) keepAlive = true;
        }
        default -> {}
      }
    }
    StringBuilder first = new StringBuilder();
    long body;
    if (chunked) {
      body = 0;
      for (long size = chunkSize(); size > 0; size = chunkSize()) {
        body += skip(size, body, -1, first);
        line(); // the CRLF after the chunk
      }
      for (String trailer = line(); !trailer.isEmpty(); trailer = line()) {}
    } else if (contentLength >= 0) {
      body = skip(contentLength, 0, contentLength, first);
    } else {
      body = skip(Long.MAX_VALUE, 0, -1, first); // until the server closes
      keepAlive = false;
    }
    return new Response(status, body, keepAlive, first.toString());
  }

  /**
   * Drops {@code n} body bytes (or up to the close when n is Long.MAX_VALUE), keeping the first 64
   * as text for a failure's reason.
   */
  private long skip(long n, long before, long declared, StringBuilder first) throws IOException {
    long done = 0;
    while (done < n) {
      if (start == end && !fill()) {
        if (n == Long.MAX_VALUE) return done;
        throw new EOFException(
            "the server closed the connection after "
                + (before + done)
                + (declared >= 0 ? " of " + declared : "")
                + " body bytes");
      }
      int take = (int) Math.min(end - start, n - done);
      if (first.length() < 64)
        first.append(
            new String(
                buffer, start, Math.min(take, 64 - first.length()), StandardCharsets.ISO_8859_1));
      start += take;
      done += take;
    }
    return done;
  }

  private long chunkSize() throws IOException {
    String line = line();
    int semicolon = line.indexOf(';');
    try {
      return Long.parseLong((semicolon < 0 ? line : line.substring(0, semicolon)).trim(), 16);
    } catch (NumberFormatException e) {
      throw new IOException("a chunk size '" + printable(line) + "' is not hexadecimal");
    }
  }

  /**
   * One CRLF-terminated line, without the CRLF; the server closing first is an EOF naming the line.
   */
  private String line() throws IOException {
    StringBuilder b = new StringBuilder();
    while (true) {
      if (start == end && !fill()) {
        throw new EOFException(
            b.length() == 0
                ? "the server closed the connection before its response"
                : "the server closed the connection mid-line");
      }
      byte c = buffer[start++];
      if (c == '\n') {
        int len = b.length();
        if (len > 0 && b.charAt(len - 1) == '\r') b.setLength(len - 1);
        return b.toString();
      }
      if (b.length() >= MAX_HEAD_BYTES)
        throw new IOException("a response line over " + MAX_HEAD_BYTES + " bytes");
      b.append((char) (c & 0xff));
    }
  }

  private boolean fill() throws IOException {
    start = 0;
    end = 0;
    int n = connection.read(buffer, 0, buffer.length);
    if (n < 0) return false;
    end = n;
    return true;
  }

  private static String printable(String s) {
    String cut = s.length() > 80 ? s.substring(0, 80) + "…" : s;
    return cut.replaceAll("[^\\x20-\\x7e]", "?");
  }
}
