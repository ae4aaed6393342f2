package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code study … --dashboard}: the cheapest study run ({@code restpki --smoke --types cades}, one
 * step, its probe's levels then the measured one) serves the live page, whose table fills in as the
 * study goes (a later reading has more rows than an earlier one, both while it ran), its status
 * says which step of how many runs, the service's CPU is read from the service's own process, and
 * once it ends the page is the report --html saved. Plain HTTP: Chromium is {@link
 * DashboardChromiumTest}'s.
 */
@Timeout(180)
class DashboardStudyTest {
  @TempDir Path dir;

  @Test
  void studyDashboard_tableFillsInWhileItRuns_thenThePageIsTheSavedReport() throws Exception {
    StringWriter out = new StringWriter(), err = new StringWriter();
    LiveDashboard page =
        LiveDashboard.start(
            dir,
            out,
            err,
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
            "5s");

    // Readings while it runs: the first with a row, then one with more rows before the end.
    JsonNode first = null, later = null;
    String stepSaid = null;
    double serviceCpu = 0;
    long until = System.nanoTime() + Duration.ofSeconds(150).toNanos();
    while (System.nanoTime() < until && !page.command.isDone()) {
      JsonNode j = page.live();
      if (j.get("ended").asBoolean()) break;
      if (j.get("status").asText().matches("step \\d+ of \\d+: .*"))
        stepSaid = j.get("status").asText();
      if (j.has("serviceCpuCores") && Double.isFinite(j.get("serviceCpuCores").asDouble()))
        serviceCpu = Math.max(serviceCpu, j.get("serviceCpuCores").asDouble());
      if (first == null && j.get("rows").asInt() > 0) first = j;
      else if (later == null && first != null && j.get("rows").asInt() > first.get("rows").asInt())
        later = j;
      if (later != null && stepSaid != null && serviceCpu > 0) break;
      Thread.sleep(250);
    }
    assertTrue(first != null, "no row while the study ran: " + err);
    assertTrue(stepSaid != null && stepSaid.contains("CAdES"), "the step under way of how many");
    assertTrue(
        serviceCpu > 0,
        "the signing service's CPU (its own JVM, not this one) read while it signed: " + err);
    assertTrue(later != null, "the table never grew past " + first.get("rows") + " rows: " + err);
    assertTrue(first.get("html").asText().contains("CAdES"), "the step's rows: " + first);
    assertTrue(
        rowsIn(later.get("html").asText()) > rowsIn(first.get("html").asText()),
        "the later reading's table has more rows:\n" + first + "\n" + later);

    // The end: the page, still up for the linger, is the report --html saved.
    assertTrue(page.awaitEnded(Duration.ofSeconds(150)), "the study ended: " + err);
    assertEquals(Files.readString(dir.resolve("restpki.html")), page.page());
    assertEquals(ExitCodes.OK, page.command.get(60, TimeUnit.SECONDS), err.toString());
  }

  /** The table's rows (its header not counted). */
  private static int rowsIn(String html) {
    return html.split("<tr><td", -1).length - 1;
  }
}
