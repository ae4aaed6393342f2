package io.pkibench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * A line chart as inline SVG: axes with round-number ticks (linear or log₁₀), one path per series
 * with optional markers, a legend. No script, no external resource: the report opens offline. Every
 * chart pkibench draws has a quantity on its y axis that cannot be negative (throughput, latency,
 * counts), so the axis starts at zero and a model's value below it is drawn on the axis rather than
 * stretching it.
 */
public final class SvgChart implements Chart {
  static final int WIDTH = 760;
  static final int HEIGHT = 380;
  private static final int LEFT = 78, RIGHT = 170, TOP = 36, BOTTOM = 52;
  private static final String[] PALETTE = {
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
    "#7f7f7f", "#bcbd22"
  };

  /**
   * {@code hollow}: points drawn as open circles (e.g. warm-up iterations); {@code dashed}: a model
   * curve, no markers.
   */
  public record Point(double x, double y, boolean hollow) {
    public Point(double x, double y) {
      this(x, y, false);
    }
  }

  public record Series(String name, List<Point> points, boolean dashed, boolean markers) {}

  private final String id;
  private final String title;
  private final String xLabel;
  private final String yLabel;
  private final boolean logX;
  private final boolean logY;
  private final DoubleFunction<String> xFormat;
  private final DoubleFunction<String> yFormat;
  private final List<Series> series = new ArrayList<>();
  private final List<Marker> markers = new ArrayList<>();

  /**
   * A vertical line across the plot at {@code x}, labelled at its top (a stage's start on a time
   * axis).
   */
  public record Marker(double x, String label) {}

  public SvgChart(
      String id,
      String title,
      String xLabel,
      String yLabel,
      boolean logX,
      boolean logY,
      DoubleFunction<String> xFormat,
      DoubleFunction<String> yFormat) {
    this.id = id;
    this.title = title;
    this.xLabel = xLabel;
    this.yLabel = yLabel;
    this.logX = logX;
    this.logY = logY;
    this.xFormat = xFormat;
    this.yFormat = yFormat;
  }

  private boolean wholeNumbersX;

  /**
   * The x axis counts things (workers, iterations): ticks on whole numbers only, never "1.2
   * workers".
   */
  public SvgChart wholeNumbersX() {
    wholeNumbersX = true;
    return this;
  }

  public SvgChart add(Series s) {
    if (!s.points().isEmpty()) series.add(s);
    return this;
  }

  @Override
  public String id() {
    return id;
  }

  public SvgChart mark(Marker m) {
    markers.add(m);
    return this;
  }

  public boolean isEmpty() {
    return series.isEmpty();
  }

