package io.pkibench.workload.dss;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pkibench.formats.ades.DssJson;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import javax.net.ssl.SSLContext;

/**
 * JSON to DSS's REST services under {@code --target} (e.g. {@code
 * http://127.0.0.1:8085/services/rest}), DSS's DTOs written and read with DSS's own mapping. Every
 * reply that is not a DSS answer becomes an IOException whose message is one line naming the path
 * and what came back (a status and the start of its body, a body that is not JSON, JSON cut short),
 * so that a run counts it under a reason a person can read.
 */
final class DssClient implements AutoCloseable {
  private static final int SHOWN_CHARS = 160;
  private final ObjectMapper json = DssJson.mapper();
  private final HttpClient http;
  private final URI base;

  DssClient(URI base, SSLContext tls) {
    this.base = base;
    this.http =
        HttpClient.newBuilder()
            .sslContext(tls)
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  URI base() {
    return base;
  }

  <T> T post(String path, Object request, Class<T> type) throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(60))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(request)));
    return read(path, http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray()), type);
  }

  <T> T get(String path, Class<T> type) throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(60))
            .header("Accept", "application/json")
            .GET();
    return read(path, http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray()), type);
  }

  private <T> T read(String path, HttpResponse<byte[]> reply, Class<T> type) throws IOException {
    byte[] body = reply.body();
    if (reply.statusCode() / 100 != 2)
      throw new IOException("HTTP " + reply.statusCode() + " from " + path + ": " + shown(body));
    String contentType = reply.headers().firstValue("Content-Type").orElse("none");
    if (!contentType.toLowerCase(Locale.ROOT).contains("json")) {
      throw new IOException(
          "HTTP "
              + reply.statusCode()
              + " from "
              + path
              + " is "
              + contentType
              + ", not JSON: "
              + shown(body));
    }
    try {
      T value =
          type == JsonNode.class ? type.cast(json.readTree(body)) : json.readValue(body, type);
      if (value == null)
        throw new IOException(
            "HTTP " + reply.statusCode() + " from " + path + " has an empty body, not DSS's JSON");
      return value;
    } catch (JsonProcessingException e) {
      String what = e.getOriginalMessage().lines().findFirst().orElse("");
      throw new IOException(
          "unreadable JSON from " + path + " (" + body.length + " bytes): " + what);
    }
  }

  /** The start of a body on one line, for a reason. */
  private static String shown(byte[] body) {
    String text =
        new String(body, 0, Math.min(body.length, SHOWN_CHARS * 2), StandardCharsets.UTF_8)
            .replaceAll("\\s+", " ")
            .strip();
    if (text.isEmpty()) return "(empty body)";
    return text.length() <= SHOWN_CHARS ? text : text.substring(0, SHOWN_CHARS) + "…";
  }

  @Override
  public void close() {
    http.shutdownNow();
  }
}
