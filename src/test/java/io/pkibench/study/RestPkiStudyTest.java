package io.pkibench.study;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.cli.CliContext;
import io.pkibench.cli.Main;
import io.pkibench.results.Counts;
import io.pkibench.results.Cpu;
import io.pkibench.results.LatencyNanos;
import io.pkibench.results.LevelResult;
import io.pkibench.results.RunResult;
import io.pkibench.results.RunResultJson;
import io.pkibench.results.Throughput;
import io.pkibench.results.WorkloadResult;
import io.pkibench.testing.Openssl;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RestPkiStudyTest {

  static LevelResult level(int threads, double opsPerSecond, double utilisation) {
    return new LevelResult(threads, new Counts(1, 1, 0), new Throughput(opsPerSecond, null, null, 1, "ops/s"),
        new LatencyNanos(1, 1, 0, 1, 1, 1, 1, 1), new Cpu(1, utilisation, 1.0, "pid:1"), List.of(), null, List.of());
  }

  @Test
  void choose_stopsAtNinetyPercentCpuOrWhenThroughputStopsGaining() {
    assertEquals(8, RestPkiStudy.choose(List.of(level(2, 100, 0.4), level(8, 300, 0.92), level(32, 310, 0.99))));
    assertEquals(8, RestPkiStudy.choose(List.of(level(2, 100, 0.3), level(8, 300, 0.6), level(32, 310, 0.7))), "32 gains only 3%");
    assertEquals(32, RestPkiStudy.choose(List.of(level(2, 100, 0.1), level(8, 300, 0.3), level(32, 600, 0.6))), "still gaining");
  }

  /** The whole quick study: a signer JVM on loopback, every transaction type, samples that other tools verify. */
  @Test
  void quickStudy_measuresEveryTypeAndWritesVerifiableSamples(@TempDir Path dir) throws Exception {
    StringWriter out = new StringWriter(), err = new StringWriter();
    CliContext ctx = new CliContext(new PrintWriter(out, true), new PrintWriter(err, true), Map.of("PATH", System.getenv("PATH")),
        InstantSource.system(), dir, false);
    int code = Main.execute(ctx, "study", "restpki", "--quick", "--pki", "pki", "--out", "restpki.json", "--save-samples", "samples",
        "--html", "restpki.html");
    assertEquals(0, code, err.toString());
    RunResult result = RunResultJson.read(dir.resolve("restpki.json"));
    assertEquals("complete", result.status());
    assertEquals(RestPkiStudy.TYPES, result.workloads().stream().map(WorkloadResult::name).toList());
    for (WorkloadResult w : result.workloads()) {
      LevelResult l = w.levels().get(0);
      assertTrue(l.counts().succeeded() > 0, w.name());
      assertEquals(0, l.counts().failed(), w.name() + " " + l.errors());
      assertTrue(l.cpu().meter().startsWith("pid:"), "the service's CPU, by pid");
      assertTrue(l.cpu().opsPerCpuSecond() != null && l.cpu().opsPerCpuSecond() > 0);
    }
    for (String column : List.of("threads", "ops/min", "ops/server-cpu-s", "http:pades-t")) assertTrue(out.toString().contains(column), out.toString());
    for (String type : RestPkiStudy.TYPES) assertTrue(err.toString().contains("┌─ " + type), "a panel per type on the live view: " + type);
    assertTrue(out.toString().contains("quick: the service was measured cold"), "quick figures are not sizing figures, and it says so");
    assertTrue(Files.readString(dir.resolve("restpki.html")).contains("id=\"throughput-6\""));

    Path s = dir.resolve("samples");
    String root = dir.resolve("pki/root-ca.pem").toString();
    String cades = Openssl.run(s, "cms", "-verify", "-binary", "-inform", "DER", "-in", "cades-t.p7s", "-content", "document.bin",
        "-CAfile", root, "-certfile", "chain.pem", "-out", "/dev/null");
    assertTrue(Openssl.succeeded(cades), cades);
    Files.writeString(s.resolve("tsa-chain.pem"), Files.readString(dir.resolve("pki/intermediate-a.pem")) + Files.readString(dir.resolve("pki/tsa.pem")));
    String ts = Openssl.run(s, "ts", "-verify", "-in", "timestamp.tsr", "-queryfile", "timestamp.tsq", "-CAfile", root, "-untrusted", "tsa-chain.pem");
    assertTrue(Openssl.succeeded(ts) && ts.contains("Verification: OK"), ts);
    for (String f : List.of("pades.pdf", "pades-t.pdf", "xades.xml", "cades.p7s")) assertTrue(Files.size(s.resolve(f)) > 0, f);
  }
}
