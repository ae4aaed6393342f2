package io.pkibench.report;

import io.pkibench.analysis.Steadiness;
import io.pkibench.results.Environment;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.results.WorkloadResult;
import io.pkibench.text.OutsideText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A study's own table, as its original printed it (one row per step: threads, operations, errors,
 * average and max, throughput in the original's unit) plus what it lacked (ops per service
 * CPU-second, percentiles), the published figures beside ours, and the post-run checks. Computed
 * from the result alone: {@code pkibench report} prints the same.
 */
public final class StudyTables {
  private StudyTables() {}

  /** A step the service had no counterpart for says so this way (the study runner's words). */
  static final String NOT_APPLICABLE = "n/a — ";

  /**
   * One measured step of a study: its label, its measured entry, and the probe's entry if a probe
   * chose the level.
   */
  public record Row(
      String label, WorkloadResult measured, WorkloadResult probe, StudyRecord.StepRecord step) {
    /**
     * The measured level; for a step that sweeps several, its peak (the highest throughput), the
     * sweep being in the run's own tables.
     */
    public Optional<LevelResult> level() {
      if (measured == null || measured.levels().isEmpty()) return Optional.empty();
      return measured.levels().stream()
          .max(java.util.Comparator.comparingDouble(l -> l.throughput().mean()));
    }

    boolean swept() {
      return measured != null && measured.levels().size() > 1;
    }
  }

  /** The study's rows in step order. */
  public static List<Row> rows(RunResult result) {
    List<Row> rows = new ArrayList<>();
    for (StudyRecord.StepRecord s : result.study().steps()) {
      WorkloadResult measured =
          s.measuredWorkload() == null ? null : result.workloads().get(s.measuredWorkload());
      WorkloadResult probe =
          s.probeWorkload() == null ? null : result.workloads().get(s.probeWorkload());
      rows.add(new Row(s.label(), measured, probe, s));
    }
    return rows;
  }

  /**
   * The study table's columns; the throughput column is in the study's unit, then, where the
   * original's unit is another, ours in it, and where the original states a condition, whether it
   * held at the step's level.
   */
  static String[] header(StudyRecord study) {
    List<String> h =
        new ArrayList<>(
            List.of(
                "step",
                "threads",
                "ops",
                "ok",
                "errors",
                "avg",
                "max",
                rateName(study.unit()),
                "±99.9%"));
    seedUnit(study).ifPresent(u -> h.add(u.name()));
    h.addAll(List.of("ops/service-cpu-s", "service cpu"));
    if (condition(study).isPresent()) h.add("seed's condition");
    h.addAll(List.of("p50", "p99"));
    return h.toArray(String[]::new);
  }

  /**
   * The throughput column's unit: the original's, unless the original counted per CPU (then the
   * per-CPU column is its figure).
   */
  static String rateName(StudyRecord.Unit unit) {
    return unit.perServiceCpu() ? "ops/s" : unit.name();
  }

  /** The original's unit, when it is not the one the study's table already shows. */
  static Optional<StudyRecord.Unit> seedUnit(StudyRecord study) {
    StudyRecord.Published p = study.published();
    if (p == null || p.unit() == null || p.unit().equals(study.unit())) return Optional.empty();
    return Optional.of(p.unit());
  }

  static Optional<StudyRecord.Condition> condition(StudyRecord study) {
    return Optional.ofNullable(study.published()).map(StudyRecord.Published::condition);
  }

  /** One measured step's cells, as both the terminal and the HTML table show them. */
  static String[] cells(Row row, LevelResult l, StudyRecord study) {
    StudyRecord.Unit unit = study.unit();
    List<String> c =
        new ArrayList<>(
            List.of(
                row.label(),
                Integer.toString(l.concurrency()),
                Long.toString(l.counts().started()),
                Long.toString(l.counts().succeeded()),
                Long.toString(l.counts().failed()),
                HumanUnits.nanos(l.latencyNanos().mean()),
                HumanUnits.nanos(l.latencyNanos().max()),
                HumanUnits.rate(
                    l.throughput().mean() * (unit.perServiceCpu() ? 1 : unit.perSecond())),
                interval(l, unit)));
    seedUnit(study).ifPresent(u -> c.add(inUnit(u, l)));
    c.add(l.cpu().opsPerCpuSecond() == null ? "-" : HumanUnits.rate(l.cpu().opsPerCpuSecond()));
    c.add(HumanUnits.percent(l.cpu().utilisation()));
    condition(study)
        .ifPresent(
            k ->
                c.add(
                    underCpuLimit(study, row.label())
                        ? "n/a (CPU limited)"
                        : conditionCell(k, row.measured(), l)));
    c.add(HumanUnits.nanos(l.latencyNanos().p50()));
    c.add(HumanUnits.nanos(l.latencyNanos().p99()));
    return c.toArray(String[]::new);
  }

