package io.pkibench.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

public class UslForecastTest {
  /**
   * The "Cisco" benchmark of Baron Schwartz's <i>Practical Scalability Analysis with the Universal
   * Scalability Law</i> (VividCortex, 2015), throughput over concurrency 1–32, and the book's
   * fitted model: σ = 0.02671591, κ = 7.690945E-4, λ = 995.6486 (peak about 12,341 at N = 35). The
   * same table and values are the fixture of usl4j's ModelTest (Apache 2.0), an independent
   * implementation's reading of the book.
   */
  public static final double[][] CISCO = {
    {1, 955.16},
    {2, 1878.91},
    {3, 2688.01},
    {4, 3548.68},
    {5, 4315.54},
    {6, 5130.43},
    {7, 5931.37},
    {8, 6531.08},
    {9, 7219.8},
    {10, 7867.61},
    {11, 8278.71},
    {12, 8646.7},
    {13, 9047.84},
    {14, 9426.55},
    {15, 9645.37},
    {16, 9897.24},
    {17, 10097.6},
    {18, 10240.5},
    {19, 10532.39},
    {20, 10798.52},
    {21, 11151.43},
    {22, 11518.63},
    {23, 11806},
    {24, 12089.37},
    {25, 12075.41},
    {26, 12177.29},
    {27, 12211.41},
    {28, 12158.93},
    {29, 12155.27},
    {30, 12118.04},
    {31, 12140.4},
    {32, 12074.39}
  };

  static final double BOOK_SIGMA = 0.02671591, BOOK_KAPPA = 7.690945E-4, BOOK_LAMBDA = 995.6486;

  static List<LevelPoint> points(double[][] table, double upTo) {
    List<LevelPoint> points = new ArrayList<>();
    for (double[] row : table)
      if (row[0] <= upTo) points.add(new LevelPoint(row[0], row[1], null, 0, null, 0));
    return points;
  }

  @Test
  void of_schwartzCiscoBenchmark_reproducesTheBooksFitWithinHalfAPercent() {
    UslForecast forecast = UslForecast.of(points(CISCO, 32), 0.95).forecast();
    assertEquals(BOOK_SIGMA, forecast.sigma().value(), BOOK_SIGMA * 0.005);
    assertEquals(BOOK_KAPPA, forecast.kappa().value(), BOOK_KAPPA * 0.005);
    assertEquals(BOOK_LAMBDA, forecast.lambda().value(), BOOK_LAMBDA * 0.005);
    assertEquals(12341, forecast.peakThroughput().value(), 12341 * 0.005);
    assertEquals(
        35,
        Math.floor(forecast.peakConcurrency().value()),
        "the book's N_max is the whole number of workers below the peak");
    // 29 degrees of freedom: every interval exists, holds its estimate and is narrow on 32
    // well-behaved points
    for (UslForecast.Estimate e :
        List.of(
            forecast.sigma(),
            forecast.kappa(),
            forecast.lambda(),
            forecast.peakConcurrency(),
            forecast.peakThroughput())) {
      assertTrue(e.low() < e.value() && e.value() < e.high(), e.toString());
    }
    assertTrue(
        forecast.kappa().low() > 0,
        "κ is told apart from 0 by a curve that turns: " + forecast.kappa());
  }

  /**
   * The book's own warning, on its own data: fitted on the first 10 points, the curve over-predicts
   * the 32nd by about a quarter.
   */
  @Test
  void predict_fitOnFirstTenPoints_missesTheRestAndDeclinesFarPastTheCut() {
    UslForecast forecast = UslForecast.of(points(CISCO, 10), 0.95).forecast();
    assertEquals(10, forecast.largestLoad());
    UslForecast.Prediction at20 = forecast.predict(20);
    assertTrue(at20.extrapolated());
    assertNull(at20.declined());
    assertTrue(at20.low() < at20.x() && at20.x() < at20.high(), at20.toString());
    UslForecast.Prediction at32 = forecast.predict(32);
    assertNull(at32.x(), "more than twice the fitted range: no figure");
    assertTrue(at32.declined().contains("more than 2× the largest fitted (10)"), at32.declined());
    double missAt32 = forecast.fit().predict(32) / 12074.39 - 1;
    assertTrue(
        missAt32 > 0.15 && missAt32 < 0.40, "the book's 'about a quarter' high: " + missAt32);
  }

  @Test
  void predict_insideTheFittedRange_measuredPointsFallInTheirIntervals() {
    UslForecast forecast = UslForecast.of(points(CISCO, 32), 0.95).forecast();
    int inside = 0;
    for (double[] row : CISCO) {
      UslForecast.Prediction p = forecast.predict(row[0]);
      assertFalse(p.extrapolated());
      if (p.low() <= row[1] && row[1] <= p.high()) inside++;
    }
    assertTrue(
        inside >= 28,
        "a 95% prediction interval holds most of the points it was fitted on: "
            + inside
            + " of 32");
  }

  @Test
  void concurrencyFor_aRateBelowThePeak_givesTheRisingSideWithARange() {
    UslForecast forecast = UslForecast.of(points(CISCO, 32), 0.95).forecast();
    // usl4j's throughputAtConcurrency(20) on the book's model: 11,063.63; the way back gives 20
    UslForecast.ConcurrencyFor need = forecast.concurrencyFor(11063.63);
    assertEquals(20, need.concurrency(), 0.05);
    assertTrue(
        need.low() < need.concurrency() && need.concurrency() < need.high(), need.toString());
    assertTrue(need.text().startsWith("11063.6 ops/s needs concurrency 20 (95%: "), need.text());
  }

  @Test
  void concurrencyFor_aRateAboveThePeak_saysNoneReachesItAndHowManySystems() {
    UslForecast forecast = UslForecast.of(points(CISCO, 32), 0.95).forecast();
    UslForecast.ConcurrencyFor need = forecast.concurrencyFor(30_000);
    assertNull(need.concurrency());
    assertTrue(
        need.text().contains("no concurrency reaches 30000 ops/s")
            && need.text().contains("at least 3 of them"),
        need.text());
  }

  @Test
  void of_threePoints_fitsWithoutIntervals() {
    UslForecast forecast = UslForecast.of(points(CISCO, 3), 0.95).forecast();
    assertNotNull(forecast);
    assertFalse(forecast.hasIntervals());
    assertNull(forecast.sigma().low());
    assertNull(forecast.predict(4).low());
  }
}
