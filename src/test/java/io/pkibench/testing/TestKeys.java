package io.pkibench.testing;

import io.pkibench.engine.ProgressListener;
import io.pkibench.keys.KeySource;
import io.pkibench.keys.SoftwareKeySource;
import io.pkibench.keys.catalog.KeySources;
import io.pkibench.pki.TestPki;
import io.pkibench.results.Environment;
import io.pkibench.session.EnvironmentProbe;
import io.pkibench.session.ForkedSeries;
import io.pkibench.study.StudyRunner;
import io.pkibench.workload.api.Params;
import io.pkibench.workload.api.Workload;
import io.pkibench.workload.api.WorkloadContext;
import io.pkibench.workload.api.WorkloadFactory;
import io.pkibench.workload.catalog.WorkloadCatalog;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Map;

/**
 * A fresh test PKI in a test's directory, its keys through the tests' provider ({@link
 * TestProvider}: ACCP, or fails saying why), and workloads made from them.
 */
public final class TestKeys {
  public final TestPki pki;
  public final KeySource keys;

  private TestKeys(TestPki pki) {
    this.pki = pki;
    this.keys = new SoftwareKeySource(() -> pki, TestProvider.chosen());
  }

  /** The PKI goes to {@code dir/pki}, with the default CRL distribution points. */
  public static TestKeys in(Path dir) {
    return in(dir, TestPki.DEFAULT_CRL_BASE_URL);
  }

  public static TestKeys in(Path dir, String crlBaseUrl) {
    return new TestKeys(
        TestPki.init(dir.resolve("pki"), InstantSource.system(), crlBaseUrl, line -> {}));
  }

  /**
   * The workload {@code factory} makes with these keys, this PKI and {@code params}; {@code verify}
   * on.
   */
  public Workload workload(WorkloadFactory factory, Map<String, String> params) throws Exception {
    return factory.create(
        new WorkloadContext(keys, true, () -> pki),
        Params.resolve(factory.name(), factory.params(), params));
  }

  /**
   * A study runner writing {@code out}, its services' keys and PKI these, log lines into {@code
   * log}.
   */
  public StudyRunner studyRunner(Path out, java.util.List<String> log) {
    return studyRunner(out, log, 0);
  }

  /** As {@link #studyRunner(Path, java.util.List)}, with {@code --verify-sample verifySample}. */
  public StudyRunner studyRunner(Path out, java.util.List<String> log, int verifySample) {
    return new StudyRunner(
        WorkloadCatalog.builtIn(),
        new StudyRunner.Options(
            out,
            InstantSource.system(),
            ProgressListener.NONE,
            log::add,
            Map.of("PATH", System.getenv("PATH")),
            ForkedSeries.thisJvm(),
            spec ->
                KeySources.open(spec, () -> pki, null, Map.of(), InstantSource.system(), log::add),
            () -> pki,
            java.time.Duration.ofSeconds(30),
            verifySample));
  }

  /** This machine's environment as a run records it. */
  public Environment environment(String commandLine) {
    return EnvironmentProbe.capture(commandLine, InstantSource.system(), java.util.List.of());
  }
}
