package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.cli.CliContext;
import io.pkibench.cli.Main;
import io.pkibench.formats.ades.SamplePdf;
import io.pkibench.results.Counts;
import io.pkibench.results.Cpu;
import io.pkibench.results.LatencyNanos;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.RunStatus;
import io.pkibench.results.Throughput;
import io.pkibench.results.WorkloadResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@org.junit.jupiter.api.Timeout(
    value = 10,
    unit = TimeUnit.MINUTES) // a study talks to its service JVMs: a hang fails, said as one
class RestPkiStudyTest {

  static LevelResult level(int threads, double opsPerSecond, double utilisation) {
    return new LevelResult(
        threads,
        new Counts(1, 1, 0),
        new Throughput(opsPerSecond, null, null, 1, "ops/s"),
        new LatencyNanos(1, 1, 0, 1, 1, 1, 1, 1),
        new Cpu(1, utilisation, 1.0, "pid:1"),
        List.of(),
        null,
        List.of());
  }

  @Test
  void choose_stopsAtNinetyPercentCpuOrWhenThroughputStopsGaining() {
    var atCpu =
        SaturatingLevelChooser.INSTANCE.choose(
            List.of(level(2, 100, 0.4), level(8, 300, 0.92), level(32, 310, 0.99)));
    assertEquals(8, atCpu.concurrency());
    assertTrue(atCpu.because().contains("92%"), atCpu.because());
    var noGain =
        SaturatingLevelChooser.INSTANCE.choose(
            List.of(level(2, 100, 0.3), level(8, 300, 0.6), level(32, 310, 0.7)));
    assertEquals(8, noGain.concurrency(), "32 gains only 3%");
    assertTrue(noGain.because().contains("32, gained under 5%"), noGain.because());
    assertEquals(
        32,
        SaturatingLevelChooser.INSTANCE
            .choose(List.of(level(2, 100, 0.1), level(8, 300, 0.3), level(32, 600, 0.6)))
            .concurrency(),
        "still gaining");
  }