  /**
   * A time per operation read from a fixed offered rate: that rate's inverse, not what an operation
   * cost (see {@link #inUnit}).
   */
  static boolean offeredRate(StudyRecord.Unit unit, LevelResult l) {
    return StudyRecord.Unit.SECONDS_PER_OPERATION.equals(unit.basis()) && l.openLoop() != null;
  }

  static String inUnit(StudyRecord.Unit unit, LevelResult l) {
    // At a fixed offered rate the time per operation is that rate's inverse, not what an operation
    // cost.
    if (StudyRecord.Unit.SECONDS_PER_OPERATION.equals(unit.basis()) && l.openLoop() != null)
      return "n/a (offered rate)";
    double v = unit.of(l);
    return Double.isNaN(v)
        ? (unit.perServiceCpu() ? "no CPU measured" : "-")
        : HumanUnits.figure(v);
  }

  /**
   * Whether the original's condition held at this level: the measured side's CPU at least the
   * condition's share of the cores (or measured at all). A step charging the client's CPU measures
   * the other side: the condition is not its.
   */
  static String conditionCell(StudyRecord.Condition condition, WorkloadResult w, LevelResult l) {
    if (w != null && "jvm".equals(w.cpuMeter())) return "n/a (client CPU)";
    if (condition.minUtilisation() == null)
      return l.cpu().opsPerCpuSecond() != null
          ? "held (CPU measured)"
          : "NOT HELD (no CPU measured)";
    double u = l.cpu().utilisation();
    return u >= condition.minUtilisation()
        ? "held (" + HumanUnits.percent(u) + ")"
        : "NOT HELD ("
            + HumanUnits.percent(u)
            + " < "
            + HumanUnits.percent(condition.minUtilisation())
            + ")";
  }

  /**
   * A step {@code --check-sizing} measured under a CPU limit: the seed's condition (its CPU near
   * 100% of the cores) is not its.
   */
  static boolean underCpuLimit(StudyRecord study, String label) {
    return study.sizingChecks().stream()
        .anyMatch(c -> label.equals(c.limitedStep()) || label.equals(c.checkStep()));
  }

  /** Why a step's condition did not hold, in a sentence; empty when it held or does not apply. */
  static Optional<String> conditionRemark(StudyRecord study, Row row, LevelResult l) {
    Optional<StudyRecord.Condition> condition = condition(study);
    if (condition.isEmpty()
        || underCpuLimit(study, row.label())
        || !conditionCell(condition.get(), row.measured(), l).startsWith("NOT HELD"))
      return Optional.empty();
    StudyRecord.Condition c = condition.get();
    if (c.minUtilisation() == null)
      return Optional.of(
          row.label()
              + ": the seed's condition did not hold ("
              + c.text()
              + "): no CPU was measured");
    String scaled =
        seedUnit(study)
            .filter(StudyRecord.Unit::perServiceCpu)
            .map(
                u ->
                    "; its figure in "
                        + u.name()
                        + " scales the CPU it used to 100% as if it scaled linearly")
            .orElse("");
    return Optional.of(
        row.label()
            + ": the seed's condition did not hold ("
            + c.text()
            + "): "
            + HumanUnits.percent(l.cpu().utilisation())
            + " of the cores at "
            + l.concurrency()
            + (l.concurrency() == 1 ? " thread" : " threads")
            + ", under "
            + HumanUnits.percent(c.minUtilisation())
            + scaled);
  }

  /**
   * What the rows cannot say by themselves: steps not measured, intervals too wide, unsteady
   * levels, the probe's choice.
   */
  static List<String> remarks(StudyRecord study, List<Row> rows) {
    List<String> remarks = new ArrayList<>(clientBesideServer(study, rows));
    for (Row row : rows) {
      Optional<LevelResult> level = row.level();
      if (level.isEmpty()) {
        String why = whyNotMeasured(row);
        remarks.add(
            row.label() + (why.startsWith(NOT_APPLICABLE) ? ": " : ": not measured: ") + why);
        continue;
      }
      LevelResult l = level.get();
      HumanUnits.intervalTooWide(l.throughput())
          .ifPresent(why -> remarks.add(row.label() + ": " + why));
      conditionRemark(study, row, l).map(r -> r + whyNotHeld(rows, row)).ifPresent(remarks::add);
      Steadiness.warning(l).ifPresent(w -> remarks.add(row.label() + ": " + w));
      if (row.step().chosenLevel() != null) {
        // A level taken from another step or given by --concurrency was no probe's choice.
        remarks.add(
            row.label()
                + ": "
                + row.step().chosenLevel()
                + (row.step().probeWorkload() != null
                    ? " threads, chosen by the probe: "
                    : " threads: ")
                + row.step().chosenBecause());
      }
      if (row.swept()) {
        remarks.add(
            row.label()
                + ": swept over "
                + row.measured().levels().stream()
                    .map(x -> Integer.toString(x.concurrency()))
                    .toList()
                + " threads; the row is the peak, at "
                + l.concurrency()
                + " (every level in the sweep's table and charts); "
                + p99Bound(row.measured().levels()));
      }
    }
    return remarks;
  }

