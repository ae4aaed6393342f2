package io.pkibench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pkibench.analysis.ComparisonTest;
import io.pkibench.results.RunResultJson;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One threshold grammar (docs/cli-grammar.md) as compare and run read it on the command line. */
class ThresholdGrammarCliTest {
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
    RunResultJson.write(ComparisonTest.BASE, dir.resolve("base.json"));
    RunResultJson.write(ComparisonTest.NEW, dir.resolve("new.json"));
  }

  @Test
  void compare_k6Spelling_failsTheBreachWithoutADeprecationLine() {
    assertEquals(
        ExitCodes.THRESHOLD_FAILED,
        run("compare", "base.json", "new.json", "--threshold", "throughput>-5%"));
    assertTrue(out.toString().contains("throughput>-5%"), out.toString());
    assertFalse(err.toString().contains("now written"), err.toString());
  }

  @Test
  void compare_formerSpelling_stillReadWithTheNewOneOnStderr() {
    assertEquals(
        ExitCodes.THRESHOLD_FAILED,
        run("compare", "base.json", "new.json", "--threshold", "throughput:-5%"));
    assertTrue(
        err.toString().contains("--threshold throughput:-5%: now written throughput>-5%"),
        err.toString());
  }

  @Test
  void compare_comparisonAgainstTheMetric_refusedWithTheFix() {
    assertEquals(
        ExitCodes.USAGE, run("compare", "base.json", "new.json", "--threshold", "p99>+10%"));
    assertTrue(err.toString().contains("write p99<+10%"), err.toString());
  }

  @Test
  void run_k6TagScope_checkedOnThatWorkload() {
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
            "r.json",
            "--threshold",
            "p99{workload:noop}<10s");
    assertEquals(ExitCodes.OK, code, err.toString());
    assertEquals(
        ExitCodes.USAGE,
        run("run", "noop", "--pki", "pki", "--threshold", "p99{workload:sign}<10s"));
    assertTrue(err.toString().contains("'sign' is no workload"), err.toString());
  }
}
