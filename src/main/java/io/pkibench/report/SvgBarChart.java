package io.pkibench.report;

import java.util.List;
import java.util.Locale;

/**
 * Horizontal bars, one per row (a study's steps), each with its value written beside it; inline
 * SVG, no script.
 */
public final class SvgBarChart implements Chart {
  static final int WIDTH = SvgChart.WIDTH;
  private static final int LABEL = 170, TOP = 36, BAR = 22, GAP = 8;
  private static final double CHAR_PX = 6.8; // a 12 px sans-serif character, generously
  private static final String COLOUR = "#1f77b4";

  /** {@code text}: the value as the table prints it, e.g. "54,513 ops/min". */
  public record Bar(String label, double value, String text) {}

  private final String id;
  private final String title;
  private final List<Bar> bars;

  public SvgBarChart(String id, String title, List<Bar> bars) {
    this.id = id;
    this.title = title;
    this.bars = List.copyOf(bars);
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public String render() {
    int height = TOP + bars.size() * (BAR + GAP) + 16;
    double max = bars.stream().mapToDouble(Bar::value).filter(Double::isFinite).max().orElse(1);
    if (!(max > 0)) max = 1;
    // The longest value text must fit beside the longest bar.
    int longestText = bars.stream().mapToInt(b -> b.text().length()).max().orElse(0);
    int plotW = (int) Math.max(120, WIDTH - LABEL - 16 - longestText * CHAR_PX);
    StringBuilder svg =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart bar\" id=\"%s\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n",
                Html.esc(id),
                WIDTH,
                height,
                WIDTH,
                height));
    svg.append("<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n")
        .append(Chart.title(title, WIDTH));
    for (int i = 0; i < bars.size(); i++) {
      Bar b = bars.get(i);
      int y = TOP + i * (BAR + GAP);
      double w = Double.isFinite(b.value()) && b.value() > 0 ? plotW * b.value() / max : 0;
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>%n",
              LABEL - 8,
              y + BAR / 2 + 4,
              Html.esc(b.label())));
      svg.append(
          String.format(
              Locale.ROOT,
              "<rect class=\"bar\" data-label=\"%s\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
              Html.esc(b.label()),
              LABEL,
              y,
              w,
              BAR,
              COLOUR));
      svg.append(
          String.format(
              Locale.ROOT,
              "<text x=\"%.1f\" y=\"%d\" fill=\"#333\">%s</text>%n",
              LABEL + w + 6,
              y + BAR / 2 + 4,
              Html.esc(b.text())));
    }
    return svg.append("</svg>\n").toString();
  }
}
