package io.pkibench.formats.ades;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;

/**
 * DER over HTTP as RFC 3161 (section 3.4) and RFC 6960 (appendix A) carry it: one request, one
 * binary answer. Anything but a 200 carrying the expected media type is refused here in one line
 * that names the URL and what came back (the status, the media type, the first bytes of an HTML
 * page), so a run's table says why a service failed rather than what a DER parser choked on.
 * Thread-safe.
 */
public final class BinaryHttp implements AutoCloseable {
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  /**
   * The JDK client's words for a connection closed before the first byte of an answer
   * (jdk.internal.net.http.Http1Response).
   */
  static final String NO_BYTES = "header parser received no bytes";

  private final HttpClient client;

  public BinaryHttp() {
    // HTTP/1.1: the TSAs and OCSP responders on the market (and openssl's) speak nothing else, and
    // h2c upgrades would cost a round trip
    client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(TIMEOUT)
            .build();
  }

  public byte[] post(URI url, String requestType, byte[] body, String... replyTypes)
      throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(url)
            .timeout(TIMEOUT)
            .header("Content-Type", requestType)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        replyTypes);
  }

  public byte[] get(URI url, String... replyTypes) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(url).timeout(TIMEOUT).GET().build(), replyTypes);
  }

  /** {@code replyTypes}: the media types accepted, the first the one the standard names. */
  private byte[] send(HttpRequest request, String... replyTypes)
      throws IOException, InterruptedException {
    HttpResponse<byte[]> reply;
    try {
      reply = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      // A service that answers in HTTP/1.0 (OpenSSL's OCSP responder) closes the connection after
      // each answer; the JDK's client
      // may take that connection from its pool just before the close reaches it, and sends only a
      // GET again by itself. Nothing
      // came back on it, not a byte: the request goes once more, on a fresh connection.
      if (e.getMessage() == null || !e.getMessage().contains(NO_BYTES)) throw e;
      reply = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
    }
    String type = reply.headers().firstValue("Content-Type").orElse("");
    if (reply.statusCode() != 200) {
      throw new IOException(
          "HTTP " + reply.statusCode() + " from " + request.uri() + glimpse(reply.body()));
    }
    String lower = type.toLowerCase(Locale.ROOT);
    if (Arrays.stream(replyTypes).noneMatch(lower::startsWith)) {
      throw new IOException(
          request.uri()
              + " answered "
              + (type.isEmpty() ? "no Content-Type" : type)
              + ", not "
              + replyTypes[0]
              + glimpse(reply.body()));
    }
    return reply.body();
  }

  /**
   * ": <first printable characters>" of a body that is text (an error page), else nothing: binary
   * is not worth quoting.
   */
  static String glimpse(byte[] body) {
    if (body.length == 0) return " (empty body)";
    String text =
        new String(body, 0, Math.min(body.length, 60), StandardCharsets.ISO_8859_1)
            .replaceAll("\\s+", " ")
            .strip();
    return text.chars().allMatch(c -> c >= 0x20 && c < 0x7f) ? ": " + text : "";
  }

  @Override
  public void close() {
    client.close();
  }
}
