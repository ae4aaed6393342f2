package io.pkibench.measure;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.MalformedInputException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;

/**
 * The interval logs ({@code .hlog}) of the agents of one split plan as one. Every agent runs the
 * plan's iterations on one shared timetable, so an iteration of one agent covers the same time as
 * every other's; within it, each agent's one-second intervals are cut by its own ticks (a loaded
 * agent ticks late, or once more). So the agent with the most intervals in an iteration gives its
 * cuts, and every other agent's interval is added to the one it overlaps most in time: every
 * recorded latency lands in exactly one merged interval, which spans the earliest start to the
 * latest end of what it holds, tagged as the merged level is ({@code c8} for agents of {@code c4}
 * and {@code c4}; rates added likewise). Tags are {@code WORKLOAD/LEVEL/sSERIES/wN|mN}; an agent's
 * levels are matched to the others' in the order its log first names them, per workload, as every
 * agent runs the plan's levels in order.
 */
public final class HlogMerge {
  private HlogMerge() {}

  /** What was merged: intervals written, and how many logs were read. */
  public record Merged(int intervals, int logs) {}

  /**
   * An iteration of the plan, whichever agent ran it: workload, level (in order of first
   * appearance), series and iteration.
   */
  private record Iteration(String workload, int level, String seriesAndIteration) {}

  /** One agent's part of an iteration: its level's token and its intervals in order. */
  private record Part(String levelToken, List<Histogram> intervals) {}

  /**
   * Reads {@code logs} (each an agent's), writes their sum to {@code out} with {@code comment};
   * intervals without a tag of this shape are left out. Throws naming the log it cannot read.
   */
  public static Merged merge(List<Path> logs, Path out, String comment) throws IOException {
    Map<Iteration, List<Part>> iterations = new LinkedHashMap<>();
    long startMillis = Long.MAX_VALUE;
    for (Path log : logs) {
      checkShapes(log);
      HistogramLogReader reader;
      try {
        reader = new HistogramLogReader(log.toFile());
      } catch (FileNotFoundException e) {
        throw new IOException("cannot read interval log " + log + ": " + e.getMessage(), e);
      }
      Map<Iteration, Part> ofThisLog = new LinkedHashMap<>();
      try (reader) {
        Map<String, Map<String, Integer>> levelsByWorkload = new LinkedHashMap<>();
        for (EncodableHistogram e = reader.nextIntervalHistogram();
            e != null;
            e = reader.nextIntervalHistogram()) {
          if (!(e instanceof Histogram h) || h.getTag() == null) continue;
          String[] parts = h.getTag().split("/");
          if (parts.length < 4) continue;
          String workload = String.join("/", Arrays.copyOf(parts, parts.length - 3));
          String levelToken = parts[parts.length - 3];
          Map<String, Integer> levels =
              levelsByWorkload.computeIfAbsent(workload, w -> new LinkedHashMap<>());
          int level = levels.computeIfAbsent(levelToken, t -> levels.size());
          Iteration it =
              new Iteration(
                  workload, level, parts[parts.length - 2] + "/" + parts[parts.length - 1]);
          ofThisLog
              .computeIfAbsent(it, k -> new Part(levelToken, new ArrayList<>()))
              .intervals()
              .add(h);
        }
        startMillis = Math.min(startMillis, (long) (reader.getStartTimeSec() * 1000));
      }
      ofThisLog.forEach(
          (it, part) -> iterations.computeIfAbsent(it, k -> new ArrayList<>()).add(part));
    }
    List<Histogram> merged = new ArrayList<>();
    for (Map.Entry<Iteration, List<Part>> e : iterations.entrySet())
      merged.addAll(mergeIteration(e.getKey(), e.getValue()));
    merged.sort(Comparator.comparingLong(Histogram::getStartTimeStamp));
    try (PrintStream stream = new PrintStream(out.toFile(), StandardCharsets.US_ASCII)) {
      HistogramLogWriter writer = new HistogramLogWriter(stream);
      writer.outputComment(comment);
      writer.outputLogFormatVersion();
      long base = startMillis == Long.MAX_VALUE ? 0 : startMillis;
      writer.outputStartTime(base);
      writer.setBaseTime(base);
      writer.outputLegend();
      for (Histogram h : merged) writer.outputIntervalHistogram(h);
      if (stream.checkError()) throw new IOException("cannot write interval log " + out);
    }
    return new Merged(merged.size(), logs.size());
  }

