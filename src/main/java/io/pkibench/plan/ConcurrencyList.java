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

  private static int positive(String number, String whole) {
    try {
      int n = Integer.parseInt(number.trim());
      if (n >= 1) return n;
    } catch (NumberFormatException e) {
      // reported below with the whole text
    }
    throw new IllegalArgumentException(
        "'" + whole + "' is not a concurrency list; write positive whole numbers like 1,2,4 or a doubling range like 1..64");
  }
}
