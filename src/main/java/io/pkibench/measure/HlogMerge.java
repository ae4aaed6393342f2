package io.pkibench.measure;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;

/**
 * The interval logs ({@code .hlog}) of the agents of one split plan as one: the k-th interval of an iteration of one
 * agent covers the same time as every other agent's k-th (one shared start, one timetable), so they are added into one
 * interval, from the earliest start to the latest end, tagged as the merged level is ({@code c8} for agents of {@code c4}
 * and {@code c4}; rates added likewise). Tags are {@code WORKLOAD/LEVEL/sSERIES/wN|mN}; an agent's levels are matched to
 * the others' in the order its log first names them, per workload, as every agent runs the plan's levels in order.
 */
public final class HlogMerge {
  private HlogMerge() {}

  /** What was merged: intervals written, and how many logs each came from at most. */
  public record Merged(int intervals, int logs) {}

  /** Where an interval stands in the plan, whichever agent wrote it. */
  private record Key(String workload, int level, String seriesAndIteration, int ordinal) {}

  private static final class Sum {
    final Histogram histogram = LatencyHistograms.newHistogram();
    final List<String> levelTokens = new ArrayList<>();
    long startMillis = Long.MAX_VALUE;
    long endMillis;
  }

  /**
   * Reads {@code logs} (each an agent's), writes their sum to {@code out} with {@code comment}; intervals without a tag of
   * this shape are left out. Throws naming the log it cannot read.
   */
  public static Merged merge(List<Path> logs, Path out, String comment) throws IOException {
    Map<Key, Sum> sums = new LinkedHashMap<>();
    long startMillis = Long.MAX_VALUE;
    for (Path log : logs) {
      HistogramLogReader reader;
      try {
        reader = new HistogramLogReader(log.toFile());
      } catch (FileNotFoundException e) {
        throw new IOException("cannot read interval log " + log + ": " + e.getMessage(), e);
      }
      try (reader) {
        Map<String, Map<String, Integer>> levelsByWorkload = new LinkedHashMap<>();
        Map<String, Integer> ordinals = new LinkedHashMap<>();
        for (EncodableHistogram e = reader.nextIntervalHistogram(); e != null; e = reader.nextIntervalHistogram()) {
          if (!(e instanceof Histogram h) || h.getTag() == null) continue;
          String[] parts = h.getTag().split("/");
          if (parts.length < 4) continue;
          String workload = String.join("/", java.util.Arrays.copyOf(parts, parts.length - 3));
          String levelToken = parts[parts.length - 3];
          String iteration = parts[parts.length - 2] + "/" + parts[parts.length - 1];
          Map<String, Integer> levels = levelsByWorkload.computeIfAbsent(workload, w -> new LinkedHashMap<>());
          int level = levels.computeIfAbsent(levelToken, t -> levels.size());
          int ordinal = ordinals.merge(workload + "/" + level + "/" + iteration, 1, Integer::sum) - 1;
          Sum sum = sums.computeIfAbsent(new Key(workload, level, iteration, ordinal), k -> new Sum());
          sum.histogram.add(h);
          sum.levelTokens.add(levelToken);
          sum.startMillis = Math.min(sum.startMillis, h.getStartTimeStamp());
          sum.endMillis = Math.max(sum.endMillis, h.getEndTimeStamp());
        }
        startMillis = Math.min(startMillis, (long) (reader.getStartTimeSec() * 1000));
      }
    }
    List<Map.Entry<Key, Sum>> ordered = new ArrayList<>(sums.entrySet());
    ordered.sort(Comparator.comparingLong(e -> e.getValue().startMillis));
    try (PrintStream stream = new PrintStream(out.toFile(), java.nio.charset.StandardCharsets.US_ASCII)) {
      HistogramLogWriter writer = new HistogramLogWriter(stream);
      writer.outputComment(comment);
      writer.outputLogFormatVersion();
      long base = startMillis == Long.MAX_VALUE ? 0 : startMillis;
      writer.outputStartTime(base);
      writer.setBaseTime(base);
      writer.outputLegend();
      for (Map.Entry<Key, Sum> e : ordered) {
        Key k = e.getKey();
        Sum s = e.getValue();
        s.histogram.setStartTimeStamp(s.startMillis);
        s.histogram.setEndTimeStamp(s.endMillis);
        s.histogram.setTag(k.workload() + "/" + mergedLevel(s.levelTokens) + "/" + k.seriesAndIteration());
        writer.outputIntervalHistogram(s.histogram);
      }
      if (stream.checkError()) throw new IOException("cannot write interval log " + out);
    }
    return new Merged(ordered.size(), ordered.stream().mapToInt(e -> e.getValue().levelTokens.size()).max().orElse(0));
  }

  /** The merged level's token: workers ({@code cN}) or rates ({@code rX}) added; anything else (stages) as the first agent's. */
  static String mergedLevel(List<String> tokens) {
    try {
      if (tokens.stream().allMatch(t -> t.matches("c\\d+"))) return "c" + tokens.stream().mapToLong(t -> Long.parseLong(t.substring(1))).sum();
      if (tokens.stream().allMatch(t -> t.matches("r[0-9.E+-]+"))) {
        double rate = tokens.stream().mapToDouble(t -> Double.parseDouble(t.substring(1))).sum();
        return "r" + (rate == Math.rint(rate) ? Long.toString((long) rate) : Double.toString(rate));
      }
    } catch (NumberFormatException e) {
      // not a level written by this program: kept as it was
    }
    return tokens.get(0);
  }
}