  /**
   * The longest line an interval log of pkibench's holds: a histogram of at most 2^17 counts,
   * compressed, in base64.
   */
  static final int MOST_LINE_CHARS = 4 << 20;

  /**
   * An agent's log is input: before HdrHistogram's reader decodes it (sizing each histogram from
   * its header, unchecked), every interval's header is checked as a result file's are ({@link
   * LatencyHistograms#checkShape}), and a line longer than any pkibench writes is refused before it
   * is read whole. Throws naming the log and the line.
   */
  static void checkShapes(Path log) throws IOException {
    try (Reader in = Files.newBufferedReader(log, StandardCharsets.US_ASCII)) {
      StringBuilder line = new StringBuilder();
      int number = 1;
      for (int c = in.read(); ; c = in.read()) {
        if (c == '\n' || c < 0) {
          checkLine(log, number++, line);
          line.setLength(0);
          if (c < 0) return;
        } else if (line.length() >= MOST_LINE_CHARS) {
          throw new IOException(
              "interval log "
                  + log
                  + " line "
                  + number
                  + ": longer than "
                  + MOST_LINE_CHARS
                  + " characters, more than any interval pkibench writes; not an agent's log");
        } else {
          line.append((char) c);
        }
      }
    } catch (MalformedInputException e) {
      throw new IOException("interval log " + log + ": not ASCII text, as an interval log is", e);
    }
  }

  private static void checkLine(Path log, int number, StringBuilder line) throws IOException {
    if (line.isEmpty() || line.charAt(0) == '#' || line.charAt(0) == '"')
      return; // comments, the legend
    int comma = line.lastIndexOf(",");
    if (comma < 0) return; // HdrHistogram's reader says what it makes of it
    try {
      LatencyHistograms.checkShape(line.substring(comma + 1).strip());
    } catch (IllegalArgumentException e) {
      throw new IOException("interval log " + log + " line " + number + ": " + e.getMessage(), e);
    }
  }

  /**
   * One iteration's intervals of every agent, on the cuts of the agent with the most, each other
   * interval where it overlaps most.
   */
  private static List<Histogram> mergeIteration(Iteration it, List<Part> parts) {
    Part finest =
        parts.stream().max(Comparator.comparingInt(p -> p.intervals().size())).orElseThrow();
    String tag =
        it.workload()
            + "/"
            + mergedLevel(parts.stream().map(Part::levelToken).toList())
            + "/"
            + it.seriesAndIteration();
    List<Histogram> sums = new ArrayList<>();
    for (Histogram cut : finest.intervals()) {
      Histogram sum = LatencyHistograms.newHistogram();
      sum.add(cut);
      sum.setStartTimeStamp(cut.getStartTimeStamp());
      sum.setEndTimeStamp(cut.getEndTimeStamp());
      sum.setTag(tag);
      sums.add(sum);
    }
    for (Part part : parts) {
      if (part == finest) continue;
      for (Histogram h : part.intervals()) {
        Histogram into = sums.get(0);
        long best = Long.MIN_VALUE;
        for (Histogram sum : sums) {
          // Overlap in ms; when none overlaps (a negative gap), the nearest.
          long overlap =
              Math.min(sum.getEndTimeStamp(), h.getEndTimeStamp())
                  - Math.max(sum.getStartTimeStamp(), h.getStartTimeStamp());
          if (overlap > best) {
            best = overlap;
            into = sum;
          }
        }
        into.add(h);
        into.setStartTimeStamp(Math.min(into.getStartTimeStamp(), h.getStartTimeStamp()));
        into.setEndTimeStamp(Math.max(into.getEndTimeStamp(), h.getEndTimeStamp()));
      }
    }
    return sums;
  }

  /**
   * The merged level's token: workers ({@code cN}) or rates ({@code rX}) added; anything else
   * (stages) as the first agent's.
   */
  static String mergedLevel(List<String> tokens) {
    try {
      if (tokens.stream().allMatch(t -> t.matches("c\\d+")))
        return "c" + tokens.stream().mapToLong(t -> Long.parseLong(t.substring(1))).sum();
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