  /**
   * The whole quick study: a signer JVM on loopback, every transaction type, samples that other
   * tools verify.
   */
  @Test
  void quickStudy_measuresEveryTypeAndWritesVerifiableSamples(@TempDir Path dir) throws Exception {
    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx =
        new CliContext(
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            Map.of("PATH", System.getenv("PATH")),
            InstantSource.system(),
            dir,
            false);
    int code =
        Main.execute(
            ctx,
            "study",
            "restpki",
            "--smoke",
            "--pki",
            "pki",
            "--out",
            "restpki.json",
            "--save-samples",
            "samples",
            "--html",
            "restpki.html");
    assertEquals(0, code, err.toString());
    RunResult result = RunResultJson.read(dir.resolve("restpki.json"));
    assertEquals(RunStatus.COMPLETE, result.status());
    assertEquals("restpki", result.study().name());
    assertTrue(
        result.study().notes().stream()
            .anyMatch(n -> n.startsWith("every quick iteration cut to at most 500ms")),
        "--smoke says so in the result: " + result.study().notes());
    assertTrue(
        result.study().notes().stream()
            .anyMatch(
                n -> n.startsWith("documents: CAdES, CAdES-T, PAdES and PAdES-T sign the 137 KB")),
        "which document the study sends, said: " + result.study().notes());
    assertTrue(
        result.environment().jdk().length() > 0,
        "one result with its environment, not scratch files with a blank one");
    List<String> labels = RestPkiStudy.TYPES.stream().map(RestPkiStudy.Type::label).toList();
    assertEquals(labels, result.study().steps().stream().map(s -> s.label()).toList());
    List<WorkloadResult> measured = result.workloads().stream().filter(w -> !w.probe()).toList();
    List<WorkloadResult> probes =
        result.workloads().stream().filter(WorkloadResult::probe).toList();
    assertEquals(
        RestPkiStudy.TYPES.stream().map(RestPkiStudy.Type::workload).toList(),
        measured.stream().map(WorkloadResult::name).toList());
    assertEquals(6, probes.size(), "every probe sweep is kept in the result, flagged");
    for (WorkloadResult p : probes)
      assertEquals(
          List.of(2, 8, 32), p.levels().stream().map(LevelResult::concurrency).toList(), p.name());
    for (int i = 0; i < measured.size(); i++) {
      WorkloadResult w = measured.get(i);
      LevelResult l = w.levels().get(0);
      assertEquals(
          result.study().steps().get(i).chosenLevel(),
          l.concurrency(),
          "measured at the level its probe chose");
      assertTrue(l.counts().succeeded() > 0, w.name());
      assertEquals(0, l.counts().failed(), w.name() + " " + l.errors());
      assertEquals(
          l.counts().succeeded(),
          l.counts().verified(),
          w.name() + ": every answer of the service checked, the ok column the verified count");
      assertTrue(l.cpu().meter().startsWith("pid:"), "the service's CPU, by pid");
      assertTrue(l.cpu().opsPerCpuSecond() != null && l.cpu().opsPerCpuSecond() > 0);
    }
    assertTrue(
        Files.readString(dir.resolve("restpki.hlog"))
            .contains("Tag=CAdES-T.probe/http:cades-t/c8/"),
        "one interval log, tags naming the step");
    for (String column :
        List.of(
            "threads",
            "ops/min",
            "ops/service-cpu-s",
            "PAdES-T",
            "the original beside ours",
            "40 threads")) {
      assertTrue(out.toString().contains(column), column + " in:\n" + out);
    }
    for (String label : labels)
      assertTrue(
          err.toString().contains("┌─ " + label), "a panel per type on the live view: " + label);
    assertTrue(
        out.toString().contains("quick: each type warmed half a second at a time until"),
        "quick figures are not sizing figures, and it says so");
    String html = Files.readString(dir.resolve("restpki.html"));
    for (String id :
        List.of(
            "id=\"study-table\"",
            "id=\"study-throughput\"",
            "id=\"published\"",
            "CAdES (probe sweep, http:cades)")) {
      assertTrue(html.contains(id), id);
    }
    // The probe sweeps (three levels) may say how they scaled; each measured step, one level, must
    // not.
    String verdicts =
        html.substring(
            html.indexOf("<section id=\"verdict\">"),
            html.indexOf("</section>", html.indexOf("<section id=\"verdict\">")));
    List<String> measuredSteps =
        Arrays.stream(verdicts.split("<h3>"))
            .skip(1)
            .filter(b -> !b.contains("probe sweep"))
            .toList();
    assertEquals(
        labels.size(), measuredSteps.size(), "one verdict per measured step:\n" + verdicts);
    for (String step : measuredSteps) {
      assertTrue(
          step.contains("no scaling verdict from one level")
              && !step.contains("the highest measured (efficiency"),
          "no scaling verdict from the one measured level:\n" + step);
    }

    // The samples are the measured service's own answers, kept by the workloads: each signed
    // document is one operation's, its identifier (run, worker, operation) in its XMP metadata; a
    // sample made in pkibench's process would carry none (or the template's zeros).
    Path s = dir.resolve("samples");
    for (String signedPdf : List.of("cades.document.pdf", "cades-t.document.pdf", "pades.pdf")) {
      Matcher id =
          Pattern.compile(SamplePdf.IDENTIFIER_MARKER + "([0-9a-f]{24})")
              .matcher(Files.readString(s.resolve(signedPdf), StandardCharsets.ISO_8859_1));
      assertTrue(id.find(), signedPdf + ": no operation identifier, not an operation's document");
      assertFalse(id.group(1).matches("0+"), signedPdf + ": the template's identifier");
    }
    assertFalse(Files.exists(s.resolve(".answers")), "the kept answers moved into place");
    assertTrue(Files.readString(s.resolve("VERIFY.md")).contains("openssl ts -verify"));
    String verified = runScript(s.resolve("verify.sh"));
    assertTrue(verified.startsWith("0:"), verified);
    for (String f :
        List.of("cades.p7s", "cades-t.p7s", "pades.pdf", "pades-t.pdf", "timestamp.tsr")) {
      assertTrue(verified.contains("OK   " + f), f + " in:\n" + verified);
    }
    assertTrue(verified.contains("5 verified, 0 failed"), verified);
    // An independent check that can fail: one changed byte of the document CAdES signed breaks
    // its sample, and only its.
    Path doc = s.resolve("cades.document.pdf");
    byte[] bytes = Files.readAllBytes(doc);
    bytes[bytes.length / 2] ^= 1;
    Files.write(doc, bytes);
    String tampered = runScript(s.resolve("verify.sh"));
    assertTrue(tampered.startsWith("1:"), tampered);
    assertTrue(
        tampered.contains("FAIL cades.p7s")
            && tampered.contains("OK   cades-t.p7s")
            && tampered.contains("OK   pades.pdf"),
        tampered);
  }

  static String runScript(Path script) throws Exception {
    Process p = new ProcessBuilder(List.of(script.toString())).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    return p.waitFor() + ":" + out;
  }
}