  /**
   * Why a step's service side stayed short of saturation, where the data say: the same workload
   * measured charging the client's CPU ({@link #clientBesideServer}) shows which side each
   * operation costs more. A client dearer per operation than the services, on no more cores than
   * theirs, saturates first: the seed's condition cannot hold on this split.
   */
  static String whyNotHeld(List<Row> rows, Row server) {
    for (Row client : rows) {
      Optional<double[]> costs = costsBeside(client, server);
      if (costs.isEmpty()) continue;
      double clientMicros = costs.get()[0], serverMicros = costs.get()[1];
      int threads = (int) costs.get()[2];
      String measured =
          String.format(
              Locale.ROOT,
              "; at %d threads the client spent %.0f µs of CPU per operation, the %s %.0f µs",
              threads,
              clientMicros,
              server.measured().keys() != null && server.measured().keys().startsWith("remote:")
                  ? "key servers"
                  : "service",
              serverMicros);
      return clientMicros > serverMicros
          ? measured
              + String.format(
                  Locale.ROOT,
                  " (%.1f×): unless the client has that many times the measured side's cores, it saturates"
                      + " first and bounds the rate; give it more (--service-cpus) or load from another machine, as the seed did",
                  clientMicros / serverMicros)
          : measured
              + ": the client is not the dearer side; something else held the rate back (the machine's other load, a lock, the network)";
    }
    return "";
  }

  /**
   * The client's and the server's CPU per operation in µs, and the thread count, where {@code
   * client} measured the workload of {@code server} charging the client's JVM at a level {@code
   * server} measured too.
   */
  static Optional<double[]> costsBeside(Row client, Row server) {
    WorkloadResult c = client.measured(), s = server.measured();
    if (c == null
        || s == null
        || !c.cpuMeter().equals("jvm")
        || s.cpuMeter().equals("jvm")
        || client.level().isEmpty()) return Optional.empty();
    if (!s.name().equals(c.name())
        || !s.params().equals(c.params())
        || !java.util.Objects.equals(s.keys(), c.keys())) return Optional.empty();
    LevelResult cl = client.level().get();
    Optional<LevelResult> sl =
        s.levels().stream().filter(l -> l.concurrency() == cl.concurrency()).findFirst();
    if (sl.isEmpty()
        || cl.cpu().opsPerCpuSecond() == null
        || sl.get().cpu().opsPerCpuSecond() == null) return Optional.empty();
    return Optional.of(
        new double[] {
          1e6 / cl.cpu().opsPerCpuSecond(), 1e6 / sl.get().cpu().opsPerCpuSecond(), cl.concurrency()
        });
  }

  /** The latency both Prodist studies state their results against. */
  static final double P99_BOUND_NANOS = 50e6;

  /** Where a sweep's p99 leaves the 50 ms bound, read from its levels in order. */
  static String p99Bound(List<LevelResult> levels) {
    LevelResult firstOver =
        levels.stream()
            .filter(x -> x.latencyNanos().p99() > P99_BOUND_NANOS)
            .findFirst()
            .orElse(null);
    if (firstOver == null) return "p99 stays under 50 ms at every level";
    int index = levels.indexOf(firstOver);
    if (index == 0) return "p99 is over 50 ms from the first level, " + firstOver.concurrency();
    int under = levels.get(index - 1).concurrency();
    return "p99 under 50 ms up to "
        + under
        + (under == 1 ? " thread, " : " threads, ")
        + HumanUnits.nanos(firstOver.latencyNanos().p99())
        + " at "
        + firstOver.concurrency();
  }

  /**
   * An original that published curves and findings rather than figures: its words, beside our
   * hardware.
   */
  static java.util.Optional<String> originalInWords(RunResult result) {
    StudyRecord.Published p = result.study().published();
    if (p == null || !p.figures().isEmpty()) return java.util.Optional.empty();
    return java.util.Optional.of(
        "the original ("
            + p.source()
            + "): "
            + p.hardware()
            + "; ours: "
            + hardware(result.environment()));
  }