  @Override
  public String render() {
    double[] xr = range(true), yr = range(false);
    if (!logY) yr[0] = 0; // throughput and latency read best from zero, and are never below it
    List<Double> xTicks = logX ? logTicks(xr) : linearTicks(xr, wholeNumbersX);
    List<Double> yTicks = logY ? logTicks(yr) : linearTicks(yr);
    xr =
        new double[] {
          Math.min(xr[0], xTicks.get(0)), Math.max(xr[1], xTicks.get(xTicks.size() - 1))
        };
    yr =
        new double[] {
          Math.min(yr[0], yTicks.get(0)), Math.max(yr[1], yTicks.get(yTicks.size() - 1))
        };
    StringBuilder svg = new StringBuilder();
    svg.append(
        String.format(
            Locale.ROOT,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" id=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
            Html.esc(id),
            WIDTH,
            HEIGHT,
            WIDTH,
            HEIGHT));
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n");
    svg.append(Chart.title(title, WIDTH));
    int plotW = WIDTH - LEFT - RIGHT, plotH = HEIGHT - TOP - BOTTOM;
    for (double t : yTicks) {
      double y = sy(t, yr, plotH);
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e5e5e5\"/>%n",
              LEFT,
              y,
              LEFT + plotW,
              y));
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#333\">%s</text>%n",
              LEFT - 6,
              y + 4,
              Html.esc(yFormat.apply(t))));
    }
    for (double t : xTicks) {
      double x = sx(t, xr, plotW);
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eeeeee\"/>%n",
              x,
              TOP,
              x,
              TOP + plotH));
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#333\">%s</text>%n",
              x,
              TOP + plotH + 18,
              Html.esc(xFormat.apply(t))));
    }
    svg.append(
        String.format(
            Locale.ROOT,
            "<rect class=\"plot-area\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>%n",
            LEFT,
            TOP,
            plotW,
            plotH));
    svg.append(
        String.format(
            Locale.ROOT,
            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
            LEFT + plotW / 2,
            HEIGHT - 10,
            Html.esc(xLabel)));
    svg.append(
        String.format(
            Locale.ROOT,
            "<text transform=\"translate(16 %d) rotate(-90)\" text-anchor=\"middle\">%s</text>%n",
            TOP + plotH / 2,
            Html.esc(yLabel + (logY ? " (log)" : ""))));
    for (Marker m : markers) {
      if (!onAxis(m.x(), logX) || m.x() < xr[0] || m.x() > xr[1]) continue;
      double x = sx(m.x(), xr, plotW);
      svg.append(
          String.format(
              Locale.ROOT,
              "<line class=\"marker\" data-marker=\"%s\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#888\" stroke-dasharray=\"3 3\"/>%n",
              Html.esc(m.label()),
              x,
              TOP,
              x,
              TOP + plotH));
      // A mark at the right edge is labelled to its left, clear of the legend.
      boolean right = x > LEFT + plotW - 60;
      svg.append(
          String.format(
              Locale.ROOT,
              "<text class=\"marker-label\" x=\"%.1f\" y=\"%d\" font-size=\"10\" fill=\"#555\"%s>%s</text>%n",
              right ? x - 3 : x + 3,
              TOP + 11,
              right ? " text-anchor=\"end\"" : "",
              Html.esc(m.label())));
    }
    for (int i = 0; i < series.size(); i++) {
      Series s = series.get(i);
      String colour = PALETTE[i % PALETTE.length];
      // What the axes left off (non-finite, or not positive on a log axis) is not drawn either: it
      // has no place
      List<Point> drawn =
          s.points().stream().filter(p -> onAxis(p.x(), logX) && onAxis(p.y(), logY)).toList();
      StringBuilder d = new StringBuilder(drawn.size() * 14);
      for (Point p : drawn) {
        d.append(d.length() == 0 ? "M" : " L");
        oneDecimal(d, sx(p.x(), xr, plotW));
        d.append(' ');
        oneDecimal(d, sy(p.y(), yr, plotH));
      }
      svg.append(
          String.format(
              Locale.ROOT,
              "<path class=\"series\" data-series=\"%s\" d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>%n",
              Html.esc(s.name()),
              d,
              colour,
              s.dashed() ? " stroke-dasharray=\"6 4\"" : ""));
      if (s.markers()) {
        for (Point p : drawn) {
          svg.append(
              String.format(
                  Locale.ROOT,
                  "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\" stroke=\"%s\"/>%n",
                  sx(p.x(), xr, plotW),
                  sy(p.y(), yr, plotH),
                  p.hollow() ? "#ffffff" : colour,
                  colour));
        }
      }
      int ly = TOP + 8 + i * 18;
      svg.append(
          String.format(
              Locale.ROOT,
              "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"2\"%s/>%n",
              LEFT + plotW + 12,
              ly,
              LEFT + plotW + 32,
              ly,
              colour,
              s.dashed() ? " stroke-dasharray=\"6 4\"" : ""));
      svg.append(
          String.format(
              Locale.ROOT,
              "<text class=\"legend\" x=\"%d\" y=\"%d\">%s</text>%n",
              LEFT + plotW + 38,
              ly + 4,
              Html.esc(s.name())));
    }
    return svg.append("</svg>\n").toString();
  }

  private double[] range(boolean x) {
    double lo = Double.POSITIVE_INFINITY, hi = Double.NEGATIVE_INFINITY;
    for (Series s : series) {
      for (Point p : s.points()) {
        double v = x ? p.x() : p.y();
        if (!onAxis(v, x ? logX : logY))
          continue; // a damaged result's NaN or infinity has no place on an axis
        if (!x && v < 0) continue; // below the zero the axis starts at
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    if (x && Double.isFinite(lo)) {
      // The marks (a stage's start) are part of what the x axis shows, even before the first point.
      for (Marker m : markers) {
        if (!onAxis(m.x(), logX)) continue;
        lo = Math.min(lo, m.x());
        hi = Math.max(hi, m.x());
      }
    }
    if (!Double.isFinite(lo)) return new double[] {x && logX || !x && logY ? 1 : 0, 1};
    if (lo == hi)
      return new double[] {
        (x ? logX : logY) ? lo / 10 : lo - Math.max(1, Math.abs(lo) / 10),
        hi + Math.max(1, Math.abs(hi) / 10)
      };
    return new double[] {lo, hi};
  }

  /**
   * {@code v} as {@code String.format("%.1f")} writes it, without the formatter's cost on each of a
   * path's points (the live page redraws every chart once a second, and its CPU is the measured
   * client's): the tenths rounded from {@code v * 10}, except where that lands within a hair of a
   * half, where the formatter's own rounding of the decimal digits decides.
   */
  static void oneDecimal(StringBuilder out, double v) {
    double tenths = v * 10;
    double fraction = Math.abs(tenths - Math.floor(tenths));
    if (!Double.isFinite(v) || Math.abs(tenths) > 1e15 || Math.abs(fraction - 0.5) < 1e-6) {
      out.append(String.format(Locale.ROOT, "%.1f", v));
      return;
    }
    long rounded = Math.round(Math.abs(tenths));
    if (Math.copySign(1.0, v) < 0) out.append('-'); // -0.0 and -0.04 too, as %.1f writes them
    out.append(rounded / 10).append('.').append(rounded % 10);
  }

  private double sx(double v, double[] r, int w) {
    return LEFT + w * frac(v, r, logX);
  }

  private double sy(double v, double[] r, int h) {
    return TOP + h * (1 - Math.max(0, frac(v, r, logY)));
  }

  private static double frac(double v, double[] r, boolean log) {
    if (log) {
      double lv = Math.log10(Math.max(v, r[0]));
      return (lv - Math.log10(r[0])) / (Math.log10(r[1]) - Math.log10(r[0]));
    }
    return (v - r[0]) / (r[1] - r[0]);
  }

  /** 1, 2 or 5 × 10ⁿ steps, about six of them, covering the range. */
  static List<Double> linearTicks(double[] r) {
    return linearTicks(r, false);
  }

  /** As above; with {@code whole}, a step of at least 1. */
  static List<Double> linearTicks(double[] r, boolean whole) {
    double span = r[1] - r[0];
    double raw = span / 6;
    double magnitude = Math.pow(10, Math.floor(Math.log10(raw)));
    double step = magnitude;
    for (double m : new double[] {1, 2, 5, 10}) {
      if (m * magnitude >= raw) {
        step = m * magnitude;
        break;
      }
    }
    if (whole && step < 1) step = 1;
    List<Double> ticks = new ArrayList<>();
    double first = Math.floor(r[0] / step) * step;
    // Counted, not accumulated: where the step is below the values' precision (a damaged result's
    // 1e300) adding it
    // would never reach the end.
    for (int k = 0; k <= MAX_TICKS; k++) {
      double t = first + k * step;
      if (t > r[1] + step * 0.999 && !ticks.isEmpty()) break;
      ticks.add(Math.abs(t) < step * 1e-9 ? 0 : t);
    }
    return ticks;
  }

  private static final int MAX_TICKS = 50;

  /** Powers of ten covering the range. */
  static List<Double> logTicks(double[] r) {
    List<Double> ticks = new ArrayList<>();
    for (double e = Math.floor(Math.log10(r[0])); e <= Math.ceil(Math.log10(r[1])); e++)
      ticks.add(Math.pow(10, e));
    if (ticks.size() < 2) ticks.add(ticks.get(0) * 10);
    return ticks;
  }

  private static boolean onAxis(double v, boolean log) {
    return Double.isFinite(v) && (!log || v > 0);
  }
}
