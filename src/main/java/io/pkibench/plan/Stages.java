package io.pkibench.plan;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Stages in k6's sense ({@code --stages 10s:400/s,30s:400/s,10s:0/s}): each moves the target
 * linearly from the previous stage's (0 at the start) to its own over its duration; a 0 s stage
 * jumps. The target is an arrival rate (open loop: a timetable whose rate ramps) or a number of
 * workers (closed loop: workers started and parked as it moves), never both in one run. Times here
 * are offsets from the start of the stages, in nanoseconds.
 */
public record Stages(Kind kind, List<Stage> stages) {

  /** What the targets count: arrivals per second ({@code 400/s}) or workers ({@code 64}). */
  public enum Kind {
    RATE,
    WORKERS
  }

  /**
   * One stage: over {@code duration}, the target moves to {@code target} (per second, or workers).
   */
  public record Stage(Duration duration, double target) {}

  public Stages {
    stages = List.copyOf(stages);
    if (stages.isEmpty()) throw new IllegalArgumentException("no stage");
  }

  /**
   * Held steady: a jump to {@code target}, then {@code length} at it (a warm-up before the first
   * stage).
   */
  public static Stages hold(Kind kind, double target, Duration length) {
    return new Stages(kind, List.of(new Stage(Duration.ZERO, target), new Stage(length, target)));
  }

  private static final Pattern RATE = Pattern.compile("([-+]?[0-9]*\\.?[0-9]+)/(s|m)");
  private static final Pattern WORKERS = Pattern.compile("[-+]?[0-9]+");

  /** Also how the result file's plan is read back. */
  @JsonCreator
  public static Stages fromText(String text) {
    List<String> problems = new ArrayList<>();
    Stages s = parse(text, problems);
    if (s == null) throw new IllegalArgumentException(String.join("; ", problems));
    return s;
  }

  /**
   * Parses {@code D:T,...}; on bad input adds every problem found, each starting with {@code
   * --stages}, to {@code problems} and returns null.
   */
  public static Stages parse(String text, List<String> problems) {
    int before = problems.size();
    List<Stage> stages = new ArrayList<>();
    List<Kind> kinds = new ArrayList<>();
    String[] parts = text.split(",", -1);
    for (int i = 0; i < parts.length; i++) {
      String p = parts[i].trim();
      String at = "--stages: stage " + (i + 1) + " '" + p + "'";
      int colon = p.indexOf(':');
      if (p.isEmpty()) {
        problems.add(
            "--stages: stage "
                + (i + 1)
                + " is empty; write DURATION:TARGET stages separated by commas, e.g. 10s:400/s,30s:400/s,10s:0/s");
        continue;
      }
      if (colon < 0) {
        problems.add(at + " has no duration; write DURATION:TARGET, e.g. 10s:" + p);
        continue;
      }
      Duration d = null;
      try {
        d = Durations.parse(p.substring(0, colon));
      } catch (IllegalArgumentException e) {
        problems.add(at + ": " + e.getMessage());
      }
      String t = p.substring(colon + 1).trim();
      Double target = null;
      Matcher rate = RATE.matcher(t);
      if (rate.matches()) {
        double r = Double.parseDouble(rate.group(1)) / (rate.group(2).equals("m") ? 60 : 1);
        if (r < 0)
          problems.add(at + ": a rate cannot be below 0/s; ramp down to 0/s at the lowest");
        else if (r > MAX_RATE)
          problems.add(
              at
                  + ": "
                  + r
                  + "/s is more than "
                  + (long) MAX_RATE
                  + "/s, the most one process offers");
        else target = r;
        kinds.add(Kind.RATE);
      } else if (WORKERS.matcher(t).matches()) {
        long n = Long.parseLong(t.length() > 12 ? t.substring(0, 12) : t);
        if (n < 0) problems.add(at + ": a number of workers cannot be below 0");
        else target = (double) n;
        kinds.add(Kind.WORKERS);
      } else {
        problems.add(
            at
                + ": '"
                + t
                + "' is not a target; write a rate per second like 400/s (or per minute, 3000/m) for the open loop,"
                + " or a whole number of workers like 64 for the closed loop");
      }
      if (d != null && target != null) stages.add(new Stage(d, target));
    }
    if (kinds.stream().distinct().count() > 1) {
      problems.add(
          "--stages: mixes rates (400/s) and worker counts (64); a run is either open loop (every target a rate) or closed loop"
              + " (every target a number of workers)");
    }
    if (problems.size() > before) return null;
    Stages s = new Stages(kinds.get(0), stages);
    if (s.total().isZero())
      problems.add("--stages: every stage lasts 0s; give the stages some time, e.g. 10s:400/s");
    else if (s.maxTarget() == 0)
      problems.add(
          "--stages: every target is 0; nothing would run: ramp to a rate like 400/s or a number of workers like 64");
    return problems.size() > before ? null : s;
  }

  /** The most operations per second a stage may ask of one process, as with {@code --rate}. */
  public static final double MAX_RATE = 10_000_000;

  public Duration total() {
    Duration sum = Duration.ZERO;
    for (Stage s : stages) sum = sum.plus(s.duration());
    return sum;
  }

