package io.pkibench.measure;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A set of CPU numbers as Linux writes them ({@code 0}, {@code 0-3}, {@code 0,2,4-5}): the cores a
 * process may run on. Its size is what that process's CPU utilisation is measured against.
 */
public record CpuSet(List<Integer> cpus) {
  public CpuSet {
    cpus = List.copyOf(new TreeSet<>(cpus));
    if (cpus.isEmpty()) throw new IllegalArgumentException("a CPU set names at least one CPU");
    if (cpus.get(0) < 0)
      throw new IllegalArgumentException("CPU numbers start at 0, not " + cpus.get(0));
  }

  /** CPUs {@code from} to {@code to}, both included. */
  public static CpuSet range(int from, int to) {
    List<Integer> list = new ArrayList<>();
    for (int c = from; c <= to; c++) list.add(c);
    return new CpuSet(list);
  }

  /** Parses Linux's list form: numbers and ranges separated by commas, e.g. {@code 0-1,4}. */
  public static CpuSet parse(String text) {
    List<Integer> list = new ArrayList<>();
    for (String part : text.trim().split(",")) {
      String p = part.trim();
      try {
        int dash = p.indexOf('-');
        if (dash < 0) {
          list.add(Integer.parseInt(p));
        } else {
          int from = Integer.parseInt(p.substring(0, dash).trim());
          int to = Integer.parseInt(p.substring(dash + 1).trim());
          if (to < from)
            throw new IllegalArgumentException(
                "'" + p + "' runs backwards; write the lower CPU first, e.g. 0-1");
          for (int c = from; c <= to; c++) list.add(c);
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "'" + text + "' is not a CPU list; write CPU numbers and ranges like 0, 0-1 or 0,2-3");
      }
    }
    return new CpuSet(list);
  }

  public int size() {
    return cpus.size();
  }

  /** CPUs in this set and not in {@code other}. */
  public List<Integer> without(CpuSet other) {
    return cpus.stream().filter(c -> !other.cpus.contains(c)).toList();
  }

  /** Linux's list form, ranges folded: {@code 0-3,6}. */
  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    int i = 0;
    while (i < cpus.size()) {
      int j = i;
      while (j + 1 < cpus.size() && cpus.get(j + 1) == cpus.get(j) + 1) j++;
      parts.add(i == j ? Integer.toString(cpus.get(i)) : cpus.get(i) + "-" + cpus.get(j));
      i = j + 1;
    }
    return parts.stream().collect(Collectors.joining(","));
  }
}
