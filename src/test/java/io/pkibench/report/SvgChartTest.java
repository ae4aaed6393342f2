package io.pkibench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Axes from damaged figures (found by bench/decoder-fuzz): bounded, and a chart still drawn. */
class SvgChartTest {

  @Test
  void linearTicks_roundStepsCoveringTheRange() {
    assertEquals(
        List.of(0.0, 20.0, 40.0, 60.0, 80.0, 100.0), SvgChart.linearTicks(new double[] {0, 100}));
  }

  @Test
  void linearTicks_stepBelowTheValuesPrecision_endsBounded() {
    List<Double> ticks = SvgChart.linearTicks(new double[] {1e300, 1e300 * (1 + 1e-15)});
    assertFalse(ticks.isEmpty());
    assertTrue(ticks.size() <= 51, "bounded: " + ticks.size());
  }

  @Test
  void render_nonFinitePoints_leftOffTheAxes() {
    SvgChart chart =
        new SvgChart(
            "c", "t", "x", "y", false, false, v -> Double.toString(v), v -> Double.toString(v));
    chart.add(
        new SvgChart.Series(
            "s",
            List.of(
                new SvgChart.Point(1, 5),
                new SvgChart.Point(2, Double.NaN),
                new SvgChart.Point(Double.POSITIVE_INFINITY, 7),
                new SvgChart.Point(3, 9)),
            false,
            true));
    String svg = chart.render();
    assertTrue(svg.startsWith("<svg") && svg.endsWith("</svg>\n"), svg);
    assertFalse(svg.contains("NaN") || svg.contains("Infinity"), svg);
    Matcher path =
        Pattern.compile("<path class=\"series\" data-series=\"s\" d=\"([^\"]*)\"").matcher(svg);
    assertTrue(path.find(), svg);
    assertEquals(
        2,
        path.group(1).split("[ML]").length - 1,
        "only the two finite points are drawn: " + path.group(1));
    assertEquals(2, svg.split("<circle class=\"point\"").length - 1, "and marked: " + svg);
  }

  /**
   * A model curve that dips below zero (a USL fit gone wrong) does not drag a throughput or latency
   * axis negative.
   */
  @Test
  void render_negativeValues_axisStartsAtZeroAndThePathStaysInsideThePlot() {
    SvgChart chart =
        new SvgChart(
            "c",
            "t",
            "x",
            "ops/s",
            false,
            false,
            v -> Long.toString(Math.round(v)),
            v -> Long.toString(Math.round(v)));
    chart.add(
        new SvgChart.Series(
            "measured",
            List.of(
                new SvgChart.Point(2, 30), new SvgChart.Point(8, 420), new SvgChart.Point(32, 300)),
            false,
            true));
    chart.add(
        new SvgChart.Series(
            "model",
            List.of(
                new SvgChart.Point(2, 30),
                new SvgChart.Point(16, -1500),
                new SvgChart.Point(32, 300)),
            true,
            false));
    String svg = chart.render();
    Matcher label = Pattern.compile("text-anchor=\"end\" fill=\"#333\">([^<]*)<").matcher(svg);
    List<String> ticks = new ArrayList<>();
    while (label.find()) ticks.add(label.group(1));
    assertEquals("0", ticks.get(0), "the y axis starts at zero: " + ticks);
    assertTrue(ticks.stream().noneMatch(t -> t.startsWith("-")), ticks.toString());
    Matcher path = Pattern.compile("data-series=\"model\" d=\"([^\"]*)\"").matcher(svg);
    assertTrue(path.find(), svg);
    int bottom = SvgChart.HEIGHT - 52;
    for (String segment : path.group(1).split("\\s*[ML]\\s*")) {
      if (segment.isBlank()) continue;
      double y = Double.parseDouble(segment.trim().split(" ")[1]);
      assertTrue(y <= bottom + 0.05, "inside the plot: " + path.group(1));
    }
  }

  /**
   * The path's coordinates written without String.format are written as it writes them: over
   * 400,000 values drawn across a chart's range and beyond, the halves and near-halves that binary
   * fractions make of decimal ties, negatives that round to zero, and what is not a number.
   */
  @Test
  void oneDecimal_writesWhatPercentPoint1fWrites() {
    java.util.SplittableRandom random = new java.util.SplittableRandom(53);
    java.util.List<Double> values =
        new java.util.ArrayList<>(
            java.util.List.of(
                0.0,
                -0.0,
                0.05,
                0.15,
                0.25,
                2.25,
                2.35,
                -0.04,
                -0.05,
                -2.25,
                1e15,
                1e16,
                1e300,
                Double.NaN,
                Double.POSITIVE_INFINITY,
                Double.NEGATIVE_INFINITY,
                699.95,
                123.45));
    for (int i = 0; i < 200_000; i++) {
      values.add(random.nextDouble(-50, 1000));
      values.add(Math.round(random.nextDouble(0, 10_000)) / 100.0); // two decimals: ties at .x5
    }
    for (double v : values) {
      StringBuilder fast = new StringBuilder();
      SvgChart.oneDecimal(fast, v);
      assertEquals(String.format(java.util.Locale.ROOT, "%.1f", v), fast.toString(), "for " + v);
    }
  }
}