  public double maxTarget() {
    return stages.stream().mapToDouble(Stage::target).max().orElse(0);
  }

  /** The closed loop's workers: one per worker the highest target asks. */
  public int maxWorkers() {
    return (int) Math.round(maxTarget());
  }

  /** Offset at which stage {@code i} starts. */
  public long startNanos(int i) {
    long t = 0;
    for (int k = 0; k < i; k++) t += stages.get(k).duration().toNanos();
    return t;
  }

  /** The target where stage {@code i} starts: the previous stage's target, 0 for the first. */
  public double fromTarget(int i) {
    return i == 0 ? 0 : stages.get(i - 1).target();
  }

  /**
   * The stage running at {@code offsetNanos}: the last one after the end, the first before the
   * start; 0 s stages never run.
   */
  public int stageAt(long offsetNanos) {
    long start = 0;
    int last = 0;
    for (int i = 0; i < stages.size(); i++) {
      long d = stages.get(i).duration().toNanos();
      if (d == 0) continue;
      last = i;
      if (offsetNanos < start + d) return i;
      start += d;
    }
    return last;
  }

  /**
   * The target at {@code offsetNanos}, moving linearly within each stage; the last one's after the
   * end.
   */
  public double targetAt(long offsetNanos) {
    long start = 0;
    for (int i = 0; i < stages.size(); i++) {
      long d = stages.get(i).duration().toNanos();
      if (offsetNanos < start + d) {
        double from = fromTarget(i);
        return from + (stages.get(i).target() - from) * Math.max(0, offsetNanos - start) / d;
      }
      start += d;
    }
    return stages.get(stages.size() - 1).target();
  }

  /**
   * Arrivals the rate targets offer from the start to {@code offsetNanos} (the integral of the
   * rate), capped at the end.
   */
  public double arrivalsUntil(long offsetNanos) {
    double sum = 0;
    long start = 0;
    for (int i = 0; i < stages.size(); i++) {
      long d = stages.get(i).duration().toNanos();
      if (d == 0) continue;
      double from = fromTarget(i);
      double to = stages.get(i).target();
      long within = Math.min(Math.max(0, offsetNanos - start), d);
      double s = within / 1e9;
      sum += from * s + (to - from) / (2 * (d / 1e9)) * s * s;
      if (offsetNanos < start + d) return sum;
      start += d;
    }
    return sum;
  }

  /** Arrivals the whole timetable offers. */
  public double arrivals() {
    return arrivalsUntil(Long.MAX_VALUE);
  }

  /** The mean rate of the whole timetable: its arrivals over its length. */
  public double meanRate() {
    return arrivals() / (total().toNanos() / 1e9);
  }

  /**
   * When arrival {@code n} (from 0) is scheduled: the first offset by which the timetable has
   * offered {@code n} arrivals; {@link Long#MAX_VALUE} when it offers fewer. Arrival 0 is at the
   * start, as on a fixed timetable.
   */
  public long offsetOfArrival(long n) {
    double cumulative = 0;
    long start = 0;
    for (int i = 0; i < stages.size(); i++) {
      long d = stages.get(i).duration().toNanos();
      if (d == 0) continue;
      double from = fromTarget(i);
      double to = stages.get(i).target();
      double seconds = d / 1e9;
      double inStage = (from + to) / 2 * seconds;
      if (n <= cumulative + inStage) {
        // Solve from·t + a·t² = x for t in [0, seconds], a = (to − from)/(2·seconds); in the form
        // that stays exact as a → 0.
        double x = Math.max(0, n - cumulative);
        double a = (to - from) / (2 * seconds);
        double root = Math.sqrt(Math.max(0, from * from + 4 * a * x));
        double denominator = from + root;
        double t = denominator <= 0 ? 0 : 2 * x / denominator;
        return start + Math.min(d, (long) (t * 1e9));
      }
      cumulative += inStage;
      start += d;
    }
    return Long.MAX_VALUE;
  }

  /**
   * The first offset from {@code fromNanos} on at which the target is at least {@code level};
   * {@link Long#MAX_VALUE} if never again.
   */
  public long offsetWhenAtLeast(double level, long fromNanos) {
    long start = 0;
    for (int i = 0; i < stages.size(); i++) {
      long d = stages.get(i).duration().toNanos();
      long end = start + d;
      if (d > 0 && end > fromNanos) {
        long t0 = Math.max(start, fromNanos);
        if (targetAt(t0) >= level) return t0;
        double from = fromTarget(i);
        double to = stages.get(i).target();
        if (to >= level) {
          long t = start + (long) Math.ceil(d * (level - from) / (to - from));
          return Math.min(end, Math.max(t0, t));
        }
      }
      start = end;
    }
    return Long.MAX_VALUE;
  }

  @JsonValue
  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    for (Stage s : stages)
      parts.add(Durations.format(s.duration()) + ":" + formatTarget(s.target()));
    return String.join(",", parts);
  }

  /** {@code 400/s} or {@code 64}, as written on the command line. */
  public String formatTarget(double target) {
    String n =
        target == Math.rint(target)
            ? Long.toString((long) target)
            : String.format(Locale.ROOT, "%.3f", target).replaceAll("0+$", "");
    return kind == Kind.RATE ? n + "/s" : n;
  }
}
