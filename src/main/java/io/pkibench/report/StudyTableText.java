package io.pkibench.report;

import io.pkibench.analysis.Steadiness;
import io.pkibench.report.StudyAnalysis.ClientServerSplit;
import io.pkibench.report.StudyAnalysis.ConditionOutcome;
import io.pkibench.results.LevelResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.text.OutsideText;
import io.pkibench.text.Units;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The study table's words, shared by the terminal and the HTML: its header, each row's cells, and
 * the remarks on what the rows cannot say by themselves. Formats what {@link StudyAnalysis} found;
 * computes nothing of its own.
 */
final class StudyTableText {
  private StudyTableText() {}

  /** A step the service had no counterpart for says so this way (the study runner's words). */
  static final String NOT_APPLICABLE = "n/a — ";

  /** The latency both Prodist studies state their results against. */
  static final double P99_BOUND_NANOS = 50e6;

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
    StudyAnalysis.seedUnit(study).ifPresent(u -> h.add(u.name()));
    h.addAll(List.of("ops/service-cpu-s", "service cpu"));
    if (StudyAnalysis.condition(study).isPresent()) h.add("seed's condition");
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

  /** One measured step's cells, as both the terminal and the HTML table show them. */
  static String[] cells(StudyRow row, LevelResult l, StudyRecord study) {
    StudyRecord.Unit unit = study.unit();
    List<String> c =
        new ArrayList<>(
            List.of(
                row.label(),
                Integer.toString(l.concurrency()),
                Long.toString(l.counts().started()),
                ok(l),
                Long.toString(l.counts().failed()),
                Units.nanos(l.latencyNanos().mean()),
                Units.nanos(l.latencyNanos().max()),
                Units.rate(l.throughput().mean() * (unit.perServiceCpu() ? 1 : unit.perSecond())),
                interval(l, unit)));
    StudyAnalysis.seedUnit(study).ifPresent(u -> c.add(inUnit(u, l)));
    c.add(l.cpu().opsPerCpuSecond() == null ? "-" : Units.rate(l.cpu().opsPerCpuSecond()));
    c.add(HumanUnits.percent(l.cpu().utilisation()));
    StudyAnalysis.conditionAtStep(study, row, l).ifPresent(k -> c.add(conditionCell(k)));
    c.add(Units.nanos(l.latencyNanos().p50()));
    c.add(Units.nanos(l.latencyNanos().p99()));
    return c.toArray(String[]::new);
  }

  /**
   * The ok column: the verified operations where answers were checked (of the succeeded, when one
   * in N was: "5/51"); the succeeded where nothing was checked (a result from before {@code
   * counts.verified}, a workload that counts no checks), never a 0 that was not counted.
   */
  static String ok(LevelResult l) {
    Long verified = l.counts().verified();
    long succeeded = l.counts().succeeded();
    if (verified == null) return Long.toString(succeeded);
    return verified == succeeded ? Long.toString(verified) : verified + "/" + succeeded;
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
    if (offeredRate(unit, l)) return "n/a (offered rate)";
    double v = unit.of(l);
    return Double.isNaN(v)
        ? (unit.perServiceCpu() ? "no CPU measured" : "-")
        : HumanUnits.figure(v);
  }

  /** The seed's condition at a level, in the table's words. */
  static String conditionCell(ConditionOutcome k) {
    return switch (k.verdict()) {
      case CPU_LIMITED -> "n/a (CPU limited)";
      case CLIENT_CPU -> "n/a (client CPU)";
      case HELD ->
          k.minUtilisation() == null
              ? "held (CPU measured)"
              : "held (" + HumanUnits.percent(k.utilisation()) + ")";
      case NOT_HELD ->
          k.minUtilisation() == null
              ? "NOT HELD (no CPU measured)"
              : "NOT HELD ("
                  + HumanUnits.percent(k.utilisation())
                  + " < "
                  + HumanUnits.percent(k.minUtilisation())
                  + ")";
    };
  }

  static String interval(LevelResult l, StudyRecord.Unit unit) {
    if (l.throughput().ci999() == null) return "-";
    if (HumanUnits.intervalTooWide(l.throughput()).isPresent()) return "too wide";
    return Units.rate(l.throughput().ci999() * unit.perSecond());
  }

  static String whyNotMeasured(StudyRow row) {
    if (row.measured() != null && row.measured().failure() != null)
      return OutsideText.forTerminal(row.measured().failure());
    if (row.step().notMeasuredBecause() != null) return row.step().notMeasuredBecause();
    return "the study stopped before this step";
  }

  /**
   * What the rows cannot say by themselves: the client : server splits, steps not measured,
   * intervals too wide, unsteady levels, the probe's choice.
   */
  static List<String> remarks(StudyRecord study, List<StudyRow> rows) {
    return remarks(study, rows, true);
  }

