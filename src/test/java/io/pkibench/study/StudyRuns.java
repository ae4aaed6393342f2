package io.pkibench.study;

import io.pkibench.measure.LatencyHistograms;
import io.pkibench.plan.LevelLoad;
import io.pkibench.plan.Plan;
import io.pkibench.plan.WorkloadSpec;
import io.pkibench.results.IterationResult;
import io.pkibench.results.LevelResult;
import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunStatus;
import io.pkibench.results.StudyRecord;
import io.pkibench.results.WorkloadResult;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import org.HdrHistogram.Histogram;

/**
 * A study's result as its runner writes it, without running anything: the steps its {@code steps()}
 * really plans, over services given free loopback ports of their own (as each study run picks
 * them), each step's probe when it has one, every level of each plan with three measured 1-second
 * iterations, and the step records pointing at them. Only the measurements are made up: {@code
 * ratePerSecond} and {@code utilisation} per step label.
 */
final class StudyRuns {
  private StudyRuns() {}

  static final int CORES = 2;

  static RunResult run(
      Study study,
      Path dir,
      ToDoubleFunction<String> ratePerSecond,
      ToDoubleFunction<String> utilisation)
      throws Exception {
    return run(study, dir, ratePerSecond, utilisation, label -> 0);
  }

  /**
   * {@code warmingUp}: per step label, how far the CPU per operation falls from the first measured
   * iteration to the last (0.3: 30%).
   */
  static RunResult run(
      Study study,
      Path dir,
      ToDoubleFunction<String> ratePerSecond,
      ToDoubleFunction<String> utilisation,
      ToDoubleFunction<String> warmingUp)
      throws Exception {
    StudyOptions options =
        new StudyOptions(true, Duration.ofSeconds(10), "software", dir.resolve("pki"), null);
    RunningServices services =
        RunningServices.plan(study.services(options), List.of("java"), Map.of(), line -> {});
    List<StudyRecord.ServiceRecord> serviceRecords = new ArrayList<>();
    for (String name : services.names()) {
      serviceRecords.add(
          new StudyRecord.ServiceRecord(
              name,
              List.of("pkibench", "serve"),
              URI.create(services.url(name)).getPort(),
              List.of(4242L)));
    }
    StudyInfo info = study.info();
    RunResult run =
        RunResult.start(ResultFixtures.environment(), null)
            .withStudy(
                new StudyRecord(
                    StudyRecord.SCHEMA,
                    info.name(),
                    info.title(),
                    info.unit(),
                    info.published(),
                    serviceRecords,
                    List.of(),
                    List.of(),
                    study.notes(options),
                    null));
    List<Step> steps = study.steps(options, services);
    run = run.withStudy(run.study().withGrid(study.grid(options)));
    for (Step step : steps) {
      StudyRecord.StepRecord record = new StudyRecord.StepRecord(step.label(), List.of());
      if (step.notApplicableBecause() != null) { // as the runner records it
        run =
            run.withStudy(
                run.study()
                    .withStep(
                        record.notMeasured(
                            StudyRunner.NOT_APPLICABLE + step.notApplicableBecause())));
        continue;
      }
      double rate = ratePerSecond.applyAsDouble(step.label()),
          busy = utilisation.applyAsDouble(step.label());
      double fall = warmingUp.applyAsDouble(step.label());
      if (step.probe() != null) {
        record = record.probed(run.workloads().size());
        run =
            append(
                run,
                step.label(),
                WorkloadResult.Step.PROBE,
                step.probe().plan(),
                rate,
                busy,
                fall);
      }
      record = record.measured(run.workloads().size());
      run = append(run, step.label(), WorkloadResult.Step.MEASURE, step.plan(), rate, busy, fall);
      run = run.withStudy(run.study().withStep(record));
    }
    return run.withStatus(RunStatus.COMPLETE);
  }

  private static RunResult append(
      RunResult run,
      String label,
      String role,
      Plan plan,
      double rate,
      double utilisation,
      double fall) {
    WorkloadSpec spec = plan.workloads().get(0);
    String meter = "client".equals(plan.cpu()) ? "jvm" : "pid:4242";
    WorkloadResult w =
        WorkloadResult.builder(spec.name())
            .params(spec.params())
            .keys(spec.keys())
            .cpuMeter(meter)
            .step(new WorkloadResult.Step(label, role))
            .mix(spec.mix())
            .build();
    for (LevelLoad load : plan.load().levels())
      w = w.withLevel(level(load, rate, utilisation, fall, meter));
    return run.withWorkload(run.workloads().size(), w);
  }

  /**
   * Three measured seconds at {@code rate} ± 1%, the measured side's CPU {@code utilisation} of
   * {@link #CORES} cores in the first, falling by {@code fall} to the last (a service still
   * compiling).
   */
  static LevelResult level(
      LevelLoad load, double rate, double utilisation, double fall, String meter) {
    List<IterationResult> iterations = new ArrayList<>();
    double[] rates = {rate, rate * 1.01, rate * 0.99};
    for (int i = 0; i < rates.length; i++) {
      long ok = Math.round(rates[i]);
      Histogram h = LatencyHistograms.newHistogram();
      for (long k = 0; k < ok; k++) h.recordValue(1_000_000 + k % 1000);
      iterations.add(
          IterationResult.builder()
              .series(1)
              .index(i + 1)
              .durationNanos(1_000_000_000L)
              .started(ok)
              .succeeded(ok)
              .failed(0)
              .cpuNanos(Math.round(utilisation * (1 - fall * i / 2.0) * CORES * 1e9))
              .histogram(LatencyHistograms.toBase64(h))
              .build());
    }
    Double target = load instanceof LevelLoad.Open o ? o.ratePerSecond() : null;
    return LevelResult.of(load.workers(), target, iterations, meter, CORES);
  }
}