  /**
   * Where a study measured the same workload (name, parameters, keys) once charging its services'
   * CPU and once its own JVM's ({@code cpu jvm}, the client), the two costs per operation at the
   * same thread count, side by side: the client : server split a sizing needs. Where the original
   * published a rate for the step, one line more sizes that rate: the cores busy in all, split
   * between client and server.
   */
  static List<String> clientBesideServer(StudyRecord study, List<Row> rows) {
    List<String> lines = new ArrayList<>();
    for (Row client : rows) {
      WorkloadResult c = client.measured();
      if (c == null || !c.cpuMeter().equals("jvm") || client.level().isEmpty()) continue;
      LevelResult cl = client.level().get();
      for (Row server : rows) {
        WorkloadResult s = server.measured();
        if (s == null
            || s.cpuMeter().equals("jvm")
            || !s.name().equals(c.name())
            || !s.params().equals(c.params())
            || !s.keys().equals(c.keys())) continue;
        Optional<LevelResult> sl =
            s.levels().stream().filter(l -> l.concurrency() == cl.concurrency()).findFirst();
        if (sl.isEmpty()
            || cl.cpu().opsPerCpuSecond() == null
            || sl.get().cpu().opsPerCpuSecond() == null) continue;
        double clientMicros = 1e6 / cl.cpu().opsPerCpuSecond(),
            serverMicros = 1e6 / sl.get().cpu().opsPerCpuSecond();
        lines.add(
            String.format(
                java.util.Locale.ROOT,
                "%s at %d threads: %.0f µs of client CPU and %.0f µs of server CPU per operation,"
                    + " client : server = 1 : %.2f",
                server.label(),
                cl.concurrency(),
                clientMicros,
                serverMicros,
                serverMicros / clientMicros));
        publishedRate(study, server.label())
            .ifPresent(
                rate -> {
                  double clientCores = rate * clientMicros / 1e6,
                      serverCores = rate * serverMicros / 1e6;
                  String side = serverWord(study);
                  lines.add(
                      String.format(
                              java.util.Locale.ROOT,
                              "sizing %s for the original's %s ops/s: %.1f cores busy in all, %.1f client and %.1f %s"
                                  + " (client : %s = 1 : %.2f), from the CPU per operation of each at %d threads",
                              server.label(),
                              HumanUnits.figure(rate),
                              clientCores + serverCores,
                              clientCores,
                              serverCores,
                              side,
                              side.replace('-', ' '),
                              serverMicros / clientMicros,
                              cl.concurrency())
                          + unsteady(cl, sl.get(), side));
                });
      }
    }
    return lines;
  }

  /**
   * A sizing from a level whose cost per operation was still moving (a JVM still compiling, a
   * resource running out) is no sizing yet: said at the end of the line, naming the side.
   */
  private static String unsteady(LevelResult client, LevelResult server, String side) {
    List<String> moving = new ArrayList<>();
    Steadiness.warning(client)
        .ifPresent(
            w ->
                moving.add(
                    "the client's CPU per operation was still moving ("
                        + w.substring(0, w.indexOf(':'))
                        + ")"));
    Steadiness.warning(server)
        .ifPresent(
            w ->
                moving.add(
                    "the "
                        + side
                        + "'s CPU per operation was still moving ("
                        + w.substring(0, w.indexOf(':'))
                        + ")"));
    return moving.isEmpty() ? "" : "; indicative only: " + String.join(", and ", moving);
  }

  /**
   * The rate, in operations per second, the original published for a step, when its figure is a
   * rate.
   */
  static Optional<Double> publishedRate(StudyRecord study, String step) {
    StudyRecord.Published p = study.published();
    if (p == null) return Optional.empty();
    StudyRecord.Unit unit = p.unitOr(study.unit());
    if (unit.basis() != null)
      return Optional.empty(); // per CPU or per operation: not a rate to size for
    return p.figures().stream()
        .filter(f -> f.step().equals(step))
        .findFirst()
        .map(f -> f.value() / unit.perSecond());
  }

  /** What the study's services are, for the sizing line: key servers (pix, rsfn) or servers. */
  private static String serverWord(StudyRecord study) {
    boolean keyServers =
        !study.services().isEmpty()
            && study.services().stream().allMatch(s -> s.name().startsWith("keyserver"));
    return keyServers ? "key-server" : "server";
  }

