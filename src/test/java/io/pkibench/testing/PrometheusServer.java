package io.pkibench.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus on loopback with its own empty configuration and storage, started for one test,
 * with its HTTP query API; its receivers (remote-write, OTLP) are switched on by the flags given.
 * Stopped, with its files, by {@link #close}.
 */
public final class PrometheusServer implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Process process;
  private final int port;
  private final Path log;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private PrometheusServer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * Starts {@code binary} with {@code flags} besides its configuration, storage and address;
   * returns once it answers ready.
   */
  public static PrometheusServer start(Path binary, Path dir, String... flags) throws Exception {
    if (!Files.isExecutable(binary))
      fail(binary + " is missing: ./test installs it (see the comment there)");
    Path config =
        Files.writeString(dir.resolve("prometheus.yml"), "global:\n  scrape_interval: 1m\n");
    List<String> command =
        new ArrayList<>(
            List.of(
                binary.toString(),
                "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"),
                // port 0: Prometheus binds a port the kernel picks, read back from the kernel
                "--web.listen-address=127.0.0.1:0"));
    command.addAll(List.of(flags));
    Path log = dir.resolve("prometheus.log");
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    int port;
    try {
      port = ListeningPorts.await(process, Duration.ofSeconds(90), log);
    } catch (AssertionError e) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      throw e;
    }
    PrometheusServer server = new PrometheusServer(process, port, log);
    try {
      Await.until(
          Duration.ofSeconds(90), // a bound, not a measure: its storage starts slowly when loaded
          "Prometheus ready on 127.0.0.1:" + port,
          () -> {
            if (!process.isAlive()) fail("Prometheus exited: " + Files.readString(log));
            try {
              return server
                      .http
                      .send(
                          HttpRequest.newBuilder(URI.create(server.url("/-/ready"))).build(),
                          HttpResponse.BodyHandlers.discarding())
                      .statusCode()
                  == 200;
            } catch (IOException notYet) {
              return false;
            }
          });
    } catch (Exception | AssertionError e) {
      server.close();
      throw e;
    }
    return server;
  }

  public String url(String path) {
    return "http://127.0.0.1:" + port + path;
  }

  /**
   * An API call's {@code data}, failing with Prometheus' own error when the status is not success.
   */
  public JsonNode api(String pathAndQuery) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(url(pathAndQuery))).build(),
            HttpResponse.BodyHandlers.ofString());
    JsonNode body = JSON.readTree(response.body());
    assertEquals("success", body.path("status").asText(), pathAndQuery + " -> " + response.body());
    return body.get("data");
  }

  /** An instant query's result vector at {@code atSeconds}. */
  public JsonNode query(String promql, double atSeconds) throws Exception {
    return api("/api/v1/query?query=" + encode(promql) + "&time=" + atSeconds).get("result");
  }

  /** A range query's result matrix, one point per {@code stepSeconds}. */
  public JsonNode queryRange(String promql, double startSeconds, double endSeconds, int stepSeconds)
      throws Exception {
    return api("/api/v1/query_range?query="
            + encode(promql)
            + "&start="
            + startSeconds
            + "&end="
            + endSeconds
            + "&step="
            + stepSeconds)
        .get("result");
  }

  /** The one value of an instant query that must return exactly one series. */
  public double scalar(String promql, double atSeconds) throws Exception {
    JsonNode result = query(promql, atSeconds);
    assertEquals(1, result.size(), promql + " -> " + result + "\n" + logTail());
    return Double.parseDouble(result.get(0).get("value").get(1).asText());
  }

  public String logTail() throws IOException {
    String text = Files.exists(log) ? Files.readString(log) : "";
    return text.length() > 3000 ? text.substring(text.length() - 3000) : text;
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8);
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS))
      process.destroyForcibly().waitFor();
    http.close();
  }
}
