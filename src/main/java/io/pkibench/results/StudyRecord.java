package io.pkibench.results;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a study adds to its result ({@code pkibench.study/1}): which study, the unit its original
 * reported in, the published figures to set beside ours (with the hardware they came from), the
 * services it started (every pid each had, restarts included), each step's chosen level and why,
 * and the post-run checks with their outcome, and ({@code --check-sizing}, absent otherwise) each
 * step's capacity at one core predicted from half a core beside the one measured. The report reads
 * the study from this alone.
 */
public record StudyRecord(
    String schema,
    String name,
    String title,
    Unit unit,
    Published published,
    List<ServiceRecord> services,
    List<StepRecord> steps,
    List<CheckRecord> checks,
    List<String> notes,
    @JsonInclude(JsonInclude.Include.NON_NULL) Grid grid,
    @JsonInclude(JsonInclude.Include.NON_EMPTY) List<SizingCheck> sizingChecks) {
  public static final String SCHEMA = "pkibench.study/1";

  public StudyRecord {
    services = List.copyOf(services);
    steps = List.copyOf(steps);
    checks = List.copyOf(checks);
    notes = List.copyOf(notes);
    sizingChecks =
        sizingChecks == null
            ? List.of()
            : List.copyOf(sizingChecks); // absent from results written before it
  }

  public StudyRecord(
      String schema,
      String name,
      String title,
      Unit unit,
      Published published,
      List<ServiceRecord> services,
      List<StepRecord> steps,
      List<CheckRecord> checks,
      List<String> notes,
      Grid grid) {
    this(schema, name, title, unit, published, services, steps, checks, notes, grid, List.of());
  }

  /**
   * {@code --check-sizing}: step {@code step}'s capacity at {@code checkCores} predicted from its
   * measurement (step {@code limitedStep}) under a CPU limit of {@code limitCores}, as {@link
   * #FORMULA} says, beside the one measured (step {@code checkStep}) under a limit of {@code
   * checkCores}; {@code miss} is predicted ÷ measured − 1. Each measurement's service CPU in cores
   * (its CPU-seconds over the measured wall time) shows whether the limit held. Figures are null
   * when a measurement is missing, and {@code notCheckedBecause} says why.
   */
  public record SizingCheck(
      String step,
      double limitCores,
      double checkCores,
      String limitedStep,
      String checkStep,
      Integer level,
      Double opsPerCpuSecondLimited,
      Double serviceCoresLimited,
      Double predictedOpsPerSecond,
      Double measuredOpsPerSecond,
      Double serviceCoresChecked,
      Double miss,
      @JsonInclude(JsonInclude.Include.NON_NULL) String notCheckedBecause) {
    /**
     * How the prediction is made: the sizing formula with the utilisation at 1 (the limit is the
     * capacity).
     */
    public static final String FORMULA =
        "predicted ops/s at C cores = ops per service CPU-second measured under a limit of L cores × C CPU-seconds per second;"
            + " miss = predicted ÷ measured − 1";
  }

  /**
   * A unit: {@code name} (e.g. ops/min) is ops/s × {@code perSecond}; with {@code basis} {@value
   * #PER_SERVICE_CPU_SECOND} it is the services' operations per CPU-second × {@code perSecond}
   * (IBM's "transactions per second per server CPU"); with {@value #SECONDS_PER_OPERATION} it is
   * {@code perSecond} ÷ ops/s (OpenPEC's seconds per mail: a batch's time over its mails).
   */
  public record Unit(
      String name, double perSecond, @JsonInclude(JsonInclude.Include.NON_NULL) String basis) {
    public static final String PER_SERVICE_CPU_SECOND = "service-cpu-second";
    public static final String SECONDS_PER_OPERATION = "seconds-per-operation";
    public static final Unit OPS_PER_SECOND = new Unit("ops/s", 1);
    public static final Unit OPS_PER_MINUTE = new Unit("ops/min", 60);
    public static final Unit TPS_PER_SERVER_CPU =
        new Unit("tps per server CPU", 1, PER_SERVICE_CPU_SECOND);

    public Unit(String name, double perSecond) {
      this(name, perSecond, null);
    }

    @JsonIgnore
    public boolean perServiceCpu() {
      return PER_SERVICE_CPU_SECOND.equals(basis);
    }

    /**
     * A level's figure in this unit; NaN when it is per CPU and no CPU was measured, or per
     * operation and none succeeded.
     */
    public double of(LevelResult level) {
      if (SECONDS_PER_OPERATION.equals(basis)) {
        double rate = level.throughput().mean();
        return rate > 0 ? perSecond / rate : Double.NaN;
      }
      if (!perServiceCpu()) return level.throughput().mean() * perSecond;
      Double perCpu = level.cpu().opsPerCpuSecond();
      return perCpu == null ? Double.NaN : perCpu * perSecond;
    }
  }

  /**
   * The condition the original measured under, checked on each measured step: the measured side's
   * CPU at least {@code minUtilisation} of the machine's cores, or, when that is null, the measured
   * side's CPU measured at all. {@code text} is the original's condition in words, e.g. "the
   * service's CPU near 100%".
   */
  public record Condition(String text, Double minUtilisation) {}

  /**
   * A study whose steps form a table, as its original printed it (e.g. IBM's transaction × cipher
   * suite): rows and columns in order, the column others are normalised to, and each cell's step.
   */
  public record Grid(
      String rowsAre,
      String columnsAre,
      List<String> rows,
      List<String> columns,
      String baseline,
      List<String> variants,
      List<Cell> cells) {
    public Grid {
      rows = List.copyOf(rows);
      columns = List.copyOf(columns);
      variants = List.copyOf(variants);
      cells = List.copyOf(cells);
    }

    /** The same layout over {@code newCells}. */
    public Grid withCells(List<Cell> newCells) {
      return new Grid(rowsAre, columnsAre, rows, columns, baseline, variants, newCells);
    }

    /**
     * The cell at {@code row} × {@code column} for {@code variant}, or the baseline's cell (shared
     * by every variant).
     */
    public Optional<Cell> cell(String row, String column, String variant) {
      return cells.stream()
          .filter(
              c ->
                  c.row().equals(row)
                      && c.column().equals(column)
                      && (c.variant().equals(variant) || column.equals(baseline)))
          .findFirst();
    }
  }

  /**
   * One cell: its step's label, what was measured there (e.g. the suite, protocol and key) and,
   * when that is not what the original measured, why: the original's configuration was refused
   * here; and, when its server was not measured like for like with the baseline's, how the two
   * differ (its figures are then shown, never set against the baseline's).
   */
  public record Cell(
      String row,
      String column,
      String variant,
      String step,
      String measured,
      String substitutedBecause,
      @JsonInclude(JsonInclude.Include.NON_NULL) String notComparedBecause) {
    public Cell(
        String row,
        String column,
        String variant,
        String step,
        String measured,
        String substitutedBecause) {
      this(row, column, variant, step, measured, substitutedBecause, null);
    }

    /** This cell, not to be set against the baseline, {@code because}. */
    public Cell notCompared(String because) {
      return new Cell(row, column, variant, step, measured, substitutedBecause, because);
    }
  }

  /**
   * The figures the original published and the hardware it ran on; {@code figures} match steps by
   * label. {@code unit}: the original's unit, which its figures are in and ours are stated in
   * beside them (absent: the study's unit); {@code condition}: what the original held while
   * measuring, checked per step (absent: none stated); {@code ratios}: figures of the original that
   * are ratios of two of its steps, set beside ours; {@code batchOperations}: where the original
   * timed a batch (OpenPEC: 18 mails a test) and its unit is time per operation, the batch's size,
   * so that ours is also stated as the time such a batch would take (absent: no batch).
   */
  public record Published(
      String source,
      String hardware,
      List<Figure> figures,
      @JsonInclude(JsonInclude.Include.NON_NULL) Unit unit,
      @JsonInclude(JsonInclude.Include.NON_NULL) Condition condition,
      @JsonInclude(JsonInclude.Include.NON_EMPTY) List<Ratio> ratios,
      @JsonInclude(JsonInclude.Include.NON_NULL) Integer batchOperations) {
    public Published {
      figures = List.copyOf(figures);
      ratios = ratios == null ? List.of() : List.copyOf(ratios);
      if (batchOperations != null && batchOperations < 1)
        throw new IllegalArgumentException(
            "a batch holds at least one operation, not " + batchOperations);
    }

    public Published(
        String source,
        String hardware,
        List<Figure> figures,
        Unit unit,
        Condition condition,
        List<Ratio> ratios) {
      this(source, hardware, figures, unit, condition, ratios, null);
    }

    public Published(String source, String hardware, List<Figure> figures) {
      this(source, hardware, figures, null, null, List.of());
    }

    /**
     * The unit the figures are in: the original's, or the study's when the original's was not
     * recorded.
     */
    public Unit unitOr(Unit studyUnit) {
      return unit == null ? studyUnit : unit;
    }
  }

  /**
   * {@code value} in the original's unit; {@code conditions} as the original states them, e.g. "40
   * threads"; {@code notComparableBecause}: why ours over it would not be a like-for-like ratio
   * (null when it would be).
   */
  public record Figure(
      String step,
      double value,
      String conditions,
      @JsonInclude(JsonInclude.Include.NON_NULL) String notComparableBecause) {
    public Figure(String step, double value, String conditions) {
      this(step, value, conditions, null);
    }
  }

  /**
   * An original's finding that is the ratio of two of its figures (OpenPEC: verification costs 5.4×
   * signing per mail), at {@code level} of both steps: machine-independent, so ours is set beside
   * it as a like-for-like figure.
   */
  public record Ratio(
      String what,
      String numeratorStep,
      String denominatorStep,
      int level,
      double value,
      String conditions) {}

  /**
   * A service the study started as its own JVM: its command (no secret is ever on it) and every pid
   * it had.
   */
  public record ServiceRecord(String name, List<String> command, int port, List<Long> pids) {
    public ServiceRecord {
      command = List.copyOf(command);
      pids = List.copyOf(pids);
    }
  }

  /**
   * One step: its label, the hooks run around it, when a probe chose its level the level and the
   * reason, and why it was not measured if it was not. {@code probeWorkload}/{@code
   * measuredWorkload} index the result's workloads (null when absent).
   */
  public record StepRecord(
      String label,
      List<String> hooks,
      Integer probeWorkload,
      Integer measuredWorkload,
      Integer chosenLevel,
      String chosenBecause,
      String notMeasuredBecause) {
    public StepRecord {
      hooks = List.copyOf(hooks);
    }

    /**
     * What a hook's description starts with when it injects a fault during the step (a node killed,
     * …).
     */
    public static final String FAULT = "fault: ";

    public StepRecord(String label, List<String> hooks) {
      this(label, hooks, null, null, null, null, null);
    }

    /** The fault injected during this step, as its hook described it ({@code fault: …}), if any. */
    @JsonIgnore
    public Optional<String> fault() {
      return hooks.stream()
          .filter(h -> h.contains(FAULT))
          .map(h -> h.substring(h.indexOf(FAULT)))
          .findFirst();
    }

    public StepRecord probed(int workload) {
      return new StepRecord(
          label, hooks, workload, measuredWorkload, chosenLevel, chosenBecause, notMeasuredBecause);
    }

    public StepRecord chose(int level, String because) {
      return new StepRecord(
          label, hooks, probeWorkload, measuredWorkload, level, because, notMeasuredBecause);
    }

    public StepRecord measured(int workload) {
      return new StepRecord(
          label, hooks, probeWorkload, workload, chosenLevel, chosenBecause, notMeasuredBecause);
    }

    public StepRecord notMeasured(String why) {
      return new StepRecord(
          label, hooks, probeWorkload, measuredWorkload, chosenLevel, chosenBecause, why);
    }
  }

  /** A post-run check: passed or not, and what it found. A failed check fails the study. */
  public record CheckRecord(String name, boolean passed, String detail) {}

  public StudyRecord withGrid(Grid newGrid) {
    return new StudyRecord(
        schema,
        name,
        title,
        unit,
        published,
        services,
        steps,
        checks,
        notes,
        newGrid,
        sizingChecks);
  }

  public StudyRecord withServices(List<ServiceRecord> newServices) {
    return new StudyRecord(
        schema,
        name,
        title,
        unit,
        published,
        newServices,
        steps,
        checks,
        notes,
        grid,
        sizingChecks);
  }

  public StudyRecord withStep(StepRecord step) {
    List<StepRecord> list = new ArrayList<>(steps);
    list.removeIf(s -> s.label().equals(step.label()));
    list.add(step);
    return new StudyRecord(
        schema, name, title, unit, published, services, list, checks, notes, grid, sizingChecks);
  }

  public StudyRecord withChecks(List<CheckRecord> newChecks) {
    return new StudyRecord(
        schema,
        name,
        title,
        unit,
        published,
        services,
        steps,
        newChecks,
        notes,
        grid,
        sizingChecks);
  }

  public StudyRecord withNote(String note) {
    List<String> list = new ArrayList<>(notes);
    list.add(note);
    return new StudyRecord(
        schema, name, title, unit, published, services, steps, checks, list, grid, sizingChecks);
  }

  public StudyRecord withSizingChecks(List<SizingCheck> newSizingChecks) {
    return new StudyRecord(
        schema,
        name,
        title,
        unit,
        published,
        services,
        steps,
        checks,
        notes,
        grid,
        newSizingChecks);
  }

  public boolean checksPassed() {
    return checks.stream().allMatch(CheckRecord::passed);
  }
}