  /**
   * The terminal form: title, table, notes on what the figures can and cannot say, the original
   * beside ours, the checks.
   */
  public static String terminal(RunResult result) {
    StudyRecord study = result.study();
    StringBuilder out = new StringBuilder();
    out.append('\n')
        .append("study ")
        .append(study.name())
        .append(": ")
        .append(study.title())
        .append(" · status ")
        .append(result.status())
        .append('\n');
    List<Row> rows = rows(result);
    List<String[]> table = new ArrayList<>();
    table.add(header(study));
    for (Row row : rows) row.level().ifPresent(l -> table.add(cells(row, l, study)));
    out.append(TerminalTable.align(table));
    for (String r : remarks(study, rows)) out.append("  ").append(r).append('\n');
    for (String note : study.notes()) out.append("  note: ").append(note).append('\n');
    out.append(StudyGrid.terminal(result));
    out.append(ServiceComparison.terminal(result));
    out.append(FaultTimeline.terminal(result));
    out.append(SizingCheckTable.terminal(result));
    originalInWords(result).ifPresent(w -> out.append('\n').append(w).append('\n'));
    List<String[]> beside = published(result);
    if (beside.size() > 1) {
      out.append("\nthe original beside ours (").append(study.published().source()).append(")\n");
      out.append(TerminalTable.align(beside));
      out.append("  original hardware: ").append(study.published().hardware()).append('\n');
      out.append("  ours: ").append(hardware(result.environment())).append('\n');
      for (String n : notComparable(study)) out.append("  ").append(n).append('\n');
      for (String r : ratios(result)) out.append("  ").append(r).append('\n');
      if (beside.stream().anyMatch(r -> r[3].endsWith(" *")))
        out.append(
            "  * ours measured a substitute for the original's configuration; the lines marked * above say which\n");
    }
    if (!study.checks().isEmpty()) {
      out.append("\nchecks\n");
      for (StudyRecord.CheckRecord c : study.checks()) {
        out.append("  ")
            .append(c.passed() ? "passed " : "FAILED ")
            .append(c.name())
            .append(": ")
            .append(c.detail())
            .append('\n');
      }
    }
    return out.toString();
  }

  /**
   * The published figures beside ours in the original's unit, matched by step label: header row
   * first. The ratio column says "not comparable" where the figure says why ours over it would not
   * be like for like.
   */
  public static List<String[]> published(RunResult result) {
    StudyRecord study = result.study();
    StudyRecord.Unit unit =
        study.published() == null ? study.unit() : study.published().unitOr(study.unit());
    Optional<StudyRecord.Condition> condition = condition(study);
    List<String[]> rows = new ArrayList<>();
    Integer batch = batch(study, unit);
    List<String> header =
        new ArrayList<>(
            List.of(
                "step", "original " + unit.name(), "original conditions", "ours " + unit.name()));
    if (batch != null) header.add("ours: batch of " + batch);
    header.addAll(List.of("our threads", "our CPU"));
    if (condition.isPresent()) header.add("seed's condition");
    header.add("ours / original");
    rows.add(header.toArray(String[]::new));
    if (study.published() == null) return rows;
    List<Row> measured = rows(result);
    for (StudyRecord.Figure f : study.published().figures()) {
      // A figure matches its step, or each variant of it ("RR 128 B · AES128/SHA-1 [openssl]").
      List<Row> matches =
          measured.stream()
              .filter(r -> r.label().equals(f.step()) || r.label().startsWith(f.step() + " ["))
              .toList();
      if (matches.isEmpty()) {
        List<String> cells =
            new ArrayList<>(
                List.of(f.step(), HumanUnits.figure(f.value()), f.conditions(), "not measured"));
        if (batch != null) cells.add("-");
        cells.addAll(List.of("-", "-"));
        if (condition.isPresent()) cells.add("-");
        cells.add("-");
        rows.add(cells.toArray(String[]::new));
      }
      for (Row match : matches) {
        Optional<LevelResult> ours = match.level();
        double value = ours.map(unit::of).orElse(Double.NaN);
        List<String> cells =
            new ArrayList<>(
                List.of(
                    match.label(),
                    HumanUnits.figure(f.value()),
                    f.conditions(),
                    ours.isEmpty()
                        ? "not measured"
                        : offeredRate(unit, ours.get())
                            ? inUnit(unit, ours.get())
                            : Double.isNaN(value)
                                ? "no CPU measured"
                                : HumanUnits.figure(value) + substituteMark(study, match.label())));
        if (batch != null) cells.add(batchTime(batch, unit, ours));
        cells.add(ours.map(l -> Integer.toString(l.concurrency())).orElse("-"));
        cells.add(ours.map(l -> HumanUnits.percent(l.cpu().utilisation())).orElse("-"));
        condition.ifPresent(
            k -> cells.add(ours.map(l -> conditionCell(k, match.measured(), l)).orElse("-")));
        // a substitute (another suite where the original's is gone) measured something else: no
        // ratio to the original's figure
        cells.add(
            f.notComparableBecause() != null
                ? "not comparable"
                : !substituteMark(study, match.label()).isEmpty()
                    ? "not comparable (substitute)"
                    : ours.isEmpty()
                            || f.value() == 0
                            || Double.isNaN(value)
                            || offeredRate(unit, ours.get())
                        ? "-"
                        : String.format(Locale.ROOT, "%.2f×", value / f.value()));
        rows.add(cells.toArray(String[]::new));
      }
    }
    return rows;
  }

