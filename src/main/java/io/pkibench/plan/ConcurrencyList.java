package io.pkibench.plan;

import java.util.ArrayList;
import java.util.List;

/** Concurrency levels as written on the command line: {@code 1,2,4} or {@code 1..64} (doubling). */
public final class ConcurrencyList {
  private ConcurrencyList() {}

  public static List<Integer> parse(String text) {
    List<Integer> levels = new ArrayList<>();
    for (String part : text.split(",")) {
      String p = part.trim();
      int range = p.indexOf("..");
      if (range >= 0) {
        int from = positive(p.substring(0, range), text);
        int to = positive(p.substring(range + 2), text);
        if (to < from) {
          throw new IllegalArgumentException(
              "'" + p + "' runs backwards; write the smaller bound first, like 1..64");
        }
        for (long n = from; n <= to; n *= 2) levels.add((int) n);
        if (levels.get(levels.size() - 1) != to) levels.add(to);
      } else {
        levels.add(positive(p, text));
      }
    }
    return List.copyOf(levels);
  }

  /**
   * Rates as written after {@code --rate}/{@code --rates}: {@code 500}, {@code 500/s}, {@code
   * 3000/m}, comma-separated.
   */
  public static List<Double> parseRates(String text) {
    List<Double> rates = new ArrayList<>();
    for (String part : text.split(",")) {
      String p = part.trim();
      double divisor = 1;
      if (p.endsWith("/s")) p = p.substring(0, p.length() - 2);
      else if (p.endsWith("/m")) {
        p = p.substring(0, p.length() - 2);
        divisor = 60;
      }
      try {
        double r = Double.parseDouble(p) / divisor;
        if (r > 0 && Double.isFinite(r)) {
          rates.add(r);
          continue;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new IllegalArgumentException(
          "'"
              + text
              + "' is not a rate list; write operations per second like 500/s, or 100,200,400 (or per minute: 3000/m)");
    }
    return List.copyOf(rates);
  }

  private static int positive(String number, String whole) {
    try {
      int n = Integer.parseInt(number.trim());
      if (n >= 1) return n;
    } catch (NumberFormatException e) {
      // reported below with the whole text
    }
    throw new IllegalArgumentException(
        "'"
            + whole
            + "' is not a concurrency list; write positive whole numbers like 1,2,4 or a doubling range like 1..64");
  }
}
