package io.pkibench.analysis;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code pkibench fit} says of a set of (concurrency, throughput) points: the USL's parameters
 * and peak with their intervals, predictions, a hold-out check of the points above {@code --upto},
 * and the concurrency for a target rate. Its JSON form is a contract ({@link #SCHEMA}): a
 * prediction is {@code {n, x, low, high, extrapolated}} (and {@code declined} instead of figures
 * far past the fitted range), a hold-out point {@code {n, predicted, measured, miss}}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FitReport(
    String schema,
    String source,
    int points,
    Double upto,
    double largestFittedConcurrency,
    double confidence,
    UslForecast.Estimate sigma,
    UslForecast.Estimate kappa,
    UslForecast.Estimate lambda,
    UslForecast.Estimate nMax,
    UslForecast.Estimate xMax,
    double rSquared,
    double residualStdErr,
    Superlinear superlinear,
    List<UslForecast.Prediction> predictions,
    List<HoldoutPoint> holdout,
    UslForecast.ConcurrencyFor targetRate,
    List<String> notes) {

  public static final String SCHEMA = "pkibench.fit/1";

  /**
   * A measured point above {@code --upto}, set beside what the fit below it predicted: {@code miss}
   * = predicted ÷ measured − 1 (0.12: 12% high); {@code inside} whether the measurement fell in the
   * prediction's interval (null without one); {@code farPastFit} when the point is more than {@link
   * UslForecast#FARTHEST_EXTRAPOLATION}× the fitted range, where {@code fit --predict} declines:
   * shown here only to see how far such a figure would have been off.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record HoldoutPoint(
      double n,
      double predicted,
      double measured,
      double miss,
      Boolean inside,
      boolean farPastFit) {}

  /**
   * The unconstrained least-squares fit where its σ < 0 (faster than linear somewhere), shown
   * beside the constrained one.
   */
  public record Superlinear(double sigma, double kappa, double lambda, String meaning) {}

  /**
   * Why no report could be made: the data follow no USL curve ({@code because}), and the
   * unconstrained fit where there is one.
   */
  public record NoFit(String because, Superlinear superlinear) {}

  /** A report, or why there is none. */
  public record Attempt(FitReport report, NoFit noFit) {}

  /**
   * Fits the points at or below {@code upto} (all when null), predicts at {@code predictAt}, and
   * answers {@code targetRate} (null: not asked). {@code notes} are carried into the report (e.g.
   * levels a result file's reading left out).
   */
  public static Attempt of(
      String source,
      List<LevelPoint> all,
      Double upto,
      List<Double> predictAt,
      Double targetRate,
      double confidence,
      List<String> notes) {
    List<LevelPoint> fitted = all.stream().filter(p -> upto == null || p.load() <= upto).toList();
    List<LevelPoint> held = all.stream().filter(p -> upto != null && p.load() > upto).toList();
    UslFit.Unconstrained free = UslFit.unconstrained(fitted);
    Superlinear superlinear =
        free != null && free.sigma() < 0
            ? new Superlinear(
                free.sigma(),
                free.kappa(),
                free.lambda(),
                "σ < 0: throughput rises faster than linearly somewhere (caches or connection pools warming, batching, a cold first level);"
                    + " the USL's parameters mean something only with σ ≥ 0")
            : null;
    UslForecast.Attempt attempt = UslForecast.of(fitted, confidence);
    if (attempt.forecast() == null) {
      String because =
          attempt.noFitBecause()
              + (upto != null
                  ? String.format(
                      Locale.ROOT,
                      " (%d points at or below --upto %s)",
                      fitted.size(),
                      TrimmedNumber.of(upto, 2))
                  : "");
      return new Attempt(null, new NoFit(because, superlinear));
    }
    UslForecast forecast = attempt.forecast();
    List<UslForecast.Prediction> predictions = predictAt.stream().map(forecast::predict).toList();
    List<HoldoutPoint> holdout = new ArrayList<>();
    for (LevelPoint p : held) {
      double predicted = forecast.fit().predict(p.load());
      UslForecast.Prediction within = forecast.predict(p.load());
      Boolean inside =
          within.low() == null
              ? null
              : within.low() <= p.throughput() && p.throughput() <= within.high();
      holdout.add(
          new HoldoutPoint(
              p.load(),
              predicted,
              p.throughput(),
              p.throughput() > 0 ? predicted / p.throughput() - 1 : Double.NaN,
              inside,
              within.declined() != null));
    }
    List<String> said = new ArrayList<>(notes);
    if (!forecast.hasIntervals())
      said.add(
          fitted.size() + " points fix the 3 parameters exactly: no interval; measure more levels");
    else if (forecast.fit().weak())
      said.add(
          "fitted on "
              + fitted.size()
              + " points: weak; "
              + UslFit.TRUSTWORTHY_LEVELS
              + " or more levels pin the curve");
    return new Attempt(
        new FitReport(
            SCHEMA,
            source,
            fitted.size(),
            upto,
            forecast.largestLoad(),
            confidence,
            forecast.sigma(),
            forecast.kappa(),
            forecast.lambda(),
            forecast.peakConcurrency(),
            forecast.peakThroughput(),
            forecast.fit().rSquared(),
            forecast.residualStdErr(),
            superlinear,
            predictions,
            holdout.isEmpty() ? null : holdout,
            targetRate == null ? null : forecast.concurrencyFor(targetRate),
            said.isEmpty() ? null : said),
        null);
  }
}
