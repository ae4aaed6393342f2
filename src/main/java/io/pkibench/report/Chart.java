package io.pkibench.report;

import java.util.Locale;

/** A chart of the report: inline SVG with a stable id (tests and PNG file names use it). */
public interface Chart {
  String id();

  String render();

  /**
   * A chart title that fits the chart: the font shrinks for a long title instead of running past
   * the edge (a workload label with its parameters can be long).
   */
  static String title(String text, int width) {
    double fits =
        (width - 24)
            / (0.62 * Math.max(1, text.length())); // ~0.62 em per bold sans-serif character
    double size = Math.max(9, Math.min(15, fits));
    return String.format(
        Locale.ROOT,
        "<text class=\"title\" x=\"12\" y=\"22\" font-size=\"%.1f\" font-weight=\"bold\">%s</text>%n",
        size,
        Html.esc(text));
  }
}