  /**
   * As {@link #remarks(StudyRecord, List)}; without the steps not measured when {@code notMeasured}
   * is false (the HTML says so in the step's row). A step with no counterpart is always said.
   */
  static List<String> remarks(StudyRecord study, List<StudyRow> rows, boolean notMeasured) {
    List<ClientServerSplit> splits = StudyAnalysis.splits(study, rows);
    List<String> remarks = new ArrayList<>(clientBesideServer(study, splits));
    for (StudyRow row : rows) {
      Optional<LevelResult> level = row.level();
      if (level.isEmpty()) {
        String why = whyNotMeasured(row);
        if (why.startsWith(NOT_APPLICABLE)) remarks.add(row.label() + ": " + why);
        else if (notMeasured) remarks.add(row.label() + ": not measured: " + why);
        continue;
      }
      LevelResult l = level.get();
      HumanUnits.intervalTooWide(l.throughput())
          .ifPresent(why -> remarks.add(row.label() + ": " + why));
      conditionRemark(study, row, l).map(r -> r + whyNotHeld(splits, row)).ifPresent(remarks::add);
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

  /** Why a step's condition did not hold, in a sentence; empty when it held or does not apply. */
  static Optional<String> conditionRemark(StudyRecord study, StudyRow row, LevelResult l) {
    Optional<ConditionOutcome> outcome = StudyAnalysis.conditionAtStep(study, row, l);
    if (outcome.isEmpty() || outcome.get().verdict() != StudyAnalysis.Verdict.NOT_HELD)
      return Optional.empty();
    StudyRecord.Condition c = StudyAnalysis.condition(study).get();
    if (c.minUtilisation() == null)
      return Optional.of(
          row.label()
              + ": the seed's condition did not hold ("
              + c.text()
              + "): no CPU was measured");
    String scaled =
        StudyAnalysis.seedUnit(study)
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
   * Why a step's service side stayed short of saturation, where the data say: the same workload
   * measured charging the client's CPU shows which side each operation costs more. A client dearer
   * per operation than the services, on no more cores than theirs, saturates first: the seed's
   * condition cannot hold on this split.
   */
  static String whyNotHeld(List<ClientServerSplit> splits, StudyRow server) {
    for (ClientServerSplit split : splits) {
      if (!split.server().equals(server)) continue;
      double clientMicros = split.clientMicros(), serverMicros = split.serverMicros();
      String measured =
          String.format(
              Locale.ROOT,
              "; at %d threads the client spent %.0f µs of CPU per operation, the %s %.0f µs",
              split.threads(),
              clientMicros,
              split.remoteKeys() ? "key servers" : "service",
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
   * Each client : server split, side by side at the same thread count: the split a sizing needs.
   * Where the original published a rate for the step, one line more sizes that rate: the cores busy
   * in all, split between client and server.
   */
  static List<String> clientBesideServer(StudyRecord study, List<ClientServerSplit> splits) {
    List<String> lines = new ArrayList<>();
    String side = StudyAnalysis.keyServers(study) ? "key-server" : "server";
    for (ClientServerSplit split : splits) {
      double clientMicros = split.clientMicros(), serverMicros = split.serverMicros();
      lines.add(
          String.format(
              Locale.ROOT,
              "%s at %d threads: %.0f µs of client CPU and %.0f µs of server CPU per operation,"
                  + " client : server = 1 : %.2f",
              split.server().label(),
              split.threads(),
              clientMicros,
              serverMicros,
              serverMicros / clientMicros));
      split
          .publishedRatePerSecond()
          .ifPresent(
              rate -> {
                double clientCores = rate * clientMicros / 1e6,
                    serverCores = rate * serverMicros / 1e6;
                lines.add(
                    String.format(
                            Locale.ROOT,
                            "sizing %s for the original's %s ops/s: %.1f cores busy in all, %.1f client and %.1f %s"
                                + " (client : %s = 1 : %.2f), from the CPU per operation of each at %d threads",
                            split.server().label(),
                            HumanUnits.figure(rate),
                            clientCores + serverCores,
                            clientCores,
                            serverCores,
                            side,
                            side.replace('-', ' '),
                            serverMicros / clientMicros,
                            split.threads())
                        + unsteady(split.clientLevel(), split.serverLevel(), side));
              });
    }
    return lines;
  }

  /**
   * A sizing from a level whose cost per operation was still moving (a JVM still compiling, a
   * resource running out) is no sizing yet: said at the end of the line, naming the side.
   */
  private static String unsteady(LevelResult client, LevelResult server, String side) {
    List<String> moving = new ArrayList<>();
    // Steadiness words its finding "what: how"; the line names only the what.
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

  /** Where a sweep's p99 leaves the 50 ms bound, read from its levels in order. */
  static String p99Bound(List<LevelResult> levels) {
    Optional<LevelResult> over = StudyAnalysis.firstOver(levels, P99_BOUND_NANOS);
    if (over.isEmpty()) return "p99 stays under 50 ms at every level";
    LevelResult firstOver = over.get();
    int index = levels.indexOf(firstOver);
    if (index == 0) return "p99 is over 50 ms from the first level, " + firstOver.concurrency();
    int under = levels.get(index - 1).concurrency();
    return "p99 under 50 ms up to "
        + under
        + (under == 1 ? " thread, " : " threads, ")
        + Units.nanos(firstOver.latencyNanos().p99())
        + " at "
        + firstOver.concurrency();
  }
}
