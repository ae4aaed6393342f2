package io.pkibench.workload.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/**
 * JSON over HTTPS to the signing service; any non-2xx answer becomes an IOException carrying the
 * service's error code and message.
 */
final class SigningServiceClient implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http;
  private final URI base;

  SigningServiceClient(URI base, SSLContext tls) {
    this.base = base;
    this.http =
        HttpClient.newBuilder()
            .sslContext(tls)
            .connectTimeout(Duration.ofSeconds(5))
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  /** Posts {@code request} (a record) as Jackson writes it. */
  JsonNode post(String path, Object request) throws IOException, InterruptedException {
    return post(path, JSON.writeValueAsBytes(request));
  }

  /** The JSON of {@code request}, for a body made once and posted many times. */
  static byte[] json(Object request) throws IOException {
    return JSON.writeValueAsBytes(request);
  }

  JsonNode post(String path, byte[] json) throws IOException, InterruptedException {
    HttpResponse<String> reply =
        http.send(
            HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(json))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    if (reply.statusCode() / 100 != 2) {
      throw new IOException("HTTP " + reply.statusCode() + " from " + path + ": " + reply.body());
    }
    try {
      return JSON.readTree(reply.body());
    } catch (JsonProcessingException e) {
      // said without the path (it carries the token: one cause per operation) and without Jackson's
      // location
      throw new IOException(
          "the service's answer is not whole JSON ("
              + reply.body().length()
              + " chars): "
              + e.getOriginalMessage());
    }
  }

  byte[] postBinary(String path, String contentType, byte[] body)
      throws IOException, InterruptedException {
    HttpResponse<byte[]> reply =
        http.send(
            HttpRequest.newBuilder(base.resolve(path))
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    if (reply.statusCode() / 100 != 2)
      throw new IOException("HTTP " + reply.statusCode() + " from " + path);
    return reply.body();
  }

  /** Closes the pooled connections now rather than leaving them to the service's idle timeout. */
  @Override
  public void close() {
    http.shutdownNow();
  }
}
