package io.pkibench.analysis;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a workload scales, in the words capacity studies use: linear up to L (efficiency ≥ 90%),
 * bends from B, knee at K, stops gaining at S, and how far p99 holds.
 *
 * <p>Rules, over levels sorted by concurrency: efficiency E(N) = X(N) / (N·X₁), X₁ the per-worker
 * rate of the lowest level; the linear region is the run of levels from the lowest with E ≥ 0.9.
 * The knee is the first level whose marginal gain per added worker is under 10% of X₁, or whose p99
 * is more than twice the lowest level's. Saturation is the first level that no higher level beats
 * by 2% or more. The p99 bound is the round number at or above twice the lowest level's p99.
 */
public record ScalingVerdict(
    List<Double> efficiency,
    Double linearUpTo,
    Double bendsFrom,
    Double kneeAt,
    String kneeReason,
    Double saturatedAt,
    long p99BoundNanos,
    Double p99HeldUpTo,
    String text) {

  static final double LINEAR_EFFICIENCY = 0.9;
  static final double KNEE_MARGINAL_GAIN = 0.10;
  static final double KNEE_P99_FACTOR = 2.0;
  static final double SATURATION_GAIN = 0.02;

  /**
   * {@code openLoop}: the levels are target rates; efficiency is then the achieved share of the
   * target (the generator keeps up or falls behind), and the sentence speaks of rates, not workers.
   */
  public static ScalingVerdict of(List<LevelPoint> points, UslFit usl, boolean openLoop) {
    return of(
        points,
        usl,
        usl == null && points.size() < 3 ? "it needs at least 3 levels" : null,
        openLoop);
  }

  /**
   * {@code noFitBecause}: why there is no USL fit ({@code usl} null), said in the verdict; null
   * when there is one or none was tried.
   */
  public static ScalingVerdict of(
      List<LevelPoint> points, UslFit usl, String noFitBecause, boolean openLoop) {
    return of(points, usl, noFitBecause, List.of(), openLoop);
  }

  /**
   * {@code leftOut}: the measured levels not in {@code points} and why ("concurrency 2 (never
   * steadied: …)"), named in the verdict so that a reader who sees a level in the table knows why
   * the sentence does not speak of it.
   */
  public static ScalingVerdict of(
      List<LevelPoint> points,
      UslFit usl,
      String noFitBecause,
      List<String> leftOut,
      boolean openLoop) {
    ScalingVerdict v = read(points, usl, noFitBecause, openLoop);
    if (leftOut.isEmpty()) return v;
    String text = v.text();
    if (!points.isEmpty() && points.size() > 1)
      text =
          "from the lowest steady level, "
              + TrimmedNumber.of(points.get(0).load(), 1)
              + ": "
              + text;
    text += " Left out: " + String.join("; ", leftOut) + ".";
    return new ScalingVerdict(
        v.efficiency(),
        v.linearUpTo(),
        v.bendsFrom(),
        v.kneeAt(),
        v.kneeReason(),
        v.saturatedAt(),
        v.p99BoundNanos(),
        v.p99HeldUpTo(),
        text);
  }

  private static ScalingVerdict read(
      List<LevelPoint> points, UslFit usl, String noFitBecause, boolean openLoop) {
    if (points.isEmpty())
      return new ScalingVerdict(
          List.of(), null, null, null, null, null, 0, null, "no level was measured");
    if (points.size() == 1) {
      // Scaling is a relation between levels: from one level nothing can be said of it, and nothing
      // is.
      String level =
          openLoop
              ? "one rate measured (" + TrimmedNumber.of(points.get(0).load(), 1) + "/s)"
              : "one level measured (concurrency "
                  + TrimmedNumber.of(points.get(0).load(), 1)
                  + ")";
      return new ScalingVerdict(
          List.of(1.0),
          null,
          null,
          null,
          null,
          null,
          0,
          null,
          level
              + ": no scaling verdict from one level; measure two or more (e.g. --concurrency 1..16) to see how it scales.");
    }
    LevelPoint first = points.get(0);
    double perWorker = openLoop ? 1 : first.throughput() / first.load();
    List<Double> efficiency = new ArrayList<>();
    for (LevelPoint p : points)
      efficiency.add(perWorker == 0 ? 0 : p.throughput() / (p.load() * perWorker));

    // The lowest level is efficient by definition; a linear region needs a second level that kept
    // up with it.
    Double linearUpTo = null, bendsFrom = null;
    for (int i = openLoop ? 0 : 1; i < points.size(); i++) {
      if (efficiency.get(i) >= LINEAR_EFFICIENCY) {
        linearUpTo = points.get(i).load();
      } else {
        bendsFrom = points.get(i).load();
        break;
      }
    }
    Double kneeAt = null;
    String kneeReason = null;
    for (int i = 1; i < points.size() && kneeAt == null; i++) {
      LevelPoint prev = points.get(i - 1), cur = points.get(i);
      double marginal =
          (cur.throughput() - prev.throughput()) / ((cur.load() - prev.load()) * perWorker);
      if (cur.throughput() < prev.throughput()) {
        // A fall is not a small gain: say it as what it is.
        kneeAt = cur.load();
        kneeReason =
            String.format(
                Locale.ROOT,
                "throughput falls %.0f%% from %s to %s",
                (1 - cur.throughput() / prev.throughput()) * 100,
                TrimmedNumber.of(prev.load(), 1),
                TrimmedNumber.of(cur.load(), 1));
      } else if (marginal < KNEE_MARGINAL_GAIN) {
        kneeAt = cur.load();
        kneeReason =
            String.format(
                Locale.ROOT,
                "each added worker gains %.0f%% of one worker's rate",
                Math.max(0, marginal) * 100);
      } else if (first.p99Nanos() > 0 && cur.p99Nanos() > KNEE_P99_FACTOR * first.p99Nanos()) {
        kneeAt = cur.load();
        kneeReason =
            String.format(
                Locale.ROOT,
                "p99 is %.1f× the lowest level's",
                (double) cur.p99Nanos() / first.p99Nanos());
      }
    }
    Double saturatedAt = null;
    for (int i = 0; i < points.size() - 1 && saturatedAt == null; i++) {
      double x = points.get(i).throughput();
      boolean beaten = false;
      for (int j = i + 1; j < points.size(); j++)
        beaten |= points.get(j).throughput() >= x * (1 + SATURATION_GAIN);
      if (!beaten) saturatedAt = points.get(i).load();
    }
    long bound = roundUp(KNEE_P99_FACTOR * first.p99Nanos());
    Double heldUpTo = null;
    for (LevelPoint p : points) {
      if (p.p99Nanos() <= bound) heldUpTo = p.load();
      else break;
    }
    String text =
        openLoop
            ? openText(points, efficiency, linearUpTo, bendsFrom, saturatedAt, bound, heldUpTo)
            : text(
                points,
                efficiency,
                linearUpTo,
                bendsFrom,
                kneeAt,
                kneeReason,
                saturatedAt,
                bound,
                heldUpTo,
                usl,
                noFitBecause);
    return new ScalingVerdict(
        efficiency, linearUpTo, bendsFrom, kneeAt, kneeReason, saturatedAt, bound, heldUpTo, text);
  }

  private static String openText(
      List<LevelPoint> points,
      List<Double> efficiency,
      Double keptUpTo,
      Double fallsBehindFrom,
      Double saturatedAt,
      long bound,
      Double heldUpTo) {
    List<String> parts = new ArrayList<>();
    double top = points.get(points.size() - 1).load();
    if (keptUpTo == null) {
      parts.add(
          String.format(
              Locale.ROOT,
              "the achieved rate falls short of the target even at %s/s (%.0f%%)",
              TrimmedNumber.of(points.get(0).load(), 1),
              efficiency.get(0) * 100));
    } else if (fallsBehindFrom == null) {
      parts.add(
          "the achieved rate keeps up with every target up to "
              + TrimmedNumber.of(keptUpTo, 1)
              + "/s (≥ 90%)");
    } else {
      int b = indexOf(points, fallsBehindFrom);
      parts.add(
          "the achieved rate keeps up with the target up to "
              + TrimmedNumber.of(keptUpTo, 1)
              + "/s (≥ 90%)");
      parts.add(
          String.format(
              Locale.ROOT,
              "falls behind from %s/s (%.0f%% achieved)",
              TrimmedNumber.of(fallsBehindFrom, 1),
              efficiency.get(b) * 100));
    }
    if (saturatedAt != null)
      parts.add("stops gaining at a target of " + TrimmedNumber.of(saturatedAt, 1) + "/s");
    String sentence = String.join(", ", parts);
    if (heldUpTo != null) {
      sentence +=
          "; p99 (from each scheduled start) stays under "
              + HumanNanos.of(bound)
              + (heldUpTo == top
                  ? " at every rate"
                  : " up to " + TrimmedNumber.of(heldUpTo, 1) + "/s");
    }
    return sentence + ".";
  }

  private static String text(
      List<LevelPoint> points,
      List<Double> efficiency,
      Double linearUpTo,
      Double bendsFrom,
      Double kneeAt,
      String kneeReason,
      Double saturatedAt,
      long bound,
      Double heldUpTo,
      UslFit usl,
      String noFitBecause) {
    List<String> parts = new ArrayList<>();
    double top = points.get(points.size() - 1).load();
    if (linearUpTo == null) {
      LevelPoint first = points.get(0), second = points.get(1);
      if (second.throughput() < first.throughput()) {
        parts.add(
            String.format(
                Locale.ROOT,
                "throughput falls from concurrency %s to %s (%s → %s ops/s, −%.0f%%)",
                TrimmedNumber.of(first.load(), 1),
                TrimmedNumber.of(second.load(), 1),
                TrimmedNumber.of(first.throughput(), 0),
                TrimmedNumber.of(second.throughput(), 0),
                (1 - second.throughput() / first.throughput()) * 100));
      } else {
        parts.add(
            String.format(
                Locale.ROOT,
                "throughput does not grow linearly past the lowest level: concurrency %s at efficiency %.0f%%",
                TrimmedNumber.of(second.load(), 1),
                Math.floor(efficiency.get(1) * 100)));
      }
    } else if (bendsFrom == null) {
      parts.add(
          "throughput grows linearly up to concurrency "
              + TrimmedNumber.of(linearUpTo, 1)
              + ", the highest measured (efficiency ≥ 90%)");
    } else {
      int b = indexOf(points, bendsFrom);
      parts.add(
          "throughput grows linearly up to concurrency "
              + TrimmedNumber.of(linearUpTo, 1)
              + " (efficiency ≥ 90%)");
      parts.add(
          String.format(
              Locale.ROOT,
              "bends from %s (efficiency %.0f%%)",
              TrimmedNumber.of(bendsFrom, 1),
              Math.floor(efficiency.get(b) * 100)));
    }
    if (kneeAt != null)
      parts.add("knee at " + TrimmedNumber.of(kneeAt, 1) + " (" + kneeReason + ")");
    if (saturatedAt != null && saturatedAt == points.get(0).load()) {
      parts.add(
          "the lowest level, "
              + TrimmedNumber.of(saturatedAt, 1)
              + ", is the fastest: no higher one gains "
              + Math.round(SATURATION_GAIN * 100)
              + "%");
    } else if (saturatedAt != null)
      parts.add("stops gaining at " + TrimmedNumber.of(saturatedAt, 1));
    else if (points.size() > 1 && bendsFrom != null)
      parts.add("still gaining at " + TrimmedNumber.of(top, 1) + ", the highest level measured");
    String sentence = String.join(", ", parts);
    if (heldUpTo != null) {
      sentence +=
          "; p99 stays under "
              + HumanNanos.of(bound)
              + (heldUpTo == top ? " at every level" : " up to " + TrimmedNumber.of(heldUpTo, 1));
    }
    if (usl != null) {
      sentence +=
          String.format(
              Locale.ROOT,
              ". USL: σ=%.4f, κ=%.6f, λ=%.1f ops/s",
              usl.sigma(),
              usl.kappa(),
              usl.lambda());
      if (usl.peakConcurrency() != null) {
        sentence +=
            String.format(
                Locale.ROOT,
                ", peak %.1f ops/s at concurrency %.1f",
                usl.peakThroughput(),
                usl.peakConcurrency());
      }
      if (usl.superlinear()) {
        // Shown beside the constrained fit, not fitted away: the negative σ is what the data say.
        UslFit.Unconstrained free = UslFit.unconstrained(points);
        sentence +=
            free == null
                ? "; unconstrained, σ < 0: superlinear somewhere (caches, batching or a warm-up effect), held at σ ≥ 0"
                : String.format(
                    Locale.ROOT,
                    "; the unconstrained fit, σ=%.4f, κ=%.6f, λ=%.1f ops/s, is superlinear (σ < 0: caches warming,"
                        + " batching or a warm-up effect), so the fit above holds σ ≥ 0",
                    free.sigma(),
                    free.kappa(),
                    free.lambda());
      }
      if (usl.weak())
        sentence +=
            "; fit from "
                + usl.levels()
                + " levels is weak: measure "
                + UslFit.TRUSTWORTHY_LEVELS
                + " or more";
    } else if (noFitBecause != null) {
      sentence += ". No USL fit: " + noFitBecause;
    }
    return sentence + ".";
  }

  private static int indexOf(List<LevelPoint> points, double load) {
    for (int i = 0; i < points.size(); i++) if (points.get(i).load() == load) return i;
    return -1;
  }

  /** 1, 2 or 5 times a power of ten, at or above {@code nanos}. */
  static long roundUp(double nanos) {
    if (nanos <= 0) return 0;
    double magnitude = Math.pow(10, Math.floor(Math.log10(nanos)));
    for (double step : new double[] {1, 2, 5, 10}) {
      if (step * magnitude >= nanos - 1e-9) return (long) Math.ceil(step * magnitude);
    }
    return (long) Math.ceil(10 * magnitude);
  }
}
