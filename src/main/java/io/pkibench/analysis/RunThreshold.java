package io.pkibench.analysis;

import io.pkibench.workload.api.Suggestions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A pass/fail limit on a run's own figures, as k6 writes them: {@code p99<50ms}, {@code errors<1%},
 * {@code throughput>=1000/s}, {@code cpu>=500/s} (operations per CPU-second), optionally scoped to
 * a workload or a mix member ({@code sign.p99<5ms}) and, on a staged run, to a stage ({@code
 * stage2.p99<20ms}, {@code sign.stage2.p99<20ms}; stages count from 1). Unlike {@link Threshold},
 * which limits a change between two runs, this limits one run.
 *
 * @param text the expression as written
 * @param scope the workload name or mix member label it is limited to, null for every workload
 * @param stage the stage (from 1) it is limited to, null for the whole level
 * @param limit in the metric's base unit: nanoseconds, a percentage, ops/s or ops/cpu-s
 */
public record RunThreshold(
    String text, String scope, Integer stage, Figure figure, Comparison comparison, double limit) {

  /** What a threshold can limit, by the names a user writes. */
  public enum Figure {
    P50("p50", "ns"),
    P90("p90", "ns"),
    P99("p99", "ns"),
    P999("p999", "ns"),
    MAX("max", "ns"),
    MEAN("mean", "ns"),
    ERRORS("errors", "%"),
    THROUGHPUT("throughput", "ops/s"),
    CPU("cpu", "ops/cpu-s");

    public final String name;

    /** The unit of {@link #limit} and of the observed figure a verdict records. */
    public final String unit;

    Figure(String name, String unit) {
      this.name = name;
      this.unit = unit;
    }

    boolean latency() {
      return unit.equals("ns");
    }

    /**
     * The names a user may write for it: k6's {@code med} and {@code avg} beside ours (k6's {@code
     * p(99)} is read as p99).
     */
    List<String> spellings() {
      return switch (this) {
        case P50 -> List.of("p50", "med");
        case P999 -> List.of("p999", "p99.9");
        case MEAN -> List.of("mean", "avg");
        default -> List.of(name);
      };
    }
  }

  public enum Comparison {
    LESS("<"),
    AT_MOST("<="),
    MORE(">"),
    AT_LEAST(">=");

    public final String symbol;

    Comparison(String symbol) {
      this.symbol = symbol;
    }

    boolean holds(double observed, double limit) {
      return switch (this) {
        case LESS -> observed < limit;
        case AT_MOST -> observed <= limit;
        case MORE -> observed > limit;
        case AT_LEAST -> observed >= limit;
      };
    }
  }

  private static final String SYNTAX =
      "write [WORKLOAD.][stageN.]METRIC OP LIMIT, e.g. p99<50ms, errors<1%, throughput>=1000/s, cpu>=500/s,"
          + " sign.p99<=5ms or p99{workload:sign}<=5ms (metrics: p50, p90, p99, p999, max, mean, errors, throughput, cpu; OP: <, <=, >, >=)";
  private static final Pattern COMPARISON = Pattern.compile("(<=|>=|==|!=|=|<|>)");
  private static final Pattern STAGE = Pattern.compile("stage(\\d+)");
  private static final Pattern TAGS = Pattern.compile("([^{}]*)\\{([^{}]*)\\}");

  /**
   * {@code METRIC{workload:NAME,stage:N}} as the dotted form {@code NAME.stageN.METRIC}; an unknown
   * tag is a problem naming the two k6 takes here.
   */
  private static String scopedByTags(String metric, String written, List<String> problems) {
    String workload = null;
    String stage = null;
    for (String tag : written.split(",")) {
      String[] kv = tag.split(":", 2);
      String key = kv[0].strip().toLowerCase(Locale.ROOT);
      String value = kv.length < 2 ? "" : kv[1].strip();
      if (value.isEmpty())
        problems.add(
            "the tag '" + tag.strip() + "' has no value: write {workload:NAME} or {stage:N}");
      else if (key.equals("workload") || key.equals("scenario")) workload = value;
      else if (key.equals("stage")) stage = value;
      else
        problems.add(
            "'"
                + key
                + "' is no tag a limit takes; write {workload:NAME} (a workload or mix member) or {stage:N}");
    }
    metric = metric.replaceAll("p\\((\\d+(?:\\.\\d+)?)\\)$", "p$1");
    return (workload == null ? "" : workload + ".")
        + (stage == null ? "" : "stage" + stage + ".")
        + metric;
  }

  private static final Pattern LIMIT =
      Pattern.compile("([+-]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][+-]?\\d+)?)\\s*(\\S*)");

  /** Whether an observed figure stays inside the limit. */
  public boolean holds(double observed) {
    return comparison.holds(observed, limit);
  }

  /**
   * Reads one expression; every problem with it in one message naming {@code flag}, the expression
   * and the fix.
   */
  public static RunThreshold parse(String flag, String written) {
    String text = written == null ? "" : written.strip();
    String at = flag + " " + text + ": ";
    Matcher op = COMPARISON.matcher(text);
    if (!op.find()) throw new IllegalArgumentException(at + "no comparison; " + SYNTAX);
    Comparison comparison =
        switch (op.group(1)) {
          case "<" -> Comparison.LESS;
          case "<=" -> Comparison.AT_MOST;
          case ">" -> Comparison.MORE;
          case ">=" -> Comparison.AT_LEAST;
          default ->
              throw new IllegalArgumentException(
                  at
                      + "'"
                      + op.group(1)
                      + "' is not a comparison a limit takes; use <, <=, > or >=");
        };
    // k6 writes a percentile p(99): the same figure as our p99.
    String left =
        text.substring(0, op.start()).strip().replaceAll("p\\((\\d+(?:\\.\\d+)?)\\)$", "p$1");
    String right = text.substring(op.end()).strip();
    List<String> problems = new ArrayList<>();
    // k6's tag form, p99{workload:sign} or p99{stage:2}: the same scope as sign.p99, stage2.p99.
    Matcher tags = TAGS.matcher(left);
    if (tags.matches()) left = scopedByTags(tags.group(1).strip(), tags.group(2), problems);

    Figure figure = null;
    String scopeText = null;
    for (Figure f : Figure.values()) {
      for (String s : f.spellings()) {
        if (left.equalsIgnoreCase(s)) {
          figure = f;
        } else if (left.toLowerCase(Locale.ROOT).endsWith("." + s)
            && left.length() > s.length() + 1) {
          figure = f;
          scopeText = left.substring(0, left.length() - s.length() - 1);
        }
        if (figure != null) break;
      }
      if (figure != null) break;
    }
    String scope = null;
    Integer stage = null;
    if (figure == null) {
      String typed = left.contains(".") ? left.substring(left.lastIndexOf('.') + 1) : left;
      List<String> known = new ArrayList<>();
      for (Figure f : Figure.values()) known.addAll(f.spellings());
      problems.add(
          left.isEmpty()
              ? "no metric before '" + comparison.symbol + "'"
              : "unknown metric '"
                  + typed
                  + "'"
                  + Suggestions.didYouMean(typed.toLowerCase(Locale.ROOT), known));
    } else if (scopeText != null) {
      int dot = scopeText.lastIndexOf('.');
      String last = scopeText.substring(dot + 1);
      Matcher s = STAGE.matcher(last);
      if (s.matches()) {
        stage = Integer.valueOf(s.group(1));
        if (stage < 1) problems.add("stages count from 1: write stage1 for the first");
        scope = dot < 0 ? null : scopeText.substring(0, dot);
      } else {
        scope = scopeText;
      }
      if (scope != null && scope.isBlank()) problems.add("an empty workload name before '.'");
    }

    double limit = 0;
    Matcher number = LIMIT.matcher(right);
    if (right.isEmpty()) {
      problems.add("no limit after '" + comparison.symbol + "'");
    } else if (!number.matches()) {
      problems.add("the limit '" + right + "' is not a number with a unit");
    } else {
      limit = Double.parseDouble(number.group(1));
      String unit = number.group(2).toLowerCase(Locale.ROOT);
      boolean signed = number.group(1).startsWith("-") || number.group(1).startsWith("+");
      // errors are a percentage of their own: errors<-1% is a negative limit, not a change
      boolean change = figure != null && figure != Figure.ERRORS && signed && unit.equals("%");
      if (change)
        problems.add(
            "a change in percent limits a new run against a base: give it to 'pkibench compare --threshold "
                + figure.name
                + comparison.symbol
                + right
                + "'; a run's own limit is a figure, e.g. "
                + unitHint(figure, figure.latency() ? "50" : "1000")
                    .replaceFirst("^.*e\\.g\\. ", ""));
      else if (limit < 0 || number.group(1).startsWith("-"))
        problems.add("the limit is negative; a figure is never below 0, give a limit of 0 or more");
      if (figure != null && !change) {
        Double scale = scale(figure, unit);
        if (scale == null) {
          problems.add(
              unit.isEmpty()
                  ? "the limit "
                      + number.group(1)
                      + " has no unit; "
                      + unitHint(figure, number.group(1))
                  : "'"
                      + unit
                      + "' is not a unit of "
                      + figure.name
                      + "; "
                      + unitHint(figure, number.group(1)));
        } else {
          limit *= scale;
          if (figure == Figure.ERRORS && limit > 100) problems.add("an error rate is at most 100%");
        }
      }
    }
    if (!problems.isEmpty())
      throw new IllegalArgumentException(at + String.join("; ", problems) + " (" + SYNTAX + ")");
    return new RunThreshold(text, scope, stage, figure, comparison, limit);
  }

  /**
   * How many base units one {@code unit} is for {@code figure}, or null when it is not a unit of
   * it.
   */
  private static Double scale(Figure figure, String unit) {
    if (figure.latency()) {
      return switch (unit) {
        case "ns" -> 1.0;
        case "us", "µs" -> 1e3;
        case "ms" -> 1e6;
        case "s" -> 1e9;
        default -> null;
      };
    }
    return switch (figure) {
      case ERRORS -> unit.equals("%") ? 1.0 : null;
      case THROUGHPUT -> unit.equals("/s") || unit.equals("ops/s") ? 1.0 : null;
      case CPU ->
          unit.equals("/s") || unit.equals("/cpu-s") || unit.equals("ops/cpu-s") ? 1.0 : null;
      default -> null;
    };
  }

  private static String unitHint(Figure figure, String number) {
    return switch (figure) {
      case ERRORS -> "an error rate is a percentage, e.g. errors<" + number + "%";
      case THROUGHPUT -> "a throughput is operations per second, e.g. throughput>=" + number + "/s";
      case CPU -> "cpu is operations per CPU-second, e.g. cpu>=" + number + "/s";
      default -> "a latency takes ns, us, ms or s, e.g. " + figure.name + "<" + number + "ms";
    };
  }

  @Override
  public String toString() {
    return text;
  }
}