  /**
   * The original's batch size, when it timed batches and its figures are a time per operation; else
   * null.
   */
  static Integer batch(StudyRecord study, StudyRecord.Unit unit) {
    if (study.published() == null || !StudyRecord.Unit.SECONDS_PER_OPERATION.equals(unit.basis()))
      return null;
    return study.published().batchOperations();
  }

  /**
   * Ours as the original's batch time: the batch's operations at our measured rate. At a fixed
   * offered rate the rate is the one offered, not what the path can do: no batch time then, as for
   * the time per operation.
   */
  static String batchTime(int batch, StudyRecord.Unit unit, Optional<LevelResult> ours) {
    if (ours.isEmpty()) return "-";
    LevelResult l = ours.get();
    if (l.openLoop() != null) return "n/a (offered rate)";
    double perOperation = unit.of(l);
    return Double.isNaN(perOperation) ? "-" : HumanUnits.figure(perOperation * batch) + " s";
  }

  /**
   * Why figures are not comparable, one line per reason naming its steps: "not comparable: CAdES,
   * PAdES: …".
   */
  static List<String> notComparable(StudyRecord study) {
    if (study.published() == null) return List.of();
    java.util.Map<String, List<String>> steps = new java.util.LinkedHashMap<>();
    for (StudyRecord.Figure f : study.published().figures()) {
      if (f.notComparableBecause() == null) continue;
      List<String> named = steps.computeIfAbsent(f.notComparableBecause(), k -> new ArrayList<>());
      if (!named.contains(f.step()))
        named.add(f.step()); // a step the original published twice (1 and 2 CPUs) named once
    }
    List<String> lines = new ArrayList<>();
    steps.forEach(
        (why, names) -> lines.add("not comparable: " + String.join(", ", names) + ": " + why));
    return lines;
  }

  /**
   * The original's findings that are ratios of two of its steps, ours beside each at the same
   * level.
   */
  static List<String> ratios(RunResult result) {
    StudyRecord study = result.study();
    if (study.published() == null) return List.of();
    StudyRecord.Unit unit = study.published().unitOr(study.unit());
    List<String> lines = new ArrayList<>();
    for (StudyRecord.Ratio r : study.published().ratios()) {
      Optional<LevelResult> num = levelOf(result, r.numeratorStep(), r.level()),
          den = levelOf(result, r.denominatorStep(), r.level());
      double ours =
          num.isPresent() && den.isPresent() ? unit.of(num.get()) / unit.of(den.get()) : Double.NaN;
      String level = r.level() + (r.level() == 1 ? " worker" : " workers");
      lines.add(
          String.format(
              Locale.ROOT,
              "%s: the original's %.1f× (%s); ours %s (%s)",
              r.what(),
              r.value(),
              r.conditions(),
              Double.isFinite(ours) ? String.format(Locale.ROOT, "%.1f×", ours) : "not measured",
              level));
    }
    return lines;
  }

  private static Optional<LevelResult> levelOf(RunResult result, String step, int concurrency) {
    return rows(result).stream()
        .filter(r -> r.label().equals(step) && r.measured() != null)
        .findFirst()
        .flatMap(
            r ->
                r.measured().levels().stream()
                    .filter(l -> l.concurrency() == concurrency)
                    .findFirst());
  }

  /**
   * A star where our step measured a substitute for the original's configuration (the grid's
   * footnotes say which).
   */
  static String substituteMark(StudyRecord study, String step) {
    if (study.grid() == null) return "";
    return study.grid().cells().stream()
            .anyMatch(c -> step.equals(c.step()) && c.substitutedBecause() != null)
        ? " *"
        : "";
  }

