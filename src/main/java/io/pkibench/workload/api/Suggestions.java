package io.pkibench.workload.api;

import java.util.Comparator;
import java.util.List;

/** "did you mean …" for a mistyped name. */
public final class Suggestions {
  private Suggestions() {}

  public static String didYouMean(String typed, List<String> known) {
    return known.stream()
        .filter(k -> distance(typed, k) <= 2 || k.startsWith(typed))
        .min(Comparator.comparingInt(k -> distance(typed, k)))
        .map(k -> "; did you mean '" + k + "'?")
        .orElse("");
  }

  static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) prev[j] = j;
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }
}
