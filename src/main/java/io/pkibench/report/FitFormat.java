package io.pkibench.report;

import io.pkibench.analysis.FitReport;
import io.pkibench.analysis.TrimmedNumber;
import io.pkibench.analysis.UslForecast;
import java.util.Locale;

/**
 * {@code pkibench fit}'s answer as a terminal shows it: the parameters with their intervals,
 * predictions, the hold-out check.
 */
public final class FitFormat {
  private FitFormat() {}

  public static String table(FitReport r) {
    StringBuilder out = new StringBuilder();
    String pct = TrimmedNumber.of(r.confidence() * 100, 1) + "%";
    out.append(
        String.format(
            Locale.ROOT,
            "USL fit of %s: %d points, concurrency up to %s%s; least squares on throughput, σ, κ ≥ 0%n",
            r.source(),
            r.points(),
            TrimmedNumber.of(r.largestFittedConcurrency(), 2),
            r.upto() == null ? "" : " (--upto " + TrimmedNumber.of(r.upto(), 2) + ")"));
    out.append(String.format(Locale.ROOT, "  %-22s %14s   %s interval%n", "", "estimate", pct));
    row(out, "σ (contention)", r.sigma(), 5);
    row(out, "κ (coherency)", r.kappa(), 8);
    row(out, "λ (one worker, ops/s)", r.lambda(), 1);
    if (r.nMax() != null) {
      row(out, "N_max (peak at)", r.nMax(), 1);
      row(out, "X_max (peak, ops/s)", r.xMax(), 1);
    } else {
      out.append(
          "  no peak: κ = 0, the curve levels off without turning down (no coherency cost seen in these points)\n");
    }
    out.append(
        String.format(
            Locale.ROOT,
            "  R² %.4f; residual standard error %s ops/s%n",
            r.rSquared(),
            TrimmedNumber.of(r.residualStdErr(), 1)));
    if (r.superlinear() != null) {
      FitReport.Superlinear s = r.superlinear();
      out.append(
          String.format(
              Locale.ROOT,
              "  unconstrained fit: σ=%s, κ=%s, λ=%s — superlinear: %s; the fit above holds σ ≥ 0%n",
              TrimmedNumber.of(s.sigma(), 5),
              TrimmedNumber.of(s.kappa(), 8),
              TrimmedNumber.of(s.lambda(), 1),
              s.meaning()));
    }
    if (!r.predictions().isEmpty()) {
      out.append(
          String.format(Locale.ROOT, "Predictions (%s interval for a measurement at N):%n", pct));
      for (UslForecast.Prediction p : r.predictions()) {
        if (p.declined() != null) {
          out.append("  N=")
              .append(TrimmedNumber.of(p.n(), 2))
              .append(": declined: ")
              .append(p.declined())
              .append('\n');
        } else {
          out.append(
              String.format(
                  Locale.ROOT,
                  "  N=%s: %s ops/s%s%s%n",
                  TrimmedNumber.of(p.n(), 2),
                  TrimmedNumber.of(p.x(), 1),
                  p.low() == null
                      ? ""
                      : " ("
                          + TrimmedNumber.of(p.low(), 1)
                          + " – "
                          + TrimmedNumber.of(p.high(), 1)
                          + ")",
                  p.extrapolated()
                      ? ", extrapolated past " + TrimmedNumber.of(r.largestFittedConcurrency(), 2)
                      : ""));
        }
      }
    }
    if (r.holdout() != null) {
      out.append(
          String.format(
              Locale.ROOT,
              "Held out (measured above --upto %s, predicted from the fit below it):%n",
              TrimmedNumber.of(r.upto(), 2)));
      out.append(
          String.format(
              Locale.ROOT, "  %8s %12s %12s %8s%n", "N", "predicted", "measured", "miss"));
      for (FitReport.HoldoutPoint h : r.holdout()) {
        out.append(
            String.format(
                Locale.ROOT,
                "  %8s %12s %12s %+7.1f%%%s%n",
                TrimmedNumber.of(h.n(), 2),
                TrimmedNumber.of(h.predicted(), 1),
                TrimmedNumber.of(h.measured(), 1),
                h.miss() * 100,
                h.farPastFit()
                    ? "  (past "
                        + TrimmedNumber.of(UslForecast.FARTHEST_EXTRAPOLATION, 1)
                        + "× the fitted range: fit --predict declines here)"
                    : Boolean.FALSE.equals(h.inside()) ? "  (outside its interval)" : ""));
      }
    }
    if (r.targetRate() != null) out.append("Target: ").append(r.targetRate().text()).append('\n');
    if (r.notes() != null)
      for (String note : r.notes()) out.append("Note: ").append(note).append('\n');
    return out.toString();
  }

  private static void row(StringBuilder out, String name, UslForecast.Estimate e, int decimals) {
    String interval =
        e.low() == null
            ? "none"
            : TrimmedNumber.of(e.low(), decimals) + " – " + TrimmedNumber.of(e.high(), decimals);
    out.append(
        String.format(
            Locale.ROOT,
            "  %-22s %14s   %s%n",
            name,
            TrimmedNumber.of(e.value(), decimals),
            interval));
  }
}