  static String hardware(Environment e) {
    return OutsideText.forTerminal(e.cpuModel())
        + " × "
        + e.cores()
        + " cores, "
        + String.format(Locale.ROOT, "%.0f GiB", e.memoryBytes() / (1024.0 * 1024 * 1024))
        + ", "
        + OutsideText.forTerminal(e.jdk())
        + " (load generator and services on the same machine)";
  }

  static String whyNotMeasured(Row row) {
    if (row.measured() != null && row.measured().failure() != null)
      return OutsideText.forTerminal(row.measured().failure());
    if (row.step().notMeasuredBecause() != null) return row.step().notMeasuredBecause();
    return "the study stopped before this step";
  }

  static String interval(LevelResult l, StudyRecord.Unit unit) {
    if (l.throughput().ci999() == null) return "-";
    if (HumanUnits.intervalTooWide(l.throughput()).isPresent()) return "too wide";
    return HumanUnits.rate(l.throughput().ci999() * unit.perSecond());
  }

  /** The stress tool's panel for one step, shown on the live view when its measurement ends. */
  public static String panel(String label, WorkloadResult w, StudyRecord.Unit unit) {
    if (w.levels().isEmpty())
      return "[" + label + "] not measured: " + OutsideText.forTerminal(w.failure());
    LevelResult l = w.levels().get(0);
    StringBuilder p = new StringBuilder();
    p.append("┌─ ").append(label).append(" (").append(w.name()).append(")\n");
    p.append(
        String.format(
            Locale.ROOT,
            "│ threads %d   operations %d   successes %d   errors %d%n",
            l.concurrency(),
            l.counts().started(),
            l.counts().succeeded(),
            l.counts().failed()));
    p.append(
        String.format(
            Locale.ROOT,
            "│ average %s   max %s   p99 %s%n",
            HumanUnits.nanos(l.latencyNanos().mean()),
            HumanUnits.nanos(l.latencyNanos().max()),
            HumanUnits.nanos(l.latencyNanos().p99())));
    p.append(
        String.format(
            Locale.ROOT,
            "│ %s %s   %s ops per service CPU-second   service CPU %s%n",
            HumanUnits.rate(l.throughput().mean() * (unit.perServiceCpu() ? 1 : unit.perSecond())),
            rateName(unit),
            l.cpu().opsPerCpuSecond() == null ? "-" : HumanUnits.rate(l.cpu().opsPerCpuSecond()),
            HumanUnits.percent(l.cpu().utilisation())));
    HumanUnits.intervalTooWide(l.throughput())
        .ifPresent(t -> p.append("│ ").append(t).append('\n'));
    Steadiness.warning(l).ifPresent(t -> p.append("│ ").append(t).append('\n'));
    return p.append("└─\n").toString();
  }

  /**
   * The study's bar charts: throughput per step in the original's unit, and ops per service
   * CPU-second.
   */
  public static List<Chart> charts(RunResult result) {
    StudyRecord study = result.study();
    List<SvgBarChart.Bar> rate = new ArrayList<>(), perCpu = new ArrayList<>();
    for (Row row : rows(result)) {
      row.level()
          .ifPresent(
              l -> {
                double v =
                    l.throughput().mean()
                        * (study.unit().perServiceCpu() ? 1 : study.unit().perSecond());
                rate.add(
                    new SvgBarChart.Bar(
                        row.label(),
                        v,
                        HumanUnits.rate(v)
                            + " "
                            + rateName(study.unit())
                            + " at "
                            + l.concurrency()
                            + " threads"));
                Double c = l.cpu().opsPerCpuSecond();
                perCpu.add(
                    new SvgBarChart.Bar(
                        row.label(),
                        c == null ? 0 : c,
                        c == null ? "no CPU measured" : HumanUnits.rate(c) + " per CPU-s"));
              });
    }
    if (rate.isEmpty()) return List.of();
    return List.of(
        new SvgBarChart(
            "study-throughput",
            study.name() + ": throughput by step (" + rateName(study.unit()) + ")",
            rate),
        new SvgBarChart("study-cpu", study.name() + ": operations per service CPU-second", perCpu));
  }

