package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pkibench.analysis.ComparisonTest;
import io.pkibench.results.ResultFixtures;
import io.pkibench.results.RunResultJson;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One output grammar (docs/cli-grammar.md): {@code -o/--out FILE} is JSON on every command that
 * writes, {@code -} is stdout with everything else on stderr, {@code --html FILE} the HTML report.
 */
class OutFlagTest {
  @TempDir Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int run(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    return InThisJvm.run(dir, out, err, args);
  }

  @BeforeEach
  void results() throws Exception {
    RunResultJson.write(
        ResultFixtures.closedRun(
            "sign",
            new int[] {1, 2},
            new double[][] {{100, 101}, {190, 192}},
            new long[] {1_000_000, 1_100_000}),
        dir.resolve("r.json"));
    RunResultJson.write(ComparisonTest.BASE, dir.resolve("base.json"));
    RunResultJson.write(ComparisonTest.NEW, dir.resolve("new.json"));
  }

  @Test
  void reportDashOHtml_refusedPointingToHtml() {
    assertEquals(2, run("report", "r.json", "-o", "report.html"));
    assertTrue(err.toString().contains("--html report.html"), err.toString());
    assertFalse(Files.exists(dir.resolve("report.html")));
  }

  @Test
  void reportOutput_keptAsHiddenAliasOfHtml_sayingSo() throws Exception {
    assertEquals(0, run("report", "r.json", "--output", "old.html"), err.toString());
    assertTrue(Files.readString(dir.resolve("old.html")).contains("<svg"));
    assertTrue(err.toString().contains("--output: now --html"), err.toString());
    assertFalse(
        new picocli.CommandLine(new PkibenchCommand(null))
            .getSubcommands()
            .get("report")
            .getUsageMessage()
            .contains("--output"),
        "--output is hidden from report's help");
  }

  @Test
  void reportDashODash_jsonAloneOnStdout_tableOnStderr() throws Exception {
    assertEquals(0, run("report", "r.json", "-o", "-", "--html", "r.html"), err.toString());
    JsonNode json = RunResultJson.mapper().readTree(out.toString());
    assertEquals("sign", json.get("workloads").get(0).get("name").asText());
    assertTrue(json.has("analysis"), "the analysis recomputed is in it");
    assertTrue(err.toString().contains("conc"), "the table on stderr: " + err);
    assertTrue(Files.exists(dir.resolve("r.html")));
  }

  @Test
  void reportDashOFile_writesTheJson() throws Exception {
    assertEquals(0, run("report", "r.json", "-o", "again.json"), err.toString());
    assertEquals(
        2,
        RunResultJson.read(dir.resolve("again.json")).workloads().get(0).levels().size(),
        "the result read back");
    assertTrue(out.toString().contains("conc"), "the table still on stdout: " + out);
  }

  @Test
  void compareDashO_writesTheComparisonJsonAndHtml() throws Exception {
    int code = run("compare", "base.json", "new.json", "-o", "cmp/c.json", "--html", "cmp/c.html");
    assertEquals(0, code, err.toString());
    JsonNode json = RunResultJson.mapper().readTree(dir.resolve("cmp/c.json").toFile());
    assertTrue(json.get("rows").size() > 0, json.toString());
    String html = Files.readString(dir.resolve("cmp/c.html"));
    assertTrue(html.contains("<table>") && html.contains("throughput"), html);
    assertTrue(out.toString().contains("interval"), "the table on stdout: " + out);
  }

  @Test
  void compareDashODash_jsonAloneOnStdout() throws Exception {
    assertEquals(0, run("compare", "base.json", "new.json", "-o", "-"), err.toString());
    JsonNode json = RunResultJson.mapper().readTree(out.toString());
    assertTrue(json.get("rows").size() > 0, json.toString());
    assertTrue(err.toString().contains("interval"), "the table on stderr: " + err);
  }

  @Test
  void compareFormatText_readAsTable_sayingSo() {
    assertEquals(0, run("compare", "base.json", "new.json", "--format", "text"), err.toString());
    assertTrue(err.toString().contains("--format text: now called table"), err.toString());
    String table = out.toString();
    assertEquals(0, run("compare", "base.json", "new.json", "--format", "table"));
    assertEquals(out.toString(), table);
  }

  @Test
  void runDashODash_resultOnStdout_progressTableAndSavedOnStderr() throws Exception {
    int code =
        run(
            "run",
            "noop",
            "--concurrency",
            "1",
            "--warmup",
            "0x1s",
            "--measure",
            "1x200ms",
            "--pki",
            "pki",
            "-o",
            "-");
    assertEquals(0, code, err.toString());
    JsonNode json = RunResultJson.mapper().readTree(out.toString());
    assertEquals(1, json.get("workloads").get(0).get("levels").size(), out.toString());
    assertTrue(err.toString().contains("saved "), err.toString());
    assertTrue(err.toString().contains("conc"), "the table on stderr: " + err);
    assertFalse(Files.exists(dir.resolve("-")), "no file named '-'");
  }
}
