package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code study … --dashboard}: the cheapest study run ({@code restpki --smoke --types cades}, one
 * step, its probe's levels then the measured one) serves the live page, whose table fills in as the
 * study goes (a later reading has more rows than an earlier one, both while it ran), and once it
 * ends the page is the report --html saved. Plain HTTP: Chromium is {@link
 * DashboardChromiumTest}'s.
 */
@Timeout(180)
class DashboardStudyTest {
  @TempDir Path dir;

  @Test
  void studyDashboard_tableFillsInWhileItRuns_thenThePageIsTheSavedReport() throws Exception {
    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of(),
            InstantSource.system(),
            dir,
            false);
    CompletableFuture<Integer> study =
        CompletableFuture.supplyAsync(
            () ->
                Main.execute(
                    ctx,
                    "study",
                    "restpki",
                    "--smoke",
                    "--types",
                    "cades",
                    "--pki",
                    "pki",
                    "--out",
                    "restpki.json",
                    "--html",
                    "restpki.html",
                    "--dashboard",
                    "0",
                    "--dashboard-linger",
                    "5s"));
    String url = awaitUrl(err, study);
    HttpClient http = HttpClient.newHttpClient();

    // Readings while it runs: the first with a row, then one with more rows before the end.
    JsonNode first = null, later = null;
    long until = System.nanoTime() + Duration.ofSeconds(150).toNanos();
    while (System.nanoTime() < until && !study.isDone()) {
      JsonNode j = json(http, url);
      if (j.get("ended").asBoolean()) break;
      if (first == null && j.get("rows").asInt() > 0) first = j;
      else if (first != null && j.get("rows").asInt() > first.get("rows").asInt()) {
        later = j;
        break;
      }
      Thread.sleep(250);
    }
    assertTrue(first != null, "no row while the study ran: " + err);
    assertTrue(later != null, "the table never grew past " + first.get("rows") + " rows: " + err);
    assertTrue(first.get("html").asText().contains("CAdES"), "the step's rows: " + first);
    assertTrue(
        rowsIn(later.get("html").asText()) > rowsIn(first.get("html").asText()),
        "the later reading's table has more rows:\n" + first + "\n" + later);

    // The end: the page, still up for the linger, is the report --html saved.
    until = System.nanoTime() + Duration.ofSeconds(150).toNanos();
    while (!json(http, url).get("ended").asBoolean() && System.nanoTime() < until)
      Thread.sleep(250);
    assertTrue(json(http, url).get("ended").asBoolean(), "the study ended: " + err);
    String served = http.send(get(url), HttpResponse.BodyHandlers.ofString()).body();
    assertEquals(Files.readString(dir.resolve("restpki.html")), served);
    assertEquals(ExitCodes.OK, study.get(60, TimeUnit.SECONDS), err.toString());
  }

  /** The table's rows (its header not counted). */
  private static int rowsIn(String html) {
    return html.split("<tr><td", -1).length - 1;
  }

  private static String awaitUrl(StringWriter err, CompletableFuture<Integer> run)
      throws Exception {
    Pattern p = Pattern.compile("dashboard: (http://127\\.0\\.0\\.1:\\d+/)");
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < until) {
      Matcher m = p.matcher(err.toString());
      if (m.find()) return m.group(1);
      if (run.isDone()) break;
      Thread.sleep(100);
    }
    throw new AssertionError("no dashboard address on stderr: " + err);
  }

  private static JsonNode json(HttpClient http, String url) throws Exception {
    HttpResponse<String> r =
        http.send(get(url + "live.json"), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return new ObjectMapper().readTree(r.body());
  }

  private static HttpRequest get(String url) {
    return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build();
  }
}