  /**
   * The study's section of the HTML report: title, its table, remarks, the bar charts, the original
   * beside ours, the checks.
   */
  public static String html(RunResult result) {
    StudyRecord study = result.study();
    StringBuilder h =
        new StringBuilder("<section id=\"study\"><h2>Study ")
            .append(Html.esc(study.name()))
            .append(": ")
            .append(Html.esc(study.title()))
            .append("</h2>\n");
    h.append(StudyGrid.html(result)); // the original's own tables first, when its steps form one
    h.append(ServiceComparison.html(result));
    h.append("<div class=\"wide\"><table id=\"study-table\"><tr>");
    String[] header = header(study);
    for (int i = 0; i < header.length; i++)
      h.append(i == 0 ? "<th class=\"l\">" : "<th>").append(Html.esc(header[i])).append("</th>");
    h.append("</tr>\n");
    List<Row> rows = rows(result);
    for (Row row : rows) {
      Optional<LevelResult> level = row.level();
      if (level.isEmpty()) {
        h.append("<tr><td class=\"l\">")
            .append(Html.esc(row.label()))
            .append("</td><td class=\"l\" colspan=\"")
            .append(header.length - 1)
            .append("\">")
            .append(whyNotMeasured(row).startsWith(NOT_APPLICABLE) ? "" : "not measured: ")
            .append(Html.esc(whyNotMeasured(row)))
            .append("</td></tr>\n");
        continue;
      }
      String[] cells = cells(row, level.get(), study);
      h.append("<tr>");
      for (int i = 0; i < cells.length; i++)
        h.append(i == 0 ? "<td class=\"l\">" : "<td>").append(Html.esc(cells[i])).append("</td>");
      h.append("</tr>\n");
    }
    List<String> remarks =
        remarks(study, rows).stream()
            .filter(r -> !r.contains(": not measured: "))
            .toList(); // shown in its row already
    h.append(
        "</table></div>\n<p class=\"muted\">One level is measured per step, so this table sizes each step at its chosen level;"
            + " how throughput scales is read from the probe sweeps below, not from these rows.</p>\n");
    for (String note : study.notes())
      h.append("<p class=\"warn\">").append(Html.esc(note)).append("</p>\n");
    if (!remarks.isEmpty()) {
      h.append("<ul>");
      for (String r : remarks) h.append("<li>").append(Html.esc(r)).append("</li>");
      h.append("</ul>\n");
    }
    for (Chart chart : charts(result)) h.append(chart.render());
    h.append(FaultTimeline.html(result));
    h.append(SizingCheckTable.html(result));
    originalInWords(result)
        .ifPresent(
            w ->
                h.append("<h3>The original beside ours</h3>\n<p>")
                    .append(Html.esc(w))
                    .append(".</p>\n"));
    List<String[]> beside = published(result);
    if (beside.size() > 1) {
      h.append("<h3>The original beside ours</h3>\n<table id=\"published\">");
      for (int r = 0; r < beside.size(); r++) {
        h.append("<tr>");
        for (int i = 0; i < beside.get(r).length; i++) {
          String tag = r == 0 ? "th" : "td";
          h.append('<')
              .append(tag)
              .append(i == 0 || i == 2 ? " class=\"l\">" : ">")
              .append(Html.esc(beside.get(r)[i]))
              .append("</")
              .append(tag)
              .append('>');
        }
        h.append("</tr>\n");
      }
      h.append("</table>\n<p>Original: ")
          .append(Html.esc(study.published().source()))
          .append("; ")
          .append(Html.esc(study.published().hardware()))
          .append(".<br>Ours: ")
          .append(Html.esc(hardware(result.environment())))
          .append(".</p>\n");
      for (String n : notComparable(study))
        h.append("<p class=\"warn\">").append(Html.esc(n)).append(".</p>\n");
      for (String r : ratios(result)) h.append("<p>").append(Html.esc(r)).append(".</p>\n");
      if (beside.stream().anyMatch(r -> r[3].endsWith(" *"))) {
        h.append(
            "<p class=\"warn\">* ours measured a substitute for the original's configuration; the grid's footnotes above say which.</p>\n");
      }
    }
    if (!study.checks().isEmpty()) {
      h.append(
          "<h3>Checks</h3>\n<table id=\"checks\"><tr><th class=\"l\">check</th><th class=\"l\">outcome</th><th class=\"l\">found</th></tr>\n");
      for (StudyRecord.CheckRecord c : study.checks()) {
        h.append("<tr><td class=\"l\">")
            .append(Html.esc(c.name()))
            .append("</td><td class=\"l\">")
            .append(c.passed() ? "passed" : "<b>FAILED</b>")
            .append("</td><td class=\"l\">")
            .append(Html.esc(c.detail()))
            .append("</td></tr>\n");
      }
      h.append("</table>\n");
    }
    return h.append("</section>\n").toString();
  }

  /**
   * How a workload entry is named in charts and headings: a study's step and role, else the
   * workload with its parameters.
   */
  public static String label(WorkloadResult w, String analysisLabel) {
    if (w.step() == null) return analysisLabel;
    return w.step().label() + (w.probe() ? " (probe sweep, " : " (measured, ") + w.name() + ")";
  }
}
