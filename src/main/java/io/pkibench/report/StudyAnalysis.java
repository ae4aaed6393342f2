package io.pkibench.report;

import io.pkibench.results.LevelResult;
import io.pkibench.results.StudyRecord;
import io.pkibench.results.WorkloadResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a study's rows say beyond their own figures, computed once and returned as records for the
 * renderers ({@link StudyTables}, {@link StudyHtml}) to format: whether the seed's condition held
 * at each step, and the client : server split (and the cores a published rate needs) where a
 * workload was measured charging each side.
 */
final class StudyAnalysis {
  private StudyAnalysis() {}

  /** How the seed's condition fared at one step's level. */
  enum Verdict {
    HELD,
    NOT_HELD,
    /** The step charged the client's CPU: the condition is the measured side's, not its. */
    CLIENT_CPU,
    /** {@code --check-sizing} measured the step under a CPU limit: the condition is not its. */
    CPU_LIMITED
  }

  /**
   * The seed's condition at one level: {@code minUtilisation} null when the condition only asks
   * that CPU be measured ({@code cpuMeasured}); else the measured side's {@code utilisation}
   * against it.
   */
  record ConditionOutcome(
      Verdict verdict, boolean cpuMeasured, double utilisation, Double minUtilisation) {}

  /**
   * The same workload (name, parameters, keys) measured charging the client's JVM ({@code client})
   * and its services' CPU ({@code server}) at the same thread count: each side's CPU per operation.
   * {@code publishedRatePerSecond}: the rate the original published for the server's step, when it
   * published one, to size.
   */
  record ClientServerSplit(
      StudyRow client,
      StudyRow server,
      LevelResult clientLevel,
      LevelResult serverLevel,
      Optional<Double> publishedRatePerSecond) {
    int threads() {
      return clientLevel.concurrency();
    }

    double clientMicros() {
      return 1e6 / clientLevel.cpu().opsPerCpuSecond();
    }

    double serverMicros() {
      return 1e6 / serverLevel.cpu().opsPerCpuSecond();
    }

    /** The server's step measured key servers reached over the network ({@code remote:} keys). */
    boolean remoteKeys() {
      String keys = server.measured().keys();
      return keys != null && keys.startsWith("remote:");
    }
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

  /**
   * Whether the original's condition held at this level: the measured side's CPU at least the
   * condition's share of the cores (or measured at all). A step charging the client's CPU measures
   * the other side: the condition is not its.
   */
  static ConditionOutcome condition(
      StudyRecord.Condition condition, WorkloadResult w, LevelResult l) {
    double u = l.cpu().utilisation();
    boolean cpuMeasured = l.cpu().opsPerCpuSecond() != null;
    if (w != null && "jvm".equals(w.cpuMeter()))
      return new ConditionOutcome(Verdict.CLIENT_CPU, cpuMeasured, u, condition.minUtilisation());
    boolean held =
        condition.minUtilisation() == null ? cpuMeasured : u >= condition.minUtilisation();
    return new ConditionOutcome(
        held ? Verdict.HELD : Verdict.NOT_HELD, cpuMeasured, u, condition.minUtilisation());
  }

  /**
   * The seed's condition at a step of the study's own table, where the seed states one: a step
   * measured under a CPU limit is not held to it.
   */
  static Optional<ConditionOutcome> conditionAtStep(
      StudyRecord study, StudyRow row, LevelResult l) {
    return condition(study)
        .map(
            k ->
                underCpuLimit(study, row.label())
                    ? new ConditionOutcome(
                        Verdict.CPU_LIMITED,
                        l.cpu().opsPerCpuSecond() != null,
                        l.cpu().utilisation(),
                        k.minUtilisation())
                    : condition(k, row.measured(), l));
  }

  /**
   * A step {@code --check-sizing} measured under a CPU limit: the seed's condition (its CPU near
   * 100% of the cores) is not its.
   */
  static boolean underCpuLimit(StudyRecord study, String label) {
    return study.sizingChecks().stream()
        .anyMatch(c -> label.equals(c.limitedStep()) || label.equals(c.checkStep()));
  }

  /**
   * Every client : server split the rows hold, client rows in step order and, for each, its server
   * rows in step order: a client row is one charging the client's JVM, its server a row charging
   * services that measured the same workload (name, parameters, keys, either of them possibly
   * absent) at the client's peak level, both with CPU measured.
   */
  static List<ClientServerSplit> splits(StudyRecord study, List<StudyRow> rows) {
    List<ClientServerSplit> splits = new ArrayList<>();
    for (StudyRow client : rows) {
      if (!client.chargesClient() || client.level().isEmpty()) continue;
      WorkloadResult c = client.measured();
      LevelResult cl = client.level().get();
      for (StudyRow server : rows) {
        WorkloadResult s = server.measured();
        if (s == null
            || server.chargesClient()
            || !s.name().equals(c.name())
            || !s.params().equals(c.params())
            || !Objects.equals(s.keys(), c.keys())) continue;
        Optional<LevelResult> sl =
            s.levels().stream().filter(l -> l.concurrency() == cl.concurrency()).findFirst();
        if (sl.isEmpty()
            || cl.cpu().opsPerCpuSecond() == null
            || sl.get().cpu().opsPerCpuSecond() == null) continue;
        splits.add(
            new ClientServerSplit(
                client, server, cl, sl.get(), publishedRate(study, server.label())));
      }
    }
    return splits;
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

  /** Whether the study's services are all key servers (pix, rsfn), for the sizing line's words. */
  static boolean keyServers(StudyRecord study) {
    return !study.services().isEmpty()
        && study.services().stream().allMatch(s -> s.name().startsWith("keyserver"));
  }

  /** The first level of a sweep whose p99 is over {@code boundNanos}, if any. */
  static Optional<LevelResult> firstOver(List<LevelResult> levels, double boundNanos) {
    return levels.stream().filter(x -> x.latencyNanos().p99() > boundNanos).findFirst();
  }
}
