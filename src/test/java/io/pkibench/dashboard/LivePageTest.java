package io.pkibench.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.metrics.LatencyBuckets;
import io.pkibench.metrics.MetricsSnapshot;
import io.pkibench.metrics.SeriesFigures;
import io.pkibench.metrics.SeriesKey;
import io.pkibench.report.SvgChart;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The live page's charts after a long run: an hour of seconds is drawn with at most {@link
 * LivePage#MAX_DRAWN} points a series (each poll costs what a minute's does), and the averaged
 * points keep the run's figures.
 */
class LivePageTest {
  /** {@code seconds} readings of a run doing {@code perSecond} operations a second. */
  static LiveHistory.View run(int seconds, long perSecond) {
    LiveHistory history = new LiveHistory("long", Double.NaN);
    SeriesKey key = new SeriesKey("sign", "r" + perSecond, "measure", null, null);
    for (int s = 0; s <= seconds; s++) {
      long done = s * perSecond;
      long[] buckets = new long[LatencyBuckets.count()];
      for (int i = 0; i < buckets.length; i++) buckets[i] = i < 3 ? done / 2 : done;
      history.add(
          new MetricsSnapshot(
              "long",
              1000L * s,
              List.of(
                  new SeriesFigures(
                      key, done, 0, buckets, done * 0.001, 0.002, perSecond, perSecond, 8, true)),
              s * 0.05,
              Double.NaN));
    }
    return history.view();
  }

  @Test
  void anHourOfSeconds_eachSeriesDrawnWithAtMost300Points_atTheRunsRate() {
    LiveHistory.View hour = run(LiveHistory.MAX_POINTS + 10, 400);
    assertEquals(LiveHistory.MAX_POINTS, hour.points().size(), "the history keeps an hour");
    String body = LivePage.body(hour);
    Matcher paths =
        Pattern.compile("<path class=\"series\" data-series=\"([^\"]*)\" d=\"([^\"]*)\"")
            .matcher(body);
    int series = 0;
    while (paths.find()) {
      series++;
      int drawn = paths.group(2).split("[ML]").length - 1;
      assertTrue(drawn <= LivePage.MAX_DRAWN, paths.group(1) + " drawn with " + drawn + " points");
    }
    assertTrue(series >= 5, "the per-second series are drawn: " + series);
  }

  @Test
  void thinned_groupsOfConsecutiveSecondsAveraged() {
    List<SvgChart.Point> ramp = new ArrayList<>();
    for (int s = 1; s <= 3600; s++) ramp.add(new SvgChart.Point(s, 2.0 * s));
    List<SvgChart.Point> fewer = LivePage.thinned(ramp);
    assertEquals(300, fewer.size());
    assertEquals(new SvgChart.Point(6.5, 13), fewer.get(0), "seconds 1 to 12");
    assertEquals(new SvgChart.Point(3594.5, 7189), fewer.get(299), "seconds 3589 to 3600");
  }

  @Test
  void aShortRun_everySecondDrawnAsItWas() {
    String body = LivePage.body(run(60, 400));
    Matcher path = Pattern.compile("data-series=\"succeeded/s\" d=\"([^\"]*)\"").matcher(body);
    assertTrue(path.find(), body);
    assertEquals(60, path.group(1).split("[ML]").length - 1, path.group(1));
  }

  @Test
  void twoWorkloadsLevels_oneCurveEach() {
    LiveHistory history = new LiveHistory("two", Double.NaN);
    long[] none = new long[LatencyBuckets.count()];
    for (int s = 0; s <= 6; s++) {
      List<SeriesFigures> series = new ArrayList<>();
      for (String w : List.of("sign", "verify")) {
        for (int c : new int[] {1, 2}) {
          // level c1 runs in seconds 0-3, c2 in 3-6; each counts 100 c a second while it runs
          long done = 100L * c * Math.max(0, Math.min(3, c == 1 ? s : s - 3));
          series.add(
              new SeriesFigures(
                  new SeriesKey(w, "c" + c, "measure", null, null),
                  done,
                  0,
                  none,
                  0,
                  0,
                  Double.NaN,
                  0,
                  c,
                  true));
        }
      }
      history.add(new MetricsSnapshot("two", 1000L * s, series, 0, Double.NaN));
    }
    String curve = LivePage.charts(history.view()).get(3).render();
    assertTrue(curve.contains("data-series=\"sign\""), curve);
    assertTrue(curve.contains("data-series=\"verify\""), curve);
  }

  /**
   * A study's page, two steps of five recorded (a saved pix study cut back to them, as it stood
   * then): the status line says which step runs of how many, and the study's own table shows a row
   * for each recorded step, with the report's cells, and none for the steps still to come.
   */
  @Test
  void aStudyMidRun_statusSaysStepKOfN_andItsTableHasTheRowsSoFar() throws Exception {
    RunResult whole =
        RunResultJson.read(java.nio.file.Path.of("src/test/resources/runs/pix-smoke-1.json"));
    var s = whole.study();
    RunResult twoSteps =
        whole.withStudy(
            new io.pkibench.results.StudyRecord(
                s.schema(),
                s.name(),
                s.title(),
                s.unit(),
                s.published(),
                s.services(),
                s.steps().subList(0, 2),
                List.of(),
                s.notes(),
                s.grid(),
                s.sizingChecks()));
    StudyView view =
        new StudyView() {
          @Override
          public String step() {
            return "step 3 of 5: random (to subtract)";
          }

          @Override
          public RunResult soFar() {
            return twoSteps;
          }
        };
    LiveHistory.View seconds = run(5, 400);
    String body = LivePage.body(seconds, LivePage.Study.of(view));
    assertTrue(
        LivePage.status(seconds, LivePage.Study.of(view))
            .startsWith("step 3 of 5: random (to subtract); running sign r400 measure"),
        LivePage.status(seconds, LivePage.Study.of(view)));
    Matcher table =
        Pattern.compile("<table id=\"study-table\">(.*?)</table>", Pattern.DOTALL).matcher(body);
    assertTrue(table.find(), "the study's table: " + body);
    String rows = table.group(1);
    assertTrue(
        rows.contains(">mTLS 1.2 handshake</td>") && rows.contains(">SPI signature</td>"), rows);
    assertEquals(2, rows.split("<tr><td", -1).length - 1, "a row per recorded step: " + rows);
    assertTrue(!rows.contains("random (to subtract)"), "no row for a step to come: " + rows);
    assertTrue(!LivePage.body(seconds).contains("study-table"), "a run's page has no study table");
  }
}
