package io.pkibench.metrics;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * POSTs one body to a receiver and sorts the outcome: 2xx delivered; no connection, a timeout, 5xx or 429 worth
 * retrying; any other status refused (the receiver says why, and sending again would not help).
 *
 * <p>A blocking {@link HttpURLConnection} on the calling thread, its connection kept alive between pushes: every cycle
 * of a push is then spent on the exporter's own thread, which measures itself, where the JDK's asynchronous
 * {@code HttpClient} did part of the work on a selector thread and a worker pool of its own that nobody counted.
 */
final class HttpPush implements AutoCloseable {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
  /** As much of a refusal's body as a message quotes; the rest is read and dropped so the connection can be reused. */
  private static final int QUOTED_BYTES = 4096;

  void post(URI uri, Map<String, String> headers, byte[] body) throws MetricsSink.PushException {
    HttpURLConnection connection;
    try {
      connection = (HttpURLConnection) uri.toURL().openConnection();
      connection.setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
      connection.setReadTimeout((int) REQUEST_TIMEOUT.toMillis());
      connection.setRequestMethod("POST");
      connection.setDoOutput(true);
      connection.setUseCaches(false);
      connection.setInstanceFollowRedirects(false); // a redirect is the receiver's answer, refused as before: never re-POSTed elsewhere
      connection.setFixedLengthStreamingMode(body.length);
      headers.forEach(connection::setRequestProperty);
    } catch (IOException | IllegalArgumentException e) {
      throw new MetricsSink.PushException(reason(e), false);
    }
    try {
      connection.connect();
    } catch (SocketTimeoutException e) {
      throw new MetricsSink.PushException("no connection within " + CONNECT_TIMEOUT.toSeconds() + " s", true);
    } catch (ConnectException e) {
      throw new MetricsSink.PushException("connection refused", true);
    } catch (IOException e) {
      throw new MetricsSink.PushException(reason(e), true);
    }
    int status;
    String said;
    try {
      try (OutputStream out = connection.getOutputStream()) {
        out.write(body);
      }
      status = connection.getResponseCode();
      // Read to the end either way: a connection whose answer was read whole goes back to the keep-alive cache.
      try (InputStream in = status / 100 == 2 ? connection.getInputStream() : connection.getErrorStream()) {
        said = in == null ? "" : quoted(in);
      }
    } catch (SocketTimeoutException e) {
      connection.disconnect();
      throw new MetricsSink.PushException("no answer within " + REQUEST_TIMEOUT.toSeconds() + " s", true);
    } catch (IOException e) {
      connection.disconnect();
      throw new MetricsSink.PushException(reason(e), true);
    }
    if (status / 100 == 2) return;
    said = said.strip();
    if (said.length() > 200) said = said.substring(0, 200) + "…";
    throw new MetricsSink.PushException("HTTP " + status + (said.isEmpty() ? "" : ": " + said), status >= 500 || status == 429);
  }

  private static String quoted(InputStream in) throws IOException {
    ByteArrayOutputStream kept = new ByteArrayOutputStream();
    byte[] buffer = new byte[4096];
    for (int n; (n = in.read(buffer)) >= 0; ) {
      if (kept.size() < QUOTED_BYTES) kept.write(buffer, 0, Math.min(n, QUOTED_BYTES - kept.size()));
    }
    return kept.toString(StandardCharsets.UTF_8);
  }

  private static String reason(Exception e) {
    return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
  }

  /** Nothing of its own to close: kept-alive connections belong to the JDK's cache, which closes them when idle. */
  @Override
  public void close() {}
}
