package io.pkibench.openbao;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.pki.Secret;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import javax.net.ssl.SSLContext;

/**
 * The OpenBao (and Vault) HTTP API, {@code /v1/PATH} with JSON bodies, over one or more nodes: a
 * call goes to the node that answered last and moves on to the next when a node does not answer or
 * answers 5xx (sealed, standby without an active node, stopping), so that a cluster losing its
 * leader is ridden through. The token goes in the {@code X-Vault-Token} header only; it never
 * reaches a message, a log or {@link #toString()}.
 */
public final class OpenBaoClient implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final List<URI> nodes;
  private final String token;
  private final HttpClient http;
  private final Duration timeout;
  private final AtomicInteger current = new AtomicInteger();
  private final AtomicLongArray calls;
  private final AtomicLongArray failures;

  /** 1 where the node's last call got no answer or a 5xx. */
  private final AtomicIntegerArray down;

  /**
   * {@code token} may be null for the unauthenticated calls ({@code sys/init}, {@code sys/unseal});
   * {@code tls} decides which servers are trusted.
   */
  public OpenBaoClient(List<URI> nodes, Secret token, SSLContext tls, Duration timeout) {
    if (nodes.isEmpty()) throw new IllegalArgumentException("OpenBao: no node address given");
    this.nodes = List.copyOf(nodes);
    this.token = token == null ? null : new String(token.chars());
    this.timeout = timeout;
    this.calls = new AtomicLongArray(nodes.size());
    this.failures = new AtomicLongArray(nodes.size());
    this.down = new AtomicIntegerArray(nodes.size());
    HttpClient.Builder b =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER);
    if (tls != null) b.sslContext(tls);
    this.http = b.build();
  }

  public List<URI> nodes() {
    return nodes;
  }

  /** Calls made to node {@code i} so far, and of them the ones that failed to get an answer. */
  public long calls(int i) {
    return calls.get(i);
  }

  public long failures(int i) {
    return failures.get(i);
  }

  /** Whether node {@code i}'s last call was answered (under 500); true before any call. */
  public boolean up(int i) {
    return down.get(i) == 0;
  }

  public JsonNode get(String path) throws OpenBaoException {
    return send("GET", path, null);
  }

  public JsonNode post(String path, Map<String, ?> body) throws OpenBaoException {
    return send("POST", path, body);
  }

  /** {@code LIST PATH}: the names under it (an empty list when there are none). */
  public List<String> list(String path) throws OpenBaoException {
    JsonNode answer;
    try {
      answer = send("LIST", path, null);
    } catch (OpenBaoException e) {
      if (e.status() == 404) return List.of();
      throw e;
    }
    List<String> names = new ArrayList<>();
    answer.path("data").path("keys").forEach(n -> names.add(n.asText()));
    return names;
  }

  /** The same call on node {@code i} only, without failover (to ask one node of a cluster). */
  public JsonNode getFrom(int i, String path) throws OpenBaoException {
    return once(i, "GET", path, null);
  }

  public JsonNode postTo(int i, String path, Map<String, ?> body) throws OpenBaoException {
    return once(i, "POST", path, body);
  }

  private JsonNode send(String method, String path, Map<String, ?> body) throws OpenBaoException {
    int start = current.get();
    OpenBaoException last = null;
    for (int k = 0; k < nodes.size(); k++) {
      int i = (start + k) % nodes.size();
      try {
        JsonNode answer = once(i, method, path, body);
        if (i != start) current.compareAndSet(start, i);
        return answer;
      } catch (OpenBaoException e) {
        // 4xx is OpenBao's answer about the request itself: another node would say the same
        if (e.status() >= 400 && e.status() < 500) throw e;
        last = e;
      }
    }
    throw last;
  }

  private JsonNode once(int i, String method, String path, Map<String, ?> body)
      throws OpenBaoException {
    URI uri = nodes.get(i).resolve("/v1/" + path);
    calls.incrementAndGet(i);
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(timeout);
    if (token != null) request.header("X-Vault-Token", token);
    try {
      request.method(
          method,
          body == null
              ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
      if (body != null) request.header("Content-Type", "application/json");
      HttpResponse<byte[]> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
      int status = response.statusCode();
      JsonNode answer =
          response.body().length == 0 ? JSON.createObjectNode() : JSON.readTree(response.body());
      down.set(i, status >= 500 ? 1 : 0);
      if (status >= 200 && status < 300) return answer;
      if (status >= 500) failures.incrementAndGet(i);
      throw new OpenBaoException(
          method + " " + uri + ": HTTP " + status + " " + errors(answer), status, null);
    } catch (IOException e) {
      if (e instanceof OpenBaoException o) throw o;
      failures.incrementAndGet(i);
      down.set(i, 1);
      throw new OpenBaoException(
          method
              + " "
              + uri
              + ": no answer ("
              + e.getClass().getSimpleName()
              + ": "
              + e.getMessage()
              + ")",
          0,
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new OpenBaoException(method + " " + uri + ": interrupted", 0, e);
    }
  }

  private static String errors(JsonNode answer) {
    List<String> errors = new ArrayList<>();
    answer.path("errors").forEach(e -> errors.add(e.asText()));
    return errors.isEmpty() ? "" : String.join("; ", errors);
  }

  @Override
  public String toString() {
    return "OpenBaoClient" + nodes;
  }

  @Override
  public void close() {
    http.close();
  }
}
