package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.analysis.Analysis;
import io.pkibench.report.HtmlReport;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import java.awt.image.BufferedImage;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code run --dashboard} seen by Debian's headless Chromium: the page draws its charts while the
 * run goes on, they change between two screenshots taken seconds apart, and once the run ends the
 * page is the report --html saved, made from the result file's figures.
 */
@Timeout(240)
class DashboardChromiumTest {
  @TempDir Path dir;

  @Test
  void dashboard_duringAndAfterARun_drawsLiveChartsThenTheSavedReport() throws Exception {
    StringWriter out = new StringWriter(), err = new StringWriter();
    LiveDashboard page =
        LiveDashboard.start(
            dir,
            out,
            err,
            "run",
            "digest",
            "--concurrency",
            "1,2,4",
            "--warmup",
            "1x1s",
            "--measure",
            "2x2s",
            "--quiet",
            "--dashboard",
            "0",
            "--dashboard-linger",
            "15s",
            "--html",
            "run.html",
            "--out",
            "run.json");
    String url = page.url;
    JsonNode live = awaitFigures(page);
    assertTrue(live.get("opsPerSecond").asDouble() > 0, live.toString());
    assertTrue(live.get("html").asText().contains("<svg"), "charts drawn on the server");

    BufferedImage first = screenshot(url, dir.resolve("first.png"));
    Thread.sleep(3_000);
    BufferedImage second = screenshot(url, dir.resolve("second.png"));
    assertTrue(!page.live().get("ended").asBoolean(), "both screenshots while it ran");
    for (BufferedImage shot : new BufferedImage[] {first, second}) {
      assertTrue(nonWhite(shot) > 20_000, "charts on the page: " + nonWhite(shot));
      assertTrue(has(shot, 0x1f77b4), "a series stroke of the report's palette on screen");
    }
    long differing = 0;
    for (int y = 0; y < first.getHeight(); y += 2)
      for (int x = 0; x < first.getWidth(); x += 2)
        if (first.getRGB(x, y) != second.getRGB(x, y)) differing++;
    assertTrue(differing > 2_000, "the charts moved between the screenshots: " + differing);

    // The end: the page, still up for the linger, is the report --html saved, from the result file.
    assertTrue(page.awaitEnded(Duration.ofSeconds(120)), "the run ended: " + err);
    String served = page.page();
    assertEquals(Files.readString(dir.resolve("run.html")), served);
    RunResult result = RunResultJson.read(dir.resolve("run.json"));
    assertEquals(
        HtmlReport.render(result, Analysis.of(result, Analysis.Options.DEFAULT)),
        served,
        "the final page is the report of the result file's figures");
    BufferedImage last = screenshot(url, dir.resolve("final.png"));
    assertTrue(nonWhite(last) > 20_000, "the final page is drawn: " + nonWhite(last));
    assertEquals(ExitCodes.OK, page.command.get(120, TimeUnit.SECONDS), err.toString());
    assertTrue(err.toString().contains("the final page stays at " + url), err.toString());
    // what the page cost the measured process is said, and it is small: its code was compiled
    // before the run, so each second's reading is a fraction of a millisecond
    var cost =
        java.util.regex.Pattern.compile(
                "its readings took ([0-9.]+) ms of CPU \\(([0-9.]+) ms a second\\)")
            .matcher(err.toString());
    assertTrue(cost.find(), err.toString());
    assertTrue(Double.parseDouble(cost.group(1)) > 0, "readings were made and measured: " + err);
    assertTrue(Double.parseDouble(cost.group(2)) < 5, "a reading a second stays cheap: " + err);
  }

  /** The live JSON once a second's figures are in it. */
  private static JsonNode awaitFigures(LiveDashboard page) throws Exception {
    long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    JsonNode j = page.live();
    while (!j.has("opsPerSecond") || j.get("opsPerSecond").asDouble() <= 0) {
      if (System.nanoTime() > until) throw new AssertionError("no figures: " + j);
      Thread.sleep(250);
      j = page.live();
    }
    return j;
  }

  private BufferedImage screenshot(String url, Path shot) throws Exception {
    Path log = dir.resolve(shot.getFileName() + ".log");
    Process p =
        new ProcessBuilder(
                chromium(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--user-data-dir=" + dir.resolve("profile-" + shot.getFileName()),
                "--hide-scrollbars",
                "--window-size=1000,1800",
                "--screenshot=" + shot,
                url)
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      assertTrue(p.waitFor(90, TimeUnit.SECONDS), "chromium did not finish");
    } finally {
      p.destroyForcibly();
    }
    assertTrue(Files.exists(shot), "no screenshot: " + Files.readString(log));
    return ImageIO.read(shot.toFile());
  }

  static String chromium() {
    for (String c : new String[] {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
      if (Files.isExecutable(Path.of(c))) return c;
    throw new IllegalStateException(
        "headless Chromium is needed for this test: apt-get install chromium");
  }

  private static long nonWhite(BufferedImage image) {
    long n = 0;
    for (int y = 0; y < image.getHeight(); y += 2)
      for (int x = 0; x < image.getWidth(); x += 2)
        if ((image.getRGB(x, y) & 0xffffff) != 0xffffff) n++;
    return n;
  }

  private static boolean has(BufferedImage image, int target) {
    for (int y = 0; y < image.getHeight(); y += 2) {
      for (int x = 0; x < image.getWidth(); x += 2) {
        int rgb = image.getRGB(x, y) & 0xffffff;
        int d =
            Math.abs(((rgb >> 16) & 0xff) - ((target >> 16) & 0xff))
                + Math.abs(((rgb >> 8) & 0xff) - ((target >> 8) & 0xff))
                + Math.abs((rgb & 0xff) - (target & 0xff));
        if (d < 30) return true;
      }
    }
    return false;
  }
}
