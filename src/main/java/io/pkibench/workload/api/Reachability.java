package io.pkibench.workload.api;

import io.pkibench.text.FailureCause;
import io.pkibench.text.OutsideText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import javax.net.ssl.SSLException;

/**
 * Whether a service's http(s) URL answers an HTTP request now: checked before a server starts that
 * will call it, so that a wrong address stops it at once, named. A request, never a bare connect
 * and close: a single-threaded service (OpenSSL's OCSP responder) waits for good on a connection
 * that sends nothing. Any answer counts, an error status or a TLS handshake refused included: the
 * service is there. Runs check their services with one real operation instead (the session's
 * check).
 */
public final class Reachability {
  static final int TIMEOUT_MILLIS = 3_000;

  private Reachability() {}

  /**
   * Empty when {@code url} answers an HTTP request (or is not http/https, which is not asked); else
   * "FLAG URL: cannot be reached (why); FIX".
   */
  public static Optional<String> problem(String flag, String url, String fix) {
    URI uri;
    try {
      uri = URI.create(url);
    } catch (IllegalArgumentException e) {
      return Optional.of(flag + " " + url + ": not a URL (" + e.getMessage() + ")");
    }
    if (uri.getHost() == null)
      return Optional.of(
          flag + " " + url + ": give a URL with a host, e.g. http://127.0.0.1:18318/tsa");
    if (!"http".equalsIgnoreCase(uri.getScheme()) && !"https".equalsIgnoreCase(uri.getScheme()))
      return Optional.empty();
    Duration within = Duration.ofMillis(TIMEOUT_MILLIS);
    try (HttpClient client = HttpClient.newBuilder().connectTimeout(within).build()) {
      client.send(
          HttpRequest.newBuilder(uri).timeout(within).GET().build(),
          HttpResponse.BodyHandlers.discarding());
      return Optional.empty();
    } catch (SSLException e) {
      return Optional
          .empty(); // it answered the handshake; whether it is trusted is for the caller's own
      // client to say
    } catch (IOException e) {
      return Optional.of(
          flag
              + " "
              + url
              + ": cannot be reached ("
              + OutsideText.forTerminal(FailureCause.sentenceOf(e))
              + "); "
              + fix);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of(flag + " " + url + ": not checked (interrupted); " + fix);
    }
  }
}
