package io.pkibench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.analysis.Analysis;
import io.pkibench.analysis.UslFit;
import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HtmlReportTest {
  static final int[] LEVELS = {1, 2, 4, 8, 16, 24, 32};

  /**
   * Seven levels on a USL curve (σ 0.05, κ 0.002, λ 1000), latency growing with load, one hostile
   * failure text.
   */
  static RunResult fixture() {
    double[][] rates = new double[LEVELS.length][];
    long[] latency = new long[LEVELS.length];
    for (int i = 0; i < LEVELS.length; i++) {
      double x = UslFit.predict(LEVELS[i], 0.05, 0.002, 1000);
      rates[i] = new double[] {x * 0.99, x, x * 1.01};
      latency[i] = (long) (LEVELS[i] / x * 1e9);
    }
    RunResult r = ResultFixtures.closedRun("sign", LEVELS, rates, latency);
    return r.withWorkload(
        0, r.workloads().get(0).withFailure("<script>alert('x')</script> & more"));
  }

  @Test
  void render_levelStillWarmingUp_saysSoInTheVerdict() {
    RunResult r =
        ResultFixtures.closedRun(
            "sign", new int[] {4}, new double[][] {{700, 900, 1000}}, new long[] {1_000_000});
    String html = HtmlReport.render(r, Analysis.of(r, Analysis.Options.DEFAULT));
    String verdict = html.substring(html.indexOf("id=\"verdict\""), html.indexOf("id=\"charts\""));
    assertTrue(
        verdict.contains("class=\"warn\"")
            && verdict.contains("still warming up: CPU per operation fell 30%"),
        verdict);
    assertFalse(
        HtmlReport.render(fixture(), Analysis.of(fixture(), Analysis.Options.DEFAULT))
            .contains("class=\"warn\""),
        "a steady run carries no warning");
  }

  /**
   * A sweep the USL cannot describe (a cold first level, then flat): the report says "no fit" and
   * draws no curve.
   */
  @Test
  void render_sweepWithoutAFit_noCurveAndSaysWhy() {
    RunResult r =
        ResultFixtures.closedRun(
            "auth",
            new int[] {2, 8, 32},
            new double[][] {{29, 30, 31}, {415, 420, 425}, {298, 300, 302}},
            new long[] {60_000_000, 19_000_000, 107_000_000});
    String html = HtmlReport.render(r, Analysis.of(r, Analysis.Options.DEFAULT));
    assertTrue(html.contains("id=\"throughput-1\""), "the measured throughput is still charted");
    assertFalse(html.contains("data-series=\"USL fit\""), "no curve without a fit");
    assertTrue(html.contains("No USL fit: "), "and the report says so");
    assertFalse(html.contains("peak -") || html.contains("peak −"), "no negative peak");
  }

  @Test
  void render_hasEveryChartAndEscapesText() {
    RunResult r = fixture();
    Analysis a = Analysis.of(r, new Analysis.Options(20_000.0, 0.7, null));
    String html = HtmlReport.render(r, a);
    for (String id :
        List.of("throughput-1", "latency-1", "latency-log-1", "spectrum-1", "iterations-1")) {
      assertTrue(html.contains("id=\"" + id + "\""), "chart " + id);
    }
    assertTrue(html.contains("data-series=\"USL fit\""), "the USL curve is drawn");
    assertEquals(
        LEVELS.length,
        count(html, "<path class=\"series\" data-series=\"c=") / 2,
        "one spectrum and one iteration series per level");
    assertTrue(html.indexOf("id=\"verdict\"") < html.indexOf("id=\"charts\""), "verdict first");
    assertTrue(
        html.contains("throughput grows linearly up to concurrency"), "the verdict sentence");
    assertTrue(html.contains("to sustain 20000 ops/s at 70% CPU you need"), "the sizing");
    assertFalse(html.contains("<script"), "no script at all, and result text is escaped");
    assertTrue(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; more"));
    assertNoNetworkResource(html);
  }

  /** No URL but the SVG namespace's (a name, never fetched): the report must open offline. */
  @Test
  void render_latencyOnALinearAxis_withoutMax_whichFlattensTheRest() {
    RunResult r = fixture();
    String html = HtmlReport.render(r, Analysis.of(r, Analysis.Options.DEFAULT));
    assertFalse(chart(html, "latency-1").contains("data-series=\"max\""), "linear: no max");
    assertTrue(chart(html, "latency-1").contains("data-series=\"p99.9\""), "linear: p99.9");
    assertTrue(chart(html, "latency-log-1").contains("data-series=\"max\""), "log: max");
  }

  @Test
  void render_concurrencyAxis_hasWholeNumberTicksOnly() {
    RunResult r =
        ResultFixtures.closedRun(
            "sign",
            new int[] {1, 2},
            new double[][] {{100, 101, 99}, {190, 191, 189}},
            new long[] {1_000_000, 1_100_000});
    String html = HtmlReport.render(r, Analysis.of(r, Analysis.Options.DEFAULT));
    for (String id : List.of("throughput-1", "latency-1")) {
      String svg = chart(html, id);
      assertFalse(
          svg.contains(">1.2<") || svg.contains(">1.5<"), id + ": a fractional worker tick");
      assertTrue(svg.contains(">2<"), id + ": the tick at 2 workers");
    }
  }

  @Test
  void render_planAsATable_timesToTheSecond_cpuOfItsCores() throws Exception {
    RunResult study = RunResultJson.read(Path.of("src/test/resources/runs/pix-smoke-1.json"));
    String studyHtml = HtmlReport.render(study, Analysis.of(study, Analysis.Options.DEFAULT));
    String environment = studyHtml.substring(studyHtml.indexOf("id=\"environment\""));
    assertFalse(environment.contains("<pre>"), "the plan is a table, not a JSON dump");
    assertTrue(environment.contains("<th class=\"l\">plan: study</th>"), environment);
    RunResult r = fixture();
    String html = HtmlReport.render(r, Analysis.of(r, Analysis.Options.DEFAULT));
    assertTrue(
        html.contains("CPU utilisation (of " + r.environment().cores() + " cores)"),
        "says of what");
    assertEquals(
        "2026-11-22T03:00:01Z",
        HtmlReport.toTheSecond(Instant.parse("2026-11-22T03:00:01.723860101Z")));
  }

  /** The SVG of the chart with this id. */
  private static String chart(String html, String id) {
    int start = html.indexOf("id=\"" + id + "\"");
    assertTrue(start >= 0, "chart " + id);
    return html.substring(start, html.indexOf("</svg>", start));
  }

  static void assertNoNetworkResource(String html) {
    String withoutNamespaces =
        html.replace("http://www.w3.org/2000/svg", "").replace("http://www.w3.org/1999/xlink", "");
    Matcher url =
        Pattern.compile("(?i)(https?:)?//[a-z0-9.-]+\\.[a-z]{2,}[/\"' ]")
            .matcher(withoutNamespaces);
    assertFalse(
        url.find(),
        () ->
            "no network resource: "
                + withoutNamespaces.substring(
                    Math.max(0, url.start() - 40),
                    Math.min(withoutNamespaces.length(), url.end() + 40)));
  }

  @Test
  void assertNoNetworkResource_aPlantedStylesheetOrImage_fails() {
    String page = "<html><svg xmlns=\"http://www.w3.org/2000/svg\"></svg></html>";
    assertNoNetworkResource(page);
    for (String planted :
        List.of(
            "<link rel=\"stylesheet\" href=\"https://cdn.example.com/a.css\">",
            "<img src=\"http://example.org/x.png\">",
            "<img src=\"//example.org/x.png\">")) {
      assertThrows(
          org.opentest4j.AssertionFailedError.class,
          () -> assertNoNetworkResource(page.replace("</html>", planted + "</html>")),
          planted);
    }
  }

  @Test
  void render_inHeadlessChromium_chartsArePainted(@TempDir Path dir) throws Exception {
    RunResult r = fixture();
    Path html =
        Files.writeString(
            dir.resolve("report.html"),
            HtmlReport.render(r, Analysis.of(r, Analysis.Options.DEFAULT)));
    Path shot = dir.resolve("shot.png");
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
                "--user-data-dir=" + dir.resolve("profile"),
                "--hide-scrollbars",
                "--window-size=1000,2600",
                "--screenshot=" + shot,
                html.toUri().toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("chromium.log").toFile())
            .start();
    assertTrue(p.waitFor(90, TimeUnit.SECONDS), "chromium did not finish");
    assertTrue(
        Files.exists(shot), "no screenshot: " + Files.readString(dir.resolve("chromium.log")));
    BufferedImage image = ImageIO.read(shot.toFile());
    assertEquals(1000, image.getWidth());
    long nonWhite = 0;
    Set<Integer> colours = new HashSet<>();
    boolean seriesBlue = false, seriesRed = false;
    for (int y = 0; y < image.getHeight(); y += 2) {
      for (int x = 0; x < image.getWidth(); x += 2) {
        int rgb = image.getRGB(x, y) & 0xffffff;
        if (rgb != 0xffffff) nonWhite++;
        colours.add(rgb);
        seriesBlue |= near(rgb, 0x1f77b4);
        seriesRed |= near(rgb, 0xd62728);
      }
    }
    assertTrue(nonWhite > 20_000, "the page is not blank: " + nonWhite);
    assertTrue(colours.size() > 50, "text, axes and series in several colours: " + colours.size());
    assertTrue(seriesBlue && seriesRed, "series strokes of the palette are on screen");
  }

  @Test
  void pngExport_writesEveryChart(@TempDir Path dir) throws Exception {
    RunResult r = fixture();
    Analysis a = Analysis.of(r, Analysis.Options.DEFAULT);
    List<Path> files = PngExport.write(HtmlReport.charts(r, a), dir);
    assertEquals(5, files.size());
    for (Path f : files) {
      BufferedImage image = ImageIO.read(f.toFile());
      assertEquals(SvgChart.WIDTH, image.getWidth(), f.toString());
      Set<Integer> colours = new HashSet<>();
      for (int y = 0; y < image.getHeight(); y += 3)
        for (int x = 0; x < image.getWidth(); x += 3) colours.add(image.getRGB(x, y));
      assertTrue(colours.size() > 5, f + " has content");
    }
  }

  @Test
  void jmhJson_hasJmhResultShape() throws Exception {
    JsonNode array = RunResultJson.mapper().readTree(JmhJson.of(fixture()));
    assertEquals(LEVELS.length, array.size());
    JsonNode first = array.get(0);
    assertEquals("pkibench.sign", first.get("benchmark").asText());
    assertEquals("thrpt", first.get("mode").asText());
    assertEquals(1, first.get("threads").asInt());
    JsonNode primary = first.get("primaryMetric");
    assertEquals("ops/s", primary.get("scoreUnit").asText());
    assertEquals(2, primary.get("scoreConfidence").size());
    assertTrue(primary.get("scorePercentiles").has("99.9"));
    assertEquals(
        3, primary.get("rawData").get(0).size(), "three measured iterations in the one fork");
    assertEquals(
        primary.get("score").asDouble(),
        (primary.get("rawData").get(0).get(0).asDouble()
                + primary.get("rawData").get(0).get(1).asDouble()
                + primary.get("rawData").get(0).get(2).asDouble())
            / 3,
        1e-6);
    assertEquals("rsa2048", first.get("params").get("alg").asText());
  }

  static String chromium() {
    for (String c : List.of("/usr/bin/chromium", "/usr/bin/chromium-browser"))
      if (Files.isExecutable(Path.of(c))) return c;
    throw new IllegalStateException(
        "headless Chromium is needed for this test: apt-get install chromium");
  }

  private static boolean near(int rgb, int target) {
    int dr = Math.abs(((rgb >> 16) & 0xff) - ((target >> 16) & 0xff));
    int dg = Math.abs(((rgb >> 8) & 0xff) - ((target >> 8) & 0xff));
    int db = Math.abs((rgb & 0xff) - (target & 0xff));
    return dr + dg + db < 30;
  }

  private static int count(String s, String needle) {
    Matcher m = Pattern.compile(Pattern.quote(needle)).matcher(s);
    int n = 0;
    while (m.find()) n++;
    return n;
  }
}
