package io.pkibench.cli;

import io.pkibench.analysis.Analysis;
import io.pkibench.keys.KeySources;
import io.pkibench.plan.Durations;
import io.pkibench.report.HtmlReport;
import io.pkibench.report.HumanUnits;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.WorkloadResult;
import io.pkibench.session.EnvironmentProbe;
import io.pkibench.study.RestPkiStudy;
import io.pkibench.study.StudySamples;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(
    name = "study",
    mixinStandardHelpOptions = true,
    description = "Reruns a published capacity study on this machine (STUDIES.md).",
    subcommands = StudyCommand.RestPki.class)
final class StudyCommand implements Runnable {
  @ParentCommand PkibenchCommand parent;
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "name a study: study restpki");
  }

  @Command(name = "restpki", mixinStandardHelpOptions = true,
      description = {"Study 1: a two-phase signing service sized by transaction type (auth, CAdES, CAdES-T, PAdES, PAdES-T, timestamp),",
          "each run alone at the thread count that drives the service's CPU to ~90% or stops gaining; the service's CPU measured by pid."},
      footer = {"", "Examples:", "  pkibench study restpki --quick                  # about 2 minutes",
          "  pkibench study restpki --duration 5m --out restpki.json --html restpki.html --save-samples samples/"})
  static final class RestPki implements Callable<Integer> {
    @ParentCommand StudyCommand study;

    @Option(names = "--quick", description = "short probes and 9 s measured per type: a smoke run of a cold service, not sizing figures")
    boolean quick;

    @Option(names = "--duration", defaultValue = "5m", description = "measured time per type, the original methodology's 5 minutes (default: ${DEFAULT-VALUE})")
    String duration;

    @Option(names = {"-o", "--out"}, defaultValue = "restpki.json", paramLabel = "FILE", description = "result file, one workload entry per type (default: ${DEFAULT-VALUE})")
    Path out;

    @Option(names = "--html", paramLabel = "FILE.html", description = "also write the HTML report")
    Path html;

    @Option(names = "--save-samples", paramLabel = "DIR", description = "write one artifact per type (cades.p7s, pades.pdf, xades.xml, timestamp.tsr…) and chain.pem")
    Path samples;

    @Option(names = "--keys", defaultValue = "software", paramLabel = "SOURCE", description = "where the client and TSA keys live (default: ${DEFAULT-VALUE})")
    String keys;

    @Option(names = "--pki", paramLabel = "DIR", description = "test PKI directory (default: $PKIBENCH_PKI or ~/.pkibench/pki)")
    Path pki;

    @Option(names = "--pin-file", paramLabel = "FILE", description = "file holding the PKCS#11 PIN (else $" + KeySources.PIN_ENV + ")")
    Path pinFile;

    @Override
    public Integer call() throws Exception {
      CliContext ctx = study.parent.context;
      Duration each;
      try {
        each = Durations.parse(duration);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(study.spec.commandLine(), "--duration: " + e.getMessage());
      }
      String keyProblem = KeySources.problem(keys);
      if (keyProblem != null) throw new ParameterException(study.spec.commandLine(), keyProblem);
      Path pkiDir = ctx.pkiDir(pki);
      Path resultFile = ctx.resolve(out);
      ConsoleProgress progress = new ConsoleProgress(ctx.err(), ctx.terminal(), false);
      var opener = KeyOpeners.of(ctx, pkiDir, pinFile, progress::line);
      RestPkiStudy runner = new RestPkiStudy(
          new RestPkiStudy.Options(quick, each, resultFile, pkiDir, keys, pinFile == null ? null : ctx.resolve(pinFile)),
          ctx.env(), ctx.clock(), progress, progress::line, opener);
      String commandLine = "pkibench " + String.join(" ", study.spec.commandLine().getParseResult().originalArgs());
      RunResult result = runner.run(EnvironmentProbe.capture(commandLine, ctx.clock(), List.of()));
      progress.done();
      ctx.out().print(table(result));
      if (quick) {
        // A JVM service compiles for tens of seconds under load; --quick measures it before that ends.
        ctx.out().println("quick: the service was measured cold (its JIT still compiling); a warm one does more per CPU-second."
            + " For sizing figures: --duration 5m");
      }
      if (html != null) {
        HtmlReport.write(ctx.resolve(html), result, Analysis.of(result, Analysis.Options.DEFAULT));
        ctx.out().println("report " + ctx.resolve(html));
      }
      if (samples != null) {
        var written = StudySamples.write(ctx.resolve(samples), io.pkibench.pki.TestPki.open(pkiDir), opener.open(keys), ctx.clock());
        ctx.out().println("samples: " + written.size() + " files in " + ctx.resolve(samples));
      }
      ctx.out().println("saved " + resultFile);
      return result.workloads().stream().anyMatch(w -> w.failure() != null) ? ExitCodes.RUN_FAILED : ExitCodes.OK;
    }

    /** The Rest PKI stress tool's panel, one row per type, plus what it lacked: CPU-normalised rate and percentiles. */
    static String table(RunResult result) {
      StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "%n%-16s %7s %9s %9s %6s %10s %10s %9s %14s %10s %10s%n",
          "type", "threads", "ops", "ok", "errors", "avg", "max", "ops/min", "ops/server-cpu-s", "p50", "p99"));
      for (WorkloadResult w : result.workloads()) {
        if (w.levels().isEmpty()) {
          out.append(String.format(Locale.ROOT, "%-16s not measured: %s%n", w.name(), w.failure()));
          continue;
        }
        LevelResult l = w.levels().get(0);
        out.append(String.format(Locale.ROOT, "%-16s %7d %9d %9d %6d %10s %10s %9.0f %14s %10s %10s%n", w.name(), l.concurrency(),
            l.counts().started(), l.counts().succeeded(), l.counts().failed(), HumanUnits.nanos(l.latencyNanos().mean()),
            HumanUnits.nanos(l.latencyNanos().max()), l.throughput().mean() * 60,
            l.cpu().opsPerCpuSecond() == null ? "-" : HumanUnits.rate(l.cpu().opsPerCpuSecond()),
            HumanUnits.nanos(l.latencyNanos().p50()), HumanUnits.nanos(l.latencyNanos().p99())));
      }
      return out.toString();
    }
  }
}
