package io.pkibench.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.session.ForkedSeries;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The line programs wait for when they start {@code pkibench serve}: its format, and a real service
 * printing it.
 */
@org.junit.jupiter.api.Timeout(
    value = 2,
    unit = java.util.concurrent.TimeUnit.MINUTES) // talks to a server: a hang fails, said as one
class ReadyLineTest {
  @TempDir Path dir;

  @Test
  void parse_roundTripsAndRefusesAnythingElse() {
    ReadyLine line = new ReadyLine("tsa", "http://127.0.0.1:18318", 4242);
    assertEquals(
        "pkibench.ready/1 {\"service\":\"tsa\",\"url\":\"http://127.0.0.1:18318\",\"pid\":4242}",
        line.format());
    assertEquals(Optional.of(line), ReadyLine.parse(line.format()));
    assertEquals(
        Optional.empty(),
        ReadyLine.parse("TSA listening on http://127.0.0.1:18318/tsa (pid 4242); Ctrl-C stops it"));
    assertEquals(Optional.empty(), ReadyLine.parse("pkibench.ready/1 {not json"));
    assertEquals(
        Optional.empty(),
        ReadyLine.parse("pkibench.ready/1 {\"service\":\"tsa\",\"pid\":4242}"),
        "no url: not ready");
  }

  @Test
  void serve_printsItsReadyLineOnceListeningAndAnswersThere() throws Exception {
    List<String> cmd = new ArrayList<>(ForkedSeries.thisJvm());
    cmd.addAll(List.of("serve", "tsa", "--port", "0", "--pki", dir.resolve("pki").toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream()))) {
      ReadyLine ready = null;
      while (ready == null) {
        String l = out.readLine();
        if (l == null) break;
        ready = ReadyLine.parse(l).orElse(null);
      }
      assertTrue(ready != null, "no ready line before the output ended");
      assertEquals("tsa", ready.service());
      assertEquals(p.pid(), ready.pid());
      assertTrue(ready.url().matches("http://127\\.0\\.0\\.1:\\d+"), ready.url());
      try (HttpClient http = HttpClient.newHttpClient()) {
        var r =
            http.send(
                HttpRequest.newBuilder(URI.create(ready.url() + "/tsa")).GET().build(),
                HttpResponse.BodyHandlers.discarding());
        assertTrue(
            r.statusCode() >= 400 && r.statusCode() < 500,
            "it listens where it said: a GET is refused as the client's fault, " + r.statusCode());
      }
    } finally {
      p.destroy();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }
}
