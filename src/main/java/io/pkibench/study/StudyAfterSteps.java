package io.pkibench.study;

import io.pkibench.analysis.Analysis;
import io.pkibench.keys.KeySource;
import io.pkibench.metrics.MetricsExporter;
import io.pkibench.pki.TestPki;
import io.pkibench.report.HtmlReport;
import io.pkibench.report.MixTables;
import io.pkibench.report.StudyTables;
import io.pkibench.results.CpuProfile;
import io.pkibench.results.MetricsExport;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.session.RunProfiler;
import io.pkibench.session.RunSession;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * What a study run does around its steps and after them, beside the result file: the CPU profile
 * ({@code --profile}), the last push of live metrics ({@code --metrics}), the tables, the HTML
 * report and the samples. The command turns its flags into the pieces; this runs them, in the order
 * the terminal shows them, and says how the study ended.
 */
public final class StudyAfterSteps {
  /**
   * Where a study's outputs go: the result file, and the report and samples when asked (else null).
   */
  public record Outputs(Path resultFile, Path html, Path samples) {
    public Outputs {
      Objects.requireNonNull(resultFile, "resultFile");
    }
  }

  /** The pieces the after-steps need; {@code profiler} and {@code exporter} null when not asked. */
  public record Pieces(
      RunProfiler profiler,
      MetricsExporter exporter,
      TestPki pki,
      RunSession.KeyOpener keys,
      String keySource,
      InstantSource clock) {}

  /** How a study ended, for the command's exit code. */
  public enum Outcome {
    /** Every step ran and every post-run check passed. */
    DONE,
    /** A step could not run or stopped early. */
    RUN_FAILED,
    /** The steps ran; a post-run check failed. */
    CHECK_FAILED
  }

  private final Outputs outputs;
  private final Pieces pieces;
  private final PrintWriter out;
  private final Consumer<String> log;

  /** {@code out}: the tables and what was written; {@code log}: progress lines. */
  public StudyAfterSteps(Outputs outputs, Pieces pieces, PrintWriter out, Consumer<String> log) {
    this.outputs = outputs;
    this.pieces = pieces;
    this.out = out;
    this.log = log;
  }

  /**
   * Runs {@code steps} with the profiler recording and the metrics pushing (their last push made
   * however the steps end), then {@code progressDone}, the tables, the profile, the report and the
   * samples.
   */
  public Outcome run(Study study, Callable<RunResult> steps, Runnable progressDone)
      throws Exception {
    RunProfiler profiler = pieces.profiler();
    RunResult result;
    MetricsExport pushed;
    if (profiler != null) profiler.start();
    try {
      result = steps.call();
    } finally {
      pushed = finishMetrics();
    }
    if (pushed != null) {
      result = result.withMetrics(pushed);
      RunResultJson.write(result, outputs.resultFile());
    }
    progressDone.run();
    CpuProfile cpuProfile = profiler == null ? null : profiler.finish();
    out.print(StudyTables.terminal(result));
    out.print(MixTables.studyTerminal(result));
    if (cpuProfile != null)
      ProfileSummary.print(out, cpuProfile, CpuProfile.fileFor(outputs.resultFile()));
    if (outputs.html() != null) {
      HtmlReport.write(
          outputs.html(), result, Analysis.of(result, Analysis.Options.DEFAULT), cpuProfile);
      out.println("report " + outputs.html());
    }
    if (outputs.samples() != null) writeSamples(study, outputs.samples());
    out.println(
        "saved "
            + outputs.resultFile()
            + "; 'pkibench report "
            + outputs.resultFile()
            + "' prints it again");
    return outcome(result);
  }

  /** A failed or unfinished step says more than the checks its missing figures failed. */
  static Outcome outcome(RunResult result) {
    if (result.workloads().stream().anyMatch(w -> w.failure() != null)
        || result.status() != RunStatus.COMPLETE) return Outcome.RUN_FAILED;
    return result.study().checksPassed() ? Outcome.DONE : Outcome.CHECK_FAILED;
  }

  /** The last push and its account, said with the progress; null without --metrics. */
  private MetricsExport finishMetrics() {
    if (pieces.exporter() == null) return null;
    MetricsExport tally = pieces.exporter().finish();
    log.accept(MetricsExporter.summary(tally));
    return tally;
  }

  private void writeSamples(Study study, Path dir) throws Exception {
    List<Sample> samples;
    try (KeySource keys = pieces.keys().open(pieces.keySource())) {
      samples = study.samples(dir, pieces.pki(), keys, pieces.clock());
    }
    SampleScripts.write(dir, study.name(), samples);
    out.println(
        "samples: "
            + samples.size()
            + " files in "
            + dir
            + "; "
            + dir.resolve("verify.sh")
            + " checks each with an independent tool");
  }
}
