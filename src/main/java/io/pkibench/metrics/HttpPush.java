package io.pkibench.metrics;

import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;

/**
 * POSTs one body to a receiver with the JDK's HTTP client and sorts the outcome: 2xx delivered; no connection, a
 * timeout, 5xx or 429 worth retrying; any other status refused (the receiver says why, and sending again would not help).
 */
final class HttpPush implements AutoCloseable {
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();

  void post(URI uri, Map<String, String> headers, byte[] body) throws MetricsSink.PushException {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT).POST(HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(request::header);
    HttpResponse<String> response;
    try {
      response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (HttpConnectTimeoutException e) {
      throw new MetricsSink.PushException("no connection within " + CONNECT_TIMEOUT.toSeconds() + " s", true);
    } catch (HttpTimeoutException e) {
      throw new MetricsSink.PushException("no answer within " + REQUEST_TIMEOUT.toSeconds() + " s", true);
    } catch (ConnectException e) {
      throw new MetricsSink.PushException("connection refused", true);
    } catch (IOException e) {
      throw new MetricsSink.PushException(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage(), true);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new MetricsSink.PushException("interrupted", false);
    }
    int status = response.statusCode();
    if (status / 100 == 2) return;
    String said = response.body() == null ? "" : response.body().strip();
    if (said.length() > 200) said = said.substring(0, 200) + "…";
    throw new MetricsSink.PushException("HTTP " + status + (said.isEmpty() ? "" : ": " + said), status >= 500 || status == 429);
  }

  @Override
  public void close() {
    client.close();
  }
}
