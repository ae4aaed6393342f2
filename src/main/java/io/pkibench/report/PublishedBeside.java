package io.pkibench.report;

import io.pkibench.results.Environment;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.text.OutsideText;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The original's published figures, findings and hardware beside ours, for the terminal and the
 * HTML alike.
 */
final class PublishedBeside {
  private PublishedBeside() {}

  /**
   * The published figures beside ours in the original's unit, matched by step label: header row
   * first. The ratio column says "not comparable" where the figure says why ours over it would not
   * be like for like.
   */
  static List<String[]> table(RunResult result) {
    return of(result).rows();
  }

  /**
   * The published figures beside ours: the rows (header first), and whether any figure of ours
   * measured a substitute for the original's configuration (its cell starred).
   */
  record Beside(List<String[]> rows, boolean starred) {}

  static Beside of(RunResult result) {
    StudyRecord study = result.study();
    StudyRecord.Unit unit =
        study.published() == null ? study.unit() : study.published().unitOr(study.unit());
    Optional<StudyRecord.Condition> condition = StudyAnalysis.condition(study);
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
    if (study.published() == null) return new Beside(rows, false);
    boolean starred = false;
    List<StudyRow> measured = StudyRow.of(result);
    for (StudyRecord.Figure f : study.published().figures()) {
      // A figure matches its step, or each variant of it ("RR 128 B · AES128/SHA-1 [openssl]").
      List<StudyRow> matches =
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
      for (StudyRow match : matches) {
        Optional<LevelResult> ours = match.level();
        double value = ours.map(unit::of).orElse(Double.NaN);
        String mark = substituteMark(study, match.label());
        List<String> cells =
            new ArrayList<>(
                List.of(
                    match.label(),
                    HumanUnits.figure(f.value()),
                    f.conditions(),
                    ours.isEmpty()
                        ? "not measured"
                        : StudyTableText.offeredRate(unit, ours.get())
                            ? StudyTableText.inUnit(unit, ours.get())
                            : Double.isNaN(value)
                                ? "no CPU measured"
                                : HumanUnits.figure(value) + mark));
        starred |=
            !mark.isEmpty()
                && ours.isPresent()
                && !StudyTableText.offeredRate(unit, ours.get())
                && !Double.isNaN(value);
        if (batch != null) cells.add(batchTime(batch, unit, ours));
        cells.add(ours.map(l -> Integer.toString(l.concurrency())).orElse("-"));
        cells.add(ours.map(l -> HumanUnits.percent(l.cpu().utilisation())).orElse("-"));
        condition.ifPresent(
            k ->
                cells.add(
                    ours.map(
                            l ->
                                StudyTableText.conditionCell(
                                    StudyAnalysis.condition(k, match.measured(), l)))
                        .orElse("-")));
        // a substitute (another suite where the original's is gone) measured something else: no
        // ratio to the original's figure
        cells.add(
            f.notComparableBecause() != null
                ? "not comparable"
                : !mark.isEmpty()
                    ? "not comparable (substitute)"
                    : ours.isEmpty()
                            || f.value() == 0
                            || Double.isNaN(value)
                            || StudyTableText.offeredRate(unit, ours.get())
                        ? "-"
                        : String.format(Locale.ROOT, "%.2f×", value / f.value()));
        rows.add(cells.toArray(String[]::new));
      }
    }
    return new Beside(rows, starred);
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
    Map<String, List<String>> steps = new LinkedHashMap<>();
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
    return StudyRow.of(result).stream()
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

  /**
   * An original that published curves and findings rather than figures: its words, beside our
   * hardware.
   */
  static Optional<String> originalInWords(RunResult result) {
    StudyRecord.Published p = result.study().published();
    if (p == null || !p.figures().isEmpty()) return Optional.empty();
    return Optional.of(
        "the original ("
            + p.source()
            + "): "
            + p.hardware()
            + "; ours: "
            + hardware(result.environment()));
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
}
