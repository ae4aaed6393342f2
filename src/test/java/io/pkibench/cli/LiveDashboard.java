package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A command run in this JVM with {@code --dashboard 0}, its page read over HTTP as the page's own
 * script reads it: {@code live.json}, then the page itself once the command has ended.
 */
final class LiveDashboard {
  private static final Pattern ADDRESS =
      Pattern.compile("dashboard: (http://127\\.0\\.0\\.1:\\d+/)");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The command's exit code, once it ends. */
  final CompletableFuture<Integer> command;

  /** The page's address, as the command printed it. */
  final String url;

  private final HttpClient http = HttpClient.newHttpClient();

  private LiveDashboard(CompletableFuture<Integer> command, String url) {
    this.command = command;
    this.url = url;
  }

  /** {@code pkibench ARGS} started in {@code dir}, once it has printed its dashboard's address. */
  static LiveDashboard start(Path dir, StringWriter out, StringWriter err, String... args)
      throws Exception {
    CompletableFuture<Integer> command =
        CompletableFuture.supplyAsync(() -> InThisJvm.run(dir, out, err, args));
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < until) {
      Matcher m = ADDRESS.matcher(err.toString());
      if (m.find()) return new LiveDashboard(command, m.group(1));
      if (command.isDone()) break;
      Thread.sleep(100);
    }
    throw new AssertionError("no dashboard address on stderr: " + err);
  }

  /** The live part and the latest second's figures ({@code live.json}). */
  JsonNode live() throws Exception {
    HttpResponse<String> r = http.send(get("live.json"), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return JSON.readTree(r.body());
  }

  /** The page as a browser gets it. */
  String page() throws Exception {
    return http.send(get(""), HttpResponse.BodyHandlers.ofString()).body();
  }

  /** Waits up to {@code limit} for the page to say the command ended; whether it did. */
  boolean awaitEnded(Duration limit) throws Exception {
    long until = System.nanoTime() + limit.toNanos();
    while (!live().get("ended").asBoolean()) {
      if (System.nanoTime() > until) return false;
      Thread.sleep(250);
    }
    return true;
  }

  private HttpRequest get(String path) {
    return HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(20)).build();
  }
}
